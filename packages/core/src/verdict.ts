import type { ProducerEpoch, Sequence } from './numbers.js';
import type { ProducerStateEntry } from './producer-state-entry.js';

// #region verdict
/**
 * The three answers the broker can give a batch, decided before anything is
 * written. The middle one surprises people: a duplicate is a success that carries
 * the original offsets, because the producer resent only for want of the first answer.
 */
export type Verdict =
  /** `firstSeq` is exactly the sequence the broker expects next. */
  | { readonly kind: 'Append' }
  /** The same range was already written: answer with the first write's offsets, write nothing. */
  | {
      readonly kind: 'Duplicate';
      readonly firstOffset: number;
      readonly lastOffset: number;
      readonly timestamp: number;
    }
  /** A gap (a write was lost) or a batch the window no longer holds: refuse, loudly. */
  | { readonly kind: 'OutOfOrderSequence'; readonly expected: Sequence; readonly got: Sequence };
// #endregion verdict

export type Append = Extract<Verdict, { kind: 'Append' }>;
export type Duplicate = Extract<Verdict, { kind: 'Duplicate' }>;
export type OutOfOrderSequence = Extract<Verdict, { kind: 'OutOfOrderSequence' }>;

const APPEND: Append = Object.freeze({ kind: 'Append' });

// #region judge
/**
 * Judge a batch `[firstSeq, lastSeq]` from a producer at `epoch`. The match is an
 * exact range under the same epoch (Kafka's `findDuplicateBatch`), so a batch that
 * half-overlaps a retained one is not a duplicate; it is out of order.
 */
export function judge(
  entry: ProducerStateEntry,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): Verdict {
  const original = entry.findDuplicateBatch(epoch, firstSeq, lastSeq);
  if (original !== undefined) {
    return {
      kind: 'Duplicate',
      firstOffset: original.firstOffset(),
      lastOffset: original.lastOffset,
      timestamp: original.timestamp,
    };
  }
  const expected = entry.expectedFirstSeq();
  if (firstSeq === expected) return APPEND;
  return { kind: 'OutOfOrderSequence', expected, got: firstSeq };
}
// #endregion judge
