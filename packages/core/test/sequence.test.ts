import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BatchMetadata,
  decrementSequence,
  InvalidNumberError,
  incrementSequence,
  inSequence,
  judge,
  MAX_SEQUENCE,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '../src/index.js';
import { entryWith, epoch, seq } from './helpers.js';

describe('sequence arithmetic wraps at 2^31-1 to 0, as Kafka does', () => {
  it('increments and decrements across the wrap', () => {
    expect(incrementSequence(seq(MAX_SEQUENCE), 1)).toBe(0);
    expect(incrementSequence(seq(MAX_SEQUENCE - 1), 3)).toBe(1);
    expect(incrementSequence(seq(5), 3)).toBe(8);
    // Up to the largest sequence exactly, without wrapping: 2^31-2 + 1 is 2^31-1, not -1.
    expect(incrementSequence(seq(MAX_SEQUENCE - 1), 1)).toBe(MAX_SEQUENCE);
    expect(incrementSequence(seq(MAX_SEQUENCE - 3), 3)).toBe(MAX_SEQUENCE);
    expect(decrementSequence(seq(0), 1)).toBe(MAX_SEQUENCE);
    expect(decrementSequence(seq(1), 3)).toBe(MAX_SEQUENCE - 1);
  });

  it('inSequence accepts last+1 and the wrap, nothing else', () => {
    expect(inSequence(seq(4), seq(5))).toBe(true);
    expect(inSequence(seq(MAX_SEQUENCE), seq(0))).toBe(true);
    expect(inSequence(seq(4), seq(6))).toBe(false);
    expect(inSequence(seq(MAX_SEQUENCE - 1), seq(0))).toBe(false);
    // After the largest sequence only 0 follows.
    expect(inSequence(seq(MAX_SEQUENCE), seq(1))).toBe(false);
  });

  it('never produces a negative sequence (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_SEQUENCE }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (s, d) => {
          const up = incrementSequence(seq(s), d);
          expect(up).toBeGreaterThanOrEqual(0);
          expect(up).toBeLessThanOrEqual(MAX_SEQUENCE);
          expect(decrementSequence(up, d)).toBe(s);
        },
      ),
    );
  });

  it('a batch that spans the wrap is judged and matched like any other', () => {
    // 2^31-2 .. 1 is four records across the wrap.
    const meta = new BatchMetadata(seq(1), 103, 3, 0);
    expect(meta.firstSeq()).toBe(MAX_SEQUENCE - 1);
    const entry = entryWith([[MAX_SEQUENCE - 1, 1]]);
    expect(entry.expectedFirstSeq()).toBe(2);
    expect(judge(entry, epoch(0), seq(MAX_SEQUENCE - 1), seq(1)).kind).toBe('Duplicate');
    const atMax = entryWith([[MAX_SEQUENCE - 2, MAX_SEQUENCE]]);
    expect(atMax.expectedFirstSeq()).toBe(0);
    expect(judge(atMax, epoch(0), seq(0), seq(0))).toEqual({ kind: 'Append' });
  });
});

describe('validated numbers at boundaries', () => {
  it('rejects out-of-range values with a message naming the field', () => {
    expect(() => toSequence(MAX_SEQUENCE + 1)).toThrow(InvalidNumberError);
    expect(() => toSequence(-1, 'first sequence')).toThrow(
      /first sequence must be an integer in 0\.\.2147483647/,
    );
    expect(() => toProducerId(2 ** 53)).toThrow(/producer id/);
    expect(() => toProducerId(1.5)).toThrow(InvalidNumberError);
    expect(() => toProducerEpoch(32_768)).toThrow(/producer epoch/);
    expect(toProducerId(1000)).toBe(1000);
  });

  it('accepts both ends of each range', () => {
    expect(toSequence(0)).toBe(0);
    expect(toSequence(MAX_SEQUENCE)).toBe(MAX_SEQUENCE);
    expect(toProducerId(0)).toBe(0);
    expect(toProducerId(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(toProducerEpoch(0)).toBe(0);
    expect(toProducerEpoch(32_767)).toBe(32_767);
  });

  it('names the field in the error, by default the kind of number', () => {
    const error = (() => {
      try {
        toSequence(-1);
      } catch (e) {
        return e as InvalidNumberError;
      }
    })();
    expect(error).toBeInstanceOf(InvalidNumberError);
    expect(error?.name).toBe('InvalidNumberError');
    expect(error?.field).toBe('sequence');
    expect(error?.value).toBe(-1);
    expect(error?.message).toBe('sequence must be an integer in 0..2147483647, got -1');
  });
});
