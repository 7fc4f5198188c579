import type { ProducerState } from '@klog/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendIdempotent, Partition, rebuildProducerState } from '../../src/internals.js';
import { fingerprint, NOW, records, tempDir } from '../helpers.js';

const window = (state: ProducerState, pid: number) =>
  (state.get(pid as never)?.batches ?? []).map((b) => `${b.firstSeq()}..${b.lastSeq}`);

describe('appendIdempotent', () => {
  it('Append writes; Duplicate and OutOfOrderSequence leave every byte on disk as it was', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const ranges = [
      [0, 2],
      [2, 2],
      [4, 2],
      [6, 1],
      [7, 3],
    ] as const;
    for (const [first, n] of ranges) {
      expect(
        appendIdempotent(p, {
          producerId: 1000,
          producerEpoch: 0,
          firstSequence: first,
          records: records(n),
          nowMs: NOW + first,
        }).kind,
      ).toBe('Append');
    }
    expect(p.logEndOffset).toBe(10);
    const before = fingerprint(p.dir);

    const dup = appendIdempotent(p, {
      producerId: 1000,
      producerEpoch: 0,
      firstSequence: 7,
      records: records(3),
      nowMs: NOW + 99,
    });
    expect(dup).toEqual({ kind: 'Duplicate', firstOffset: 7, lastOffset: 9, timestamp: NOW + 7 });
    const gap = appendIdempotent(p, {
      producerId: 1000,
      producerEpoch: 0,
      firstSequence: 13,
      records: records(1),
      nowMs: NOW,
    });
    expect(gap).toEqual({ kind: 'OutOfOrderSequence', expected: 10, got: 13 });
    const halfOverlap = appendIdempotent(p, {
      producerId: 1000,
      producerEpoch: 0,
      firstSequence: 6,
      records: records(4),
      nowMs: NOW,
    });
    expect(halfOverlap.kind).toBe('OutOfOrderSequence');

    expect(p.logEndOffset).toBe(10);
    expect(fingerprint(p.dir)).toEqual(before);
    p.close();
  });

  it('a rejected first batch leaves no producer state behind', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const state = p.producerState;
    expect(
      appendIdempotent(p, {
        producerId: 7,
        producerEpoch: 0,
        firstSequence: 3,
        records: records(1),
        nowMs: NOW,
      }).kind,
    ).toBe('OutOfOrderSequence');
    expect(state.size).toBe(0);
    p.close();
  });

  it('writes the three producer fields into the batch header', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendIdempotent(p, {
      producerId: 1000,
      producerEpoch: 3,
      firstSequence: 0,
      records: records(2),
      nowMs: NOW,
    });
    const [batch] = p.log.readCheckedBatches(0);
    expect(batch).toMatchObject({ producerId: 1000, producerEpoch: 3, baseSequence: 0, lastOffsetDelta: 1 });
    p.close();
  });

  it('validates its numbers at the boundary', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    expect(() =>
      appendIdempotent(p, {
        producerId: -5,
        producerEpoch: 0,
        firstSequence: 0,
        records: records(1),
        nowMs: NOW,
      }),
    ).toThrow(/producer id/);
    expect(() =>
      appendIdempotent(p, {
        producerId: 2 ** 53,
        producerEpoch: 0,
        firstSequence: 0,
        records: records(1),
        nowMs: NOW,
      }),
    ).toThrow(/producer id/);
    expect(() =>
      appendIdempotent(p, {
        producerId: 1,
        producerEpoch: 0,
        firstSequence: 2 ** 31,
        records: records(1),
        nowMs: NOW,
      }),
    ).toThrow(/first sequence/);
    expect(() =>
      appendIdempotent(p, {
        producerId: 1,
        producerEpoch: 40_000,
        firstSequence: 0,
        records: records(1),
        nowMs: NOW,
      }),
    ).toThrow(/producer epoch/);
    expect(() =>
      appendIdempotent(p, { producerId: 1, producerEpoch: 0, firstSequence: 0, records: [], nowMs: NOW }),
    ).toThrow(/at least one record/);
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('with fencing: an older epoch is refused, a newer one restarts at 0 and clears the window', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const state = p.producerState;
    appendIdempotent(p, {
      producerId: 9,
      producerEpoch: 2,
      firstSequence: 0,
      records: records(1),
      nowMs: NOW,
      rule: 'chapter-fencing',
    });
    expect(
      appendIdempotent(p, {
        producerId: 9,
        producerEpoch: 1,
        firstSequence: 1,
        records: records(1),
        nowMs: NOW,
        rule: 'chapter-fencing',
      }),
    ).toEqual({
      kind: 'InvalidProducerEpoch',
      current: 2,
      got: 1,
    });
    expect(
      appendIdempotent(p, {
        producerId: 9,
        producerEpoch: 3,
        firstSequence: 1,
        records: records(1),
        nowMs: NOW,
        rule: 'chapter-fencing',
      }).kind,
    ).toBe('OutOfOrderSequence');
    expect(
      appendIdempotent(p, {
        producerId: 9,
        producerEpoch: 3,
        firstSequence: 0,
        records: records(1),
        nowMs: NOW,
        rule: 'chapter-fencing',
      }).kind,
    ).toBe('Append');
    expect(window(state, 9)).toEqual(['0..0']);
    expect(p.logEndOffset).toBe(2);
    p.close();
  });
});

/**
 * A model of the window: the list of every appended batch. A resend of any of the
 * last five is a Duplicate with the original offsets and leaves the file unchanged;
 * an older one is OutOfOrderSequence; a gap is OutOfOrderSequence.
 */
describe('property: appends and resends against a model', () => {
  type Op = { kind: 'append'; n: number } | { kind: 'resend'; back: number } | { kind: 'gap'; skip: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), n: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('resend' as const), back: fc.integer({ min: 1, max: 9 }) }),
    fc.record({ kind: fc.constant('gap' as const), skip: fc.integer({ min: 1, max: 5 }) }),
  );

  it('holds for random operation sequences, and after a restart for what the active segment holds', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
        const dir = tempDir();
        const p = Partition.open(dir, 'orders', 0);
        const state = p.producerState;
        const model: { first: number; last: number; firstOffset: number; lastOffset: number }[] = [];
        let nextSeq = 0;
        for (const o of ops) {
          if (o.kind === 'append') {
            const r = appendIdempotent(p, {
              producerId: 1,
              producerEpoch: 0,
              firstSequence: nextSeq,
              records: records(o.n),
              nowMs: NOW,
            });
            expect(r.kind).toBe('Append');
            if (r.kind !== 'Append') return;
            model.push({
              first: nextSeq,
              last: nextSeq + o.n - 1,
              firstOffset: r.firstOffset,
              lastOffset: r.lastOffset,
            });
            nextSeq += o.n;
          } else {
            const target = o.kind === 'resend' ? model[model.length - o.back] : undefined;
            const before = fingerprint(p.dir);
            const leo = p.logEndOffset;
            if (o.kind === 'resend' && target !== undefined) {
              const r = appendIdempotent(p, {
                producerId: 1,
                producerEpoch: 0,
                firstSequence: target.first,
                records: records(target.last - target.first + 1),
                nowMs: NOW,
              });
              if (o.back <= 5) {
                expect(r).toMatchObject({
                  kind: 'Duplicate',
                  firstOffset: target.firstOffset,
                  lastOffset: target.lastOffset,
                });
              } else {
                expect(r).toEqual({ kind: 'OutOfOrderSequence', expected: nextSeq, got: target.first });
              }
            } else {
              const skip = o.kind === 'gap' ? o.skip : 1;
              const r = appendIdempotent(p, {
                producerId: 1,
                producerEpoch: 0,
                firstSequence: nextSeq + skip,
                records: records(1),
                nowMs: NOW,
              });
              expect(r).toEqual({ kind: 'OutOfOrderSequence', expected: nextSeq, got: nextSeq + skip });
            }
            expect(p.logEndOffset).toBe(leo);
            expect(fingerprint(p.dir)).toEqual(before);
          }
        }
        p.close();
        // One segment here, so a restart rebuilds the same window.
        const reopened = Partition.open(dir, 'orders', 0);
        const rebuilt = rebuildProducerState(reopened.log);
        expect(window(rebuilt, 1)).toEqual(window(state, 1));
        reopened.close();
      }),
      { numRuns: 60 },
    );
  });
});
