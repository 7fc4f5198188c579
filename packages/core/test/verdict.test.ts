import { describe, expect, it } from 'vitest';
import { judge, NUM_BATCHES_TO_RETAIN, ProducerStateEntry } from '../src/index.js';
import { entryWith, epoch, pid, seq } from './helpers.js';

describe('judge', () => {
  it('an empty producer expects sequence 0', () => {
    const entry = new ProducerStateEntry(pid(1));
    expect(judge(entry, epoch(0), seq(0), seq(1))).toEqual({ kind: 'Append' });
    expect(judge(entry, epoch(0), seq(1), seq(1))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 1,
    });
  });

  it('appends the next sequence after the window', () => {
    const entry = entryWith([
      [0, 1],
      [2, 3],
    ]);
    expect(entry.expectedFirstSeq()).toBe(4);
    expect(judge(entry, epoch(0), seq(4), seq(5))).toEqual({ kind: 'Append' });
  });

  it('an exact resend is a Duplicate carrying the original offsets and timestamp', () => {
    const entry = entryWith([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 6],
      [7, 9],
    ]);
    expect(judge(entry, epoch(0), seq(7), seq(9))).toEqual({
      kind: 'Duplicate',
      firstOffset: 7,
      lastOffset: 9,
      timestamp: 1_700_000_000_007,
    });
    expect(judge(entry, epoch(0), seq(2), seq(3))).toMatchObject({
      kind: 'Duplicate',
      firstOffset: 2,
      lastOffset: 3,
    });
  });

  it('a half-overlapping resend is not a duplicate', () => {
    const entry = entryWith([
      [0, 1],
      [2, 3],
    ]);
    // Two batches merged into one, or one cut short: neither is the exact range.
    expect(judge(entry, epoch(0), seq(0), seq(3))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 4,
      got: 0,
    });
    expect(judge(entry, epoch(0), seq(2), seq(2))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 4,
      got: 2,
    });
    expect(judge(entry, epoch(0), seq(3), seq(4))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 4,
      got: 3,
    });
  });

  it('a gap is OutOfOrderSequence naming what was expected', () => {
    const entry = entryWith([[0, 9]]);
    expect(judge(entry, epoch(0), seq(13), seq(13))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 10,
      got: 13,
    });
  });

  it('an epoch mismatch is never a duplicate', () => {
    const entry = entryWith([[0, 1]], 3);
    expect(judge(entry, epoch(3), seq(0), seq(1)).kind).toBe('Duplicate');
    expect(judge(entry, epoch(4), seq(0), seq(1))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 2,
      got: 0,
    });
    expect(judge(entry, epoch(2), seq(0), seq(1)).kind).toBe('OutOfOrderSequence');
  });

  it('a resend of an evicted batch is OutOfOrderSequence', () => {
    const entry = entryWith([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 6],
      [7, 9],
      [10, 10],
    ]);
    expect(entry.batches).toHaveLength(NUM_BATCHES_TO_RETAIN);
    expect(judge(entry, epoch(0), seq(0), seq(1))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 11,
      got: 0,
    });
    expect(judge(entry, epoch(0), seq(2), seq(3)).kind).toBe('Duplicate');
  });
});
