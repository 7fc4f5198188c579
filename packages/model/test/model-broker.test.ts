import { describe, expect, it } from 'vitest';
import { emptyBroker, logEndOffset, planBatches, receive, restart, windowRanges } from '../src/index.js';

const plan = planBatches(8);

function deliverAll(indexes: number[], window = 5, segmentBatches = 0) {
  let broker = emptyBroker();
  const deliveries = indexes.map((i) => {
    const d = receive(broker, plan[i]!, window, segmentBatches);
    broker = d.broker;
    return d;
  });
  return { broker, deliveries };
}

describe('the broker of the model runs core', () => {
  it("plans the chapter's batches, then single records", () => {
    expect(plan.map((b) => `${b.firstSeq}..${b.lastSeq}`)).toEqual([
      '0..1',
      '2..3',
      '4..5',
      '6..6',
      '7..9',
      '10..10',
      '11..11',
      '12..12',
    ]);
  });

  it("appends in order, answers a resend with the original offsets, refuses a gap: core's verdicts", () => {
    const { broker, deliveries } = deliverAll([0, 1, 1, 3]);
    expect(deliveries.map((d) => d.verdict.kind)).toEqual([
      'Append',
      'Append',
      'Duplicate',
      'OutOfOrderSequence',
    ]);
    expect(deliveries[2]!.verdict).toMatchObject({ firstOffset: 2, lastOffset: 3 });
    expect(deliveries[3]!.verdict).toEqual({ kind: 'OutOfOrderSequence', expected: 4, got: 6 });
    expect(broker.log.map((b) => [b.batch, b.firstOffset, b.lastOffset])).toEqual([
      [0, 0, 1],
      [1, 2, 3],
    ]);
    expect(logEndOffset(broker.log)).toBe(4);
  });

  it('never changes the entry of the state it was given', () => {
    const { broker } = deliverAll([0, 1]);
    const before = windowRanges(broker.entry);
    receive(broker, plan[2]!, 5, 0);
    expect(windowRanges(broker.entry)).toEqual(before);
  });

  it('evicts the oldest when the sixth batch lands, and says which', () => {
    const { broker, deliveries } = deliverAll([0, 1, 2, 3, 4, 5]);
    expect(deliveries[5]!.evicted).toEqual(['0..1']);
    expect(windowRanges(broker.entry)).toEqual(['2..3', '4..5', '6..6', '7..9', '10..10']);
    expect(receive(broker, plan[0]!, 5, 0).verdict).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 11,
      got: 0,
    });
  });

  it('a window narrowed to 4 (a mutation) evicts at the fifth batch', () => {
    const { deliveries } = deliverAll([0, 1, 2, 3, 4], 4);
    expect(deliveries[4]!.evicted).toEqual(['0..1']);
  });

  it("a restart rebuilds from the active segment only (the chapter's narrowing)", () => {
    const rolled = deliverAll([0, 1, 2, 3, 4], 5, 2).broker;
    expect(rolled.log.map((b) => b.segment)).toEqual([0, 0, 1, 1, 2]);
    expect(windowRanges(restart(rolled, 5).entry)).toEqual(['7..9']);
    const unrolled = deliverAll([0, 1, 2, 3, 4, 5], 5, 0).broker;
    expect(windowRanges(restart(unrolled, 5).entry)).toEqual(windowRanges(unrolled.entry));
    expect(windowRanges(restart(unrolled, 3).entry)).toEqual(['6..6', '7..9', '10..10']);
  });
});
