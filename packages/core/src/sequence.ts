import { MAX_SEQUENCE, type Sequence } from './numbers.js';

/**
 * Sequence arithmetic that wraps at 2^31-1 back to 0, as Kafka's
 * `DefaultRecordBatch.incrementSequence` / `decrementSequence` do. The chapter's
 * Rust used `i32::wrapping_add`, which would wrap to a negative number; a Kafka
 * producer never sends a negative sequence, so klog follows Kafka.
 */

// #region increment-sequence
/** `sequence + increment`, wrapping past 2^31-1 to 0. */
export function incrementSequence(sequence: Sequence, increment: number): Sequence {
  if (sequence > MAX_SEQUENCE - increment) {
    return (increment - (MAX_SEQUENCE - sequence) - 1) as Sequence;
  }
  return (sequence + increment) as Sequence;
}
// #endregion increment-sequence

/** `sequence - decrement`, wrapping below 0 to 2^31-1. */
export function decrementSequence(sequence: Sequence, decrement: number): Sequence {
  if (sequence < decrement) {
    return (MAX_SEQUENCE - (decrement - sequence) + 1) as Sequence;
  }
  return (sequence - decrement) as Sequence;
}

// #region in-sequence
/** Kafka's `ProducerAppendInfo.inSequence`: is `next` the sequence right after `last`? */
export function inSequence(last: Sequence, next: Sequence): boolean {
  return next === last + 1 || (next === 0 && last === MAX_SEQUENCE);
}
// #endregion in-sequence
