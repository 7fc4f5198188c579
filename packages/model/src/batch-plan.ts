import { type Sequence, toSequence } from '@klog/core';

/** One batch the producer sends: its index in the session and its sequence range. */
export interface PlannedBatch {
  readonly index: number;
  readonly firstSeq: Sequence;
  readonly lastSeq: Sequence;
  readonly records: number;
}

/**
 * Records per batch, in the chapter's shapes: its demo fills the window with
 * `0..1 2..3 4..5 6..6 7..9`, then sends single-record batches. The window counts
 * batches, not records, so the shapes change no verdict; they keep sequences and
 * offsets apart from batch numbers, so a trace that mixes them up shows it.
 */
const CHAPTER_SHAPES = [2, 2, 2, 1, 3];

/** The batches of one producer session: `count` batches with consecutive sequences from 0. */
export function planBatches(count: number): readonly PlannedBatch[] {
  const batches: PlannedBatch[] = [];
  let next = 0;
  for (let index = 0; index < count; index++) {
    const records = CHAPTER_SHAPES[index] ?? 1;
    batches.push({
      index,
      firstSeq: toSequence(next),
      lastSeq: toSequence(next + records - 1),
      records,
    });
    next += records;
  }
  return batches;
}

/** A batch as the chapter writes it: `7..9`. */
export function seqRange(batch: PlannedBatch): string {
  return `${batch.firstSeq}..${batch.lastSeq}`;
}
