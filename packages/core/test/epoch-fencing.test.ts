import { describe, expect, it } from 'vitest';
import { judgeBatch, ProducerStateEntry } from '../src/index.js';
import { entryWith, epoch, pid, seq } from './helpers.js';

describe("judgeBatch('chapter-fencing') (Kafka epoch rules, an opt-in step)", () => {
  it('fences an older epoch', () => {
    const entry = entryWith([[0, 1]], 5);
    expect(judgeBatch('chapter-fencing', entry, epoch(4), seq(2), seq(2))).toEqual({
      kind: 'InvalidProducerEpoch',
      current: 5,
      got: 4,
    });
  });

  it('a newer epoch must start at sequence 0', () => {
    const entry = entryWith([[0, 1]], 5);
    expect(judgeBatch('chapter-fencing', entry, epoch(6), seq(0), seq(0))).toEqual({ kind: 'Append' });
    expect(judgeBatch('chapter-fencing', entry, epoch(6), seq(2), seq(2))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 2,
    });
  });

  it('the same epoch is judged as usual', () => {
    const entry = entryWith([[0, 1]], 5);
    expect(judgeBatch('chapter-fencing', entry, epoch(5), seq(0), seq(1)).kind).toBe('Duplicate');
    expect(judgeBatch('chapter-fencing', entry, epoch(5), seq(2), seq(3)).kind).toBe('Append');
    expect(judgeBatch('chapter-fencing', new ProducerStateEntry(pid(1)), epoch(0), seq(0), seq(0)).kind).toBe(
      'Append',
    );
  });
});
