import { ProducerState } from '@klog/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  compact,
  type LogConfig,
  Partition,
  rebuildProducerState,
} from '../../src/internals.js';
import { LONG_TEST, NOW, tempDir } from '../helpers.js';

type Op =
  | { readonly kind: 'append'; readonly producer: number; readonly keys: readonly number[] }
  | { readonly kind: 'compact'; readonly keysPerPass: number; readonly removeTombstones: boolean }
  | { readonly kind: 'restart' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      producer: fc.integer({ min: 0, max: 2 }),
      keys: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      keysPerPass: fc.integer({ min: 3, max: 20 }),
      removeTombstones: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const windows = (state: ProducerState) =>
  state
    .producerIds()
    .map((pid) => [
      pid,
      state.get(pid)!.batches.map((b) => `${b.firstSeq()}..${b.lastSeq}@${b.firstOffset()}..${b.lastOffset}`),
    ]);

/** Key → the value a reader ends up with (the latest one), over the whole log. */
function latest(p: Partition): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const { batch } of p.log.batches()) {
    for (const r of batch.records) {
      if (r.key === null) continue;
      out.set(Buffer.from(r.key).toString(), r.value === null ? null : Buffer.from(r.value).toString());
    }
  }
  return out;
}

/**
 * Two partitions get the same appends; one is also compacted, at random moments and
 * with random dedupe budgets. Compaction never touches the active segment, which is
 * what the producer-state rebuild reads, so after every restart the compacted log's
 * producer windows are exactly those of the log never compacted, and every batch they
 * hold is answered Duplicate with its original offsets: no resend is written twice.
 * (Batches that rolled into older segments leave the rebuilt window with or without
 * compaction: that is the chapter's 5 → 1 narrowing, not something compaction causes.)
 */
describe('compaction and restarts, against the same log never compacted', () => {
  it(
    'rebuilds the same producer windows, answers every resend they hold with Duplicate, keeps the latest values',
    LONG_TEST,
    () => {
      fc.assert(
        fc.property(fc.array(op, { minLength: 5, maxLength: 40 }), (ops) => {
          const config: Partial<LogConfig> = { segmentBytes: 260 };
          const dirs = [tempDir(), tempDir()] as const;
          let [compacted, plain] = dirs.map((d) => Partition.open(d, 'orders', 0, config)) as [
            Partition,
            Partition,
          ];
          let states = [new ProducerState(), new ProducerState()];
          const nextSeq = [0, 0, 0];
          const reopen = () => {
            compacted.close();
            plain.close();
            [compacted, plain] = dirs.map((d) => Partition.open(d, 'orders', 0, config)) as [
              Partition,
              Partition,
            ];
            states = [rebuildProducerState(compacted.log), rebuildProducerState(plain.log)];
          };
          try {
            for (const o of ops) {
              if (o.kind === 'append') {
                const pid = 100 + o.producer;
                const records = o.keys.map((k, i) => ({
                  key: Buffer.from(`k${k}`),
                  value:
                    (nextSeq[o.producer]! + i) % 5 === 4
                      ? null
                      : Buffer.from(`p${pid}-s${nextSeq[o.producer]! + i}`),
                }));
                const first = nextSeq[o.producer]!;
                const a = appendIdempotent(compacted, {
                  producerId: pid,
                  producerEpoch: 0,
                  firstSequence: first,
                  records: records,
                  nowMs: NOW,
                });
                const b = appendIdempotent(plain, {
                  producerId: pid,
                  producerEpoch: 0,
                  firstSequence: first,
                  records: records,
                  nowMs: NOW,
                });
                expect(a).toEqual(b);
                if (a.kind === 'Append') nextSeq[o.producer] = first + records.length;
              } else if (o.kind === 'compact') {
                compact(compacted, {
                  dedupeBufferBytes: 24 * o.keysPerPass + 48,
                  removeTombstones: o.removeTombstones,
                });
              } else {
                reopen();
                expect(compacted.logEndOffset).toBe(plain.logEndOffset);
                expect(windows(states[0]!)).toEqual(windows(states[1]!));
                for (const [pid, list] of windows(states[0]!)) {
                  for (const b of states[0]!.get(pid as never)!.batches) {
                    const n = b.offsetDelta + 1;
                    const resend = Array.from({ length: n }, () => ({
                      key: null,
                      value: Buffer.from('resend'),
                    }));
                    expect(
                      appendIdempotent(compacted, {
                        producerId: pid as number,
                        producerEpoch: 0,
                        firstSequence: b.firstSeq(),
                        records: resend,
                        nowMs: NOW,
                      }),
                      `${list}`,
                    ).toEqual({
                      kind: 'Duplicate',
                      firstOffset: b.firstOffset(),
                      lastOffset: b.lastOffset,
                      timestamp: b.timestamp,
                    });
                  }
                }
              }
            }
            reopen();
            expect(windows(states[0]!)).toEqual(windows(states[1]!));
            const values = latest(plain);
            const kept = latest(compacted);
            // Every key's latest value survives; a removed tombstone may take its key along.
            for (const [key, value] of values) {
              if (value !== null || kept.has(key)) expect(kept.get(key), key).toEqual(value);
            }
            for (const key of kept.keys()) expect(values.has(key)).toBe(true);
          } finally {
            compacted.close();
            plain.close();
          }
        }),
        { numRuns: 60 },
      );
    },
  );
});
