import type { BatchHeaderFields, Duplicate, OutOfOrderSequence } from '@klog/core';

/**
 * A producer window kept outside the partition, that judges a client's batch in place of the
 * partition's own producer state: `klog serve --window` puts a learner's window here (chapter 7's
 * lab), on another thread. It says whether the batch is written and what the producer is answered;
 * the partition writes when told and keeps its own state as it was. A window that cannot answer throws
 * a StorageError (UNKNOWN_SERVER_ERROR), and nothing is written. Kafka has no such seam: its
 * `ProducerStateManager` is the only judge.
 */
export interface ProducerWindow {
  decide(batch: WindowedBatch, activeHeaders: () => readonly BatchHeaderFields[]): WindowDecision;
}

/** A client's idempotent batch, as the window judges it. */
export interface WindowedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly records: number;
  /** Where the batch lands if it is written. */
  readonly logEndOffset: number;
  readonly maxTimestamp: number;
}

/** Append writes; a Duplicate or an OutOfOrderSequence writes nothing unless the window wrote it anyway. */
export type WindowDecision =
  | { readonly verdict: { readonly kind: 'Append' } }
  | { readonly verdict: Duplicate | OutOfOrderSequence; readonly written: boolean };
