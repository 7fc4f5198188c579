import type { ModelState } from './model-state.js';

/** The properties every schedule must keep. */
export type InvariantId = 'exactly-once' | 'no-false-failure' | 'offsets-match' | 'in-order';

export const INVARIANTS: readonly InvariantId[] = [
  'exactly-once',
  'no-false-failure',
  'offsets-match',
  'in-order',
];

/** A state (or, for `never-written`, the end of a schedule) that breaks an invariant, and how. */
export type Violation =
  /** The log holds the same batch twice: a duplicate got through. */
  | {
      readonly invariant: 'exactly-once';
      readonly kind: 'written-twice';
      readonly batch: number;
      readonly offsets: readonly (readonly [number, number])[];
    }
  /** The schedule ended with a batch the log never got: it was lost. */
  | { readonly invariant: 'exactly-once'; readonly kind: 'never-written'; readonly batch: number }
  /** The producer was told a batch failed, but the broker had written it. */
  | {
      readonly invariant: 'no-false-failure';
      readonly kind: 'written-but-failed';
      readonly batch: number;
      readonly firstOffset: number;
      readonly lastOffset: number;
      readonly expected: number;
      readonly got: number;
    }
  /** The producer was told offsets that are not where the log holds the batch. */
  | {
      readonly invariant: 'offsets-match';
      readonly kind: 'wrong-offsets';
      readonly batch: number;
      readonly told: readonly [number, number];
      readonly onLog: readonly [number, number] | undefined;
    }
  /** The log holds batches in another order than the producer sent them. */
  | {
      readonly invariant: 'in-order';
      readonly kind: 'out-of-order';
      readonly batch: number;
      readonly after: number;
    };

/** Check a state against every invariant; the first broken one, or undefined. */
export function checkState(state: ModelState): Violation | undefined {
  const { log } = state.broker;
  const where = new Map<number, [number, number]>();
  for (const [i, logged] of log.entries()) {
    const seen = where.get(logged.batch);
    if (seen !== undefined) {
      const offsets = log
        .filter((b) => b.batch === logged.batch)
        .map((b) => [b.firstOffset, b.lastOffset] as const);
      return { invariant: 'exactly-once', kind: 'written-twice', batch: logged.batch, offsets };
    }
    where.set(logged.batch, [logged.firstOffset, logged.lastOffset]);
    const before = log[i - 1];
    if (before !== undefined && before.batch > logged.batch) {
      return { invariant: 'in-order', kind: 'out-of-order', batch: logged.batch, after: before.batch };
    }
  }
  for (const [batch, status] of state.producer.entries()) {
    const onLog = where.get(batch);
    if (status.kind === 'failed' && onLog !== undefined) {
      return {
        invariant: 'no-false-failure',
        kind: 'written-but-failed',
        batch,
        firstOffset: onLog[0],
        lastOffset: onLog[1],
        expected: status.expected,
        got: status.got,
      };
    }
    if (
      status.kind === 'acked' &&
      (onLog === undefined || onLog[0] !== status.firstOffset || onLog[1] !== status.lastOffset)
    ) {
      return {
        invariant: 'offsets-match',
        kind: 'wrong-offsets',
        batch,
        told: [status.firstOffset, status.lastOffset],
        onLog,
      };
    }
  }
  return undefined;
}

/** At the end of a schedule (nothing left to do), every batch must be on the log. */
export function checkEnd(state: ModelState): Violation | undefined {
  const written = new Set(state.broker.log.map((b) => b.batch));
  for (let batch = 0; batch < state.producer.length; batch++) {
    if (!written.has(batch)) return { invariant: 'exactly-once', kind: 'never-written', batch };
  }
  return undefined;
}
