import {
  type BatchMetadata,
  incrementSequence,
  judge,
  type ProducerEpoch,
  type ProducerId,
  type Sequence,
  type WindowEntry,
} from '@klog/core';
import { describe, expect, it } from 'vitest';
import { CORE_WINDOW, checkModel, type ModelWindow } from '../src/index.js';

/** A window of `size` batches written apart from core (what `klog lab check` brings a learner's as). */
function windowOf(size: number): ModelWindow {
  class Entry implements WindowEntry {
    readonly batches: BatchMetadata[] = [];
    producerEpoch: ProducerEpoch | -1 = -1;
    constructor(readonly producerId: ProducerId) {}
    addBatch(epoch: ProducerEpoch, batch: BatchMetadata): void {
      if (epoch !== this.producerEpoch) this.batches.length = 0;
      this.producerEpoch = epoch;
      if (this.batches.length === size) this.batches.shift();
      this.batches.push(batch);
    }
    expectedFirstSeq(): Sequence {
      const last = this.batches.at(-1);
      return last === undefined ? (0 as Sequence) : incrementSequence(last.lastSeq, 1);
    }
    findDuplicateBatch(epoch: ProducerEpoch, first: Sequence, last: Sequence): BatchMetadata | undefined {
      if (epoch !== this.producerEpoch) return undefined;
      return this.batches.find((b) => b.firstSeq() === first && b.lastSeq === last);
    }
  }
  // core's judge asks only what WindowEntry offers.
  return { ProducerStateEntry: Entry, judge: judge as unknown as ModelWindow['judge'] };
}

describe('checkModel over a window it is given', () => {
  it('finds what core finds with a window of five written apart from core', () => {
    const five = windowOf(5);
    expect(checkModel({ inFlight: 5 }, { window: five }).outcome.holds).toBe(true);
    const mine = checkModel({ inFlight: 6 }, { window: five }).outcome;
    const core = checkModel({ inFlight: 6 }, { window: CORE_WINDOW }).outcome;
    expect(mine.holds).toBe(false);
    expect(core.holds).toBe(false);
    if (!mine.holds && !core.holds) {
      expect(mine.counterexample.violation).toEqual(core.counterexample.violation);
      expect(mine.counterexample.steps.length).toBe(core.counterexample.steps.length);
    }
  });

  it("judges with the given window's own size, not core's: four breaks at 5 in flight, six holds at 6", () => {
    expect(checkModel({ inFlight: 5 }, { window: windowOf(4) }).outcome.holds).toBe(false);
    expect(checkModel({ inFlight: 6 }, { window: windowOf(6) }).outcome.holds).toBe(true);
  });
});
