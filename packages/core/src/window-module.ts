import type { BatchMetadata } from './batch-metadata.js';
import type { ProducerEpoch, ProducerId, Sequence } from './numbers.js';
import type { NO_PRODUCER_EPOCH } from './producer-state-entry.js';
import type { Append, Duplicate, OutOfOrderSequence, Verdict } from './verdict.js';

// #region window-module
/**
 * The chapter's window as a module anyone can write: klog's own (this package's
 * `ProducerStateEntry`, `judge`, `incrementSequence`) or a learner's, which `klog lab
 * check` grades and `klog serve --window` puts behind a real broker. Types only: what
 * each part does is the chapter's, section by section.
 */
export interface WindowModule<E extends WindowEntry = WindowEntry> {
  /** `sequence + increment`, wrapping past 2^31-1 to 0 (Kafka's `DefaultRecordBatch.incrementSequence`). */
  incrementSequence(sequence: Sequence, increment: number): Sequence;
  /** One producer's window on one partition (Kafka's `ProducerStateEntry`). */
  readonly ProducerStateEntry: new (
    producerId: ProducerId,
  ) => E;
  /** The verdict on `[firstSeq, lastSeq]` from a producer at `epoch`, decided before anything is written. */
  judge(entry: E, epoch: ProducerEpoch, firstSeq: Sequence, lastSeq: Sequence): Verdict;
  /** Judge, then write: only an Append calls `log.append`, and the window learns of it once it is written. */
  appendBatch(entry: E, batch: ProducerBatch, log: BatchLog): AppendAnswer;
  /** The rebuild on open: put one batch, known by its header alone, into its producer's window. */
  addBatchFromHeader(state: Map<ProducerId, E>, header: BatchHeaderFields): void;
}
// #endregion window-module

/** What a window must offer the judge, the append and the rebuild. */
export interface WindowEntry {
  readonly producerId: ProducerId;
  readonly producerEpoch: ProducerEpoch | typeof NO_PRODUCER_EPOCH;
  /** The retained batches, oldest first. */
  readonly batches: readonly BatchMetadata[];
  addBatch(epoch: ProducerEpoch, batch: BatchMetadata): void;
  expectedFirstSeq(): Sequence;
  findDuplicateBatch(epoch: ProducerEpoch, firstSeq: Sequence, lastSeq: Sequence): BatchMetadata | undefined;
}

/** A batch from an idempotent producer, as the append sees it: who sent it, from which sequence, how many records. */
export interface ProducerBatch {
  readonly producerId: ProducerId;
  readonly epoch: ProducerEpoch;
  readonly firstSeq: Sequence;
  readonly records: number;
}

/** Where a write put a batch. */
export interface WrittenBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** The broker's clock when it wrote the batch. */
  readonly timestamp: number;
}

/** The partition's log as the append sees it: where the next batch lands, and the write itself. */
export interface BatchLog {
  readonly logEndOffset: number;
  /** Write the batch's `records` records at the log end. */
  append(records: number): WrittenBatch;
}

/** What an append answers: the verdict, with the offsets it wrote when it wrote. */
export type AppendAnswer =
  | (Append & { readonly firstOffset: number; readonly lastOffset: number })
  | Duplicate
  | OutOfOrderSequence;

/** The fields of a 61-byte batch header the rebuild reads, as they are on disk (-1: no producer). */
export interface BatchHeaderFields {
  readonly baseOffset: number;
  readonly lastOffsetDelta: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly maxTimestamp: number;
}
