import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BatchMetadata,
  judge,
  judgeBatch,
  MAX_SEQUENCE,
  ProducerState,
  type ProducerVerdict,
  recordAppendedBatch,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '../src/index.js';
import { entryWith, epoch, seq } from './helpers.js';

/**
 * Kafka 4.1.0's rules, written out plainly and apart from the code under test:
 * `UnifiedLog.analyzeAndValidateProducerState` (duplicate first) then
 * `ProducerAppendInfo.checkProducerEpoch` and `checkSequence`, on a producer kept as
 * its epoch and the ranges of its last five batches.
 */
interface ModelBatch {
  readonly first: number;
  readonly last: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly timestamp: number;
}
interface ModelProducer {
  epoch: number; // -1: none
  batches: ModelBatch[];
}

function modelVerdict(
  p: ModelProducer | undefined,
  ep: number,
  first: number,
  last: number,
): ProducerVerdict {
  const current = p?.epoch ?? -1;
  const dup =
    p !== undefined && p.epoch === ep
      ? p.batches.find((b) => b.first === first && b.last === last)
      : undefined;
  if (dup !== undefined) {
    return {
      kind: 'Duplicate',
      firstOffset: dup.firstOffset,
      lastOffset: dup.lastOffset,
      timestamp: dup.timestamp,
    };
  }
  if (ep < current) return { kind: 'InvalidProducerEpoch', current: current as never, got: ep as never };
  if (current === -1) return { kind: 'Append' };
  if (ep !== current) {
    return first === 0
      ? { kind: 'Append' }
      : { kind: 'OutOfOrderSequence', expected: 0 as never, got: first as never };
  }
  const lastSeq = p!.batches.at(-1)?.last ?? -1;
  const expected = lastSeq === MAX_SEQUENCE ? 0 : lastSeq + 1;
  return first === expected
    ? { kind: 'Append' }
    : { kind: 'OutOfOrderSequence', expected: expected as never, got: first as never };
}

function modelAppend(p: ModelProducer, ep: number, batch: ModelBatch): void {
  if (p.epoch !== ep) {
    p.epoch = ep;
    p.batches = [];
  }
  p.batches.push(batch);
  if (p.batches.length > 5) p.batches.shift();
}

const NEAR_WRAP = MAX_SEQUENCE - 6;

describe("judgeBatch('kafka') (ProducerAppendInfo.checkProducerEpoch / checkSequence)", () => {
  it('a producer with no state accepts any sequence; the chapter judge wants 0', () => {
    expect(judgeBatch('kafka', undefined, epoch(0), seq(42), seq(44))).toEqual({ kind: 'Append' });
    expect(judgeBatch('kafka', undefined, epoch(3), seq(MAX_SEQUENCE), seq(0))).toEqual({ kind: 'Append' });
    expect(judge(entryWith([]), epoch(0), seq(42), seq(44))).toMatchObject({ kind: 'OutOfOrderSequence' });
  });

  it('an older epoch is fenced (47); a newer one must start at 0 (else 45)', () => {
    const entry = entryWith([[0, 2]], 5);
    expect(judgeBatch('kafka', entry, epoch(4), seq(3), seq(3))).toEqual({
      kind: 'InvalidProducerEpoch',
      current: 5,
      got: 4,
    });
    expect(judgeBatch('kafka', entry, epoch(6), seq(3), seq(3))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 3,
    });
    expect(judgeBatch('kafka', entry, epoch(6), seq(0), seq(0))).toEqual({ kind: 'Append' });
  });

  it('a duplicate is an exact range under the same epoch, with its original offsets', () => {
    const entry = entryWith([
      [0, 1],
      [2, 4],
    ]);
    expect(judgeBatch('kafka', entry, epoch(0), seq(2), seq(4))).toMatchObject({
      kind: 'Duplicate',
      firstOffset: 2,
      lastOffset: 4,
    });
    expect(judgeBatch('kafka', entry, epoch(0), seq(2), seq(3))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 5,
      got: 2,
    });
    expect(judgeBatch('kafka', entry, epoch(1), seq(2), seq(4))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 2,
    });
  });

  it('wraps at 2^31 - 1 to 0', () => {
    const entry = entryWith([[MAX_SEQUENCE - 1, MAX_SEQUENCE]]);
    expect(judgeBatch('kafka', entry, epoch(0), seq(0), seq(3))).toEqual({ kind: 'Append' });
    expect(judgeBatch('kafka', entry, epoch(0), seq(MAX_SEQUENCE), seq(1))).toMatchObject({
      kind: 'OutOfOrderSequence',
      expected: 0,
    });
  });

  it('property: agrees with the model of Kafka on random sends, resends, epoch bumps and wraps', () => {
    const send = fc.record({
      producer: fc.integer({ min: 0, max: 2 }),
      epoch: fc.integer({ min: 0, max: 3 }),
      // Mostly near what is expected; sometimes anywhere, sometimes a resend.
      how: fc.constantFrom('next', 'next', 'next', 'resend', 'gap', 'zero', 'any'),
      any: fc.integer({ min: 0, max: MAX_SEQUENCE }),
      count: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(fc.boolean(), fc.array(send, { minLength: 1, maxLength: 60 }), (startNearWrap, sends) => {
        const state = new ProducerState();
        const model = new Map<number, ModelProducer>();
        let offset = 0;
        for (const s of sends) {
          const pid = toProducerId(100 + s.producer);
          const m = model.get(pid);
          const lastSeq = m?.batches.at(-1)?.last;
          const next =
            lastSeq === undefined ? (startNearWrap ? NEAR_WRAP : 0) : (lastSeq + 1) % (MAX_SEQUENCE + 1);
          const resent = m?.batches[s.any % Math.max(1, m.batches.length)];
          let first: number;
          let count = s.count;
          if (s.how === 'resend' && resent !== undefined) {
            first = resent.first;
            count = ((resent.last - resent.first + MAX_SEQUENCE + 1) % (MAX_SEQUENCE + 1)) + 1;
          } else if (s.how === 'gap') first = (next + 2) % (MAX_SEQUENCE + 1);
          else if (s.how === 'zero') first = 0;
          else if (s.how === 'any') first = s.any;
          else first = next;
          const last = (first + count - 1) % (MAX_SEQUENCE + 1);
          const expected = modelVerdict(m, s.epoch, first, last);
          const entry = state.get(pid);
          const got = judgeBatch(
            'kafka',
            entry,
            toProducerEpoch(s.epoch),
            toSequence(first),
            toSequence(last),
          );
          expect(got).toEqual(expected);
          if (got.kind === 'Append') {
            const batch = {
              first,
              last,
              firstOffset: offset,
              lastOffset: offset + count - 1,
              timestamp: offset,
            };
            const target = entry ?? state.entry(pid);
            target.addBatch(
              toProducerEpoch(s.epoch),
              new BatchMetadata(toSequence(last), batch.lastOffset, count - 1, batch.timestamp),
            );
            const mp = m ?? { epoch: -1, batches: [] };
            modelAppend(mp, s.epoch, batch);
            model.set(pid, mp);
            offset += count;
          }
          // The window after each step is the model's.
          expect(
            state.get(pid)?.batches.map((b) => [b.firstSeq(), b.lastSeq, b.firstOffset(), b.lastOffset]) ??
              [],
          ).toEqual(model.get(pid)?.batches.map((b) => [b.first, b.last, b.firstOffset, b.lastOffset]) ?? []);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('ProducerState.removeExpired (Kafka removeExpiredProducers)', () => {
  it('forgets producers whose last batch is at least the expiration old; a forgotten producer then starts anywhere', () => {
    const state = new ProducerState();
    state.entry(toProducerId(1)).addBatch(epoch(0), new BatchMetadata(seq(4), 4, 4, 1_000));
    state.entry(toProducerId(2)).addBatch(epoch(0), new BatchMetadata(seq(9), 9, 4, 5_000));
    expect(state.removeExpired(10_999, 10_000)).toEqual([]);
    expect(state.removeExpired(11_000, 10_000)).toEqual([1]);
    expect(state.producerIds()).toEqual([2]);
    expect(judgeBatch('kafka', state.get(toProducerId(1)), epoch(0), seq(77), seq(77))).toEqual({
      kind: 'Append',
    });
  });

  it('returns the ids it removed in ascending order, whatever order the producers came in', () => {
    const state = new ProducerState();
    for (const [id, at] of [
      [30, 1_000],
      [7, 2_000],
      [500, 1_500],
      [12, 9_000],
    ] as const) {
      state.entry(toProducerId(id)).addBatch(epoch(0), new BatchMetadata(seq(0), 0, 0, at));
    }
    expect(state.removeExpired(12_000, 10_000)).toEqual([7, 30, 500]);
    expect(state.producerIds()).toEqual([12]);
  });
});

describe("judgeBatch('kafka') on an entry whose epoch is known but whose window is empty", () => {
  // ProducerStateEntry.maybeUpdateProducerEpoch (public, as Kafka's) can leave an entry in that state.
  const bumped = () => {
    const entry = entryWith([[0, 4]], 0);
    entry.maybeUpdateProducerEpoch(epoch(3));
    expect(entry.batches).toEqual([]);
    return entry;
  };

  it('takes sequence 0 under that epoch, and nothing else', () => {
    expect(judgeBatch('kafka', bumped(), epoch(3), seq(0), seq(1))).toEqual({ kind: 'Append' });
    expect(judgeBatch('kafka', bumped(), epoch(3), seq(5), seq(5))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 5,
    });
  });
});

describe('judgeBatch and recordAppendedBatch: the producer-state halves of an append', () => {
  it('judges by the rule named, and records only what was appended', () => {
    const state = new ProducerState();
    const pid = toProducerId(5);
    // A new producer at sequence 9: the chapter wants 0, Kafka takes it.
    expect(judgeBatch('chapter', state.get(pid), epoch(0), seq(9), seq(9))).toMatchObject({
      kind: 'OutOfOrderSequence',
    });
    expect(judgeBatch('kafka', state.get(pid), epoch(0), seq(9), seq(9))).toEqual({ kind: 'Append' });
    expect(state.size).toBe(0);
    recordAppendedBatch(state, pid, epoch(0), seq(9), 0, 0, 1);
    expect(judgeBatch('kafka', state.get(pid), epoch(0), seq(9), seq(9))).toMatchObject({
      kind: 'Duplicate',
    });
    // An older epoch: fenced by the Kafka rules and by chapter-fencing; the chapter's judge has no epoch rule but the match.
    recordAppendedBatch(state, pid, epoch(2), seq(0), 1, 0, 2);
    expect(judgeBatch('kafka', state.get(pid), epoch(1), seq(1), seq(1)).kind).toBe('InvalidProducerEpoch');
    expect(judgeBatch('chapter-fencing', state.get(pid), epoch(1), seq(1), seq(1)).kind).toBe(
      'InvalidProducerEpoch',
    );
    expect(judgeBatch('chapter', state.get(pid), epoch(1), seq(1), seq(1)).kind).toBe('Append');
  });
});
