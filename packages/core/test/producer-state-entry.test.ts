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

  it('starts empty with no epoch', () => {
    const entry = new ProducerStateEntry(pid(7));
    expect(entry.isEmpty()).toBe(true);
    expect(entry.producerEpoch).toBe(-1);
    expect(entry.expectedFirstSeq()).toBe(0);
  });
});

describe('ProducerState', () => {
  it('creates entries on first use and lists producer ids in order', () => {
    const state = new ProducerState();
    expect(state.get(pid(5))).toBeUndefined();
    const a = state.entry(pid(1001));
    state.entry(pid(1000));
    expect(state.entry(pid(1001))).toBe(a);
    expect(state.producerIds()).toEqual([1000, 1001]);
    expect(state.size).toBe(2);
  });
});
