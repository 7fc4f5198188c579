import { describe, expect, it } from 'vitest';
import { BatchMetadata, NUM_BATCHES_TO_RETAIN, ProducerState, ProducerStateEntry } from '../src/index.js';
import { entryWith, epoch, pid, seq } from './helpers.js';

const window = (entry: ProducerStateEntry) => entry.batches.map((b) => `${b.firstSeq()}..${b.lastSeq}`);

describe('ProducerStateEntry', () => {
  it('retains five batches, not five records, evicting the oldest', () => {
    expect(NUM_BATCHES_TO_RETAIN).toBe(5);
    const entry = entryWith([
      [0, 99],
      [100, 199],
      [200, 200],
      [201, 201],
      [202, 202],
    ]);
    expect(window(entry)).toEqual(['0..99', '100..199', '200..200', '201..201', '202..202']);
    entry.addBatch(epoch(0), new BatchMetadata(seq(203), 205, 0, 9));
    expect(window(entry)).toEqual(['100..199', '200..200', '201..201', '202..202', '203..203']);
    expect(entry.lastTimestamp).toBe(9);
  });

  it('derives firstSeq and firstOffset from offsetDelta', () => {
    const meta = new BatchMetadata(seq(9), 9, 2, 0);
    expect(meta.firstSeq()).toBe(7);
    expect(meta.firstOffset()).toBe(7);
  });

  it('a new epoch clears the window (maybeUpdateProducerEpoch)', () => {
    const entry = entryWith([[0, 4]], 0);
    entry.addBatch(epoch(1), new BatchMetadata(seq(0), 5, 0, 0));
    expect(entry.producerEpoch).toBe(1);
    expect(window(entry)).toEqual(['0..0']);
  });

  it('maybeUpdateProducerEpoch says whether the epoch changed, and only a change clears the window', () => {
    const entry = entryWith([[0, 4]], 0);
    expect(entry.maybeUpdateProducerEpoch(epoch(0))).toBe(false);
    expect(window(entry)).toEqual(['0..4']);
    expect(entry.maybeUpdateProducerEpoch(epoch(2))).toBe(true);
    expect(entry.isEmpty()).toBe(true);
    expect(entry.producerEpoch).toBe(2);
  });

  it('starts empty with no epoch', () => {
    const entry = new ProducerStateEntry(pid(7));
    expect(entry.isEmpty()).toBe(true);
    expect(entry.producerEpoch).toBe(-1);
    expect(entry.lastTimestamp).toBe(-1);
    expect(entry.expectedFirstSeq()).toBe(0);
    entry.addBatch(epoch(0), new BatchMetadata(seq(0), 0, 0, 5));
    expect(entry.isEmpty()).toBe(false);
  });
});

describe('ProducerState', () => {
  it('creates entries on first use and lists producer ids in order', () => {
    const state = new ProducerState();
    expect(state.get(pid(5))).toBeUndefined();
    const a = state.entry(pid(1001));
    state.entry(pid(1000));
    expect(state.entry(pid(1001))).toBe(a);
    expect(state.get(pid(1001))).toBe(a);
    expect(state.get(pid(5))).toBeUndefined();
    expect(state.producerIds()).toEqual([1000, 1001]);
    expect(state.size).toBe(2);
  });

  it('update stores an entry made apart from it, replacing what it had', () => {
    const state = new ProducerState();
    const old = state.entry(pid(7));
    const fresh = new ProducerStateEntry(pid(7));
    state.update(fresh);
    expect(state.get(pid(7))).toBe(fresh);
    expect(state.get(pid(7))).not.toBe(old);
    state.update(new ProducerStateEntry(pid(8)));
    expect(state.producerIds()).toEqual([7, 8]);
  });
});
