import { MAX_SEQUENCE, type Sequence } from './numbers.js';

/**
 * Sequence arithmetic that wraps at 2^31-1 back to 0, as Kafka's
 * `DefaultRecordBatch.incrementSequence` / `decrementSequence` do. A plain 32-bit
 * wrapping add would go from 2^31-1 to -2^31; a Kafka producer never sends a
 * negative sequence (-1 means "none"), so the wrap lands on 0.
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
