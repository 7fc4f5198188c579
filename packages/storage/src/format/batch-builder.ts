import { COMPRESSION_MASK } from './compression.js';
import type { Record, RecordInput } from './record.js';
import {
  encodeRecordBatch,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  type RecordBatch,
} from './record-batch.js';

/**
 * The two batch builders. The plain one writes the three producer fields as -1;
 * the producer one keeps whatever producerId, producerEpoch and baseSequence it is
 * given. Compaction must use the second (`rewriteBatch`): a cleaner that rebuilt
 * batches with the plain builder would erase every producer's sequence from the
 * log, and `rebuildProducerState` would find nothing after a clean.
 */

function toRecords(records: readonly RecordInput[]): Record[] {
  return records.map((r, i) => ({
    attributes: 0,
    timestampDelta: 0,
    offsetDelta: i,
    key: r.key,
    value: r.value,
    headers: r.headers ?? [],
  }));
}

export interface ProducerFields {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

/**
 * A batch from an idempotent producer: the three producer fields are written as
 * given. `allocate` gives the buffer (a fresh one unless a `BatchScratch` is passed).
 */
export function buildProducerBatch(
  records: readonly RecordInput[],
  baseOffset: number,
  timestamp: number,
  producer: ProducerFields,
  allocate?: (size: number) => Buffer,
): Buffer {
  return encodeRecordBatch(
    {
      baseOffset,
      partitionLeaderEpoch: 0,
      attributes: 0,
      lastOffsetDelta: records.length - 1,
      baseTimestamp: timestamp,
      maxTimestamp: timestamp,
      producerId: producer.producerId,
      producerEpoch: producer.producerEpoch,
      baseSequence: producer.baseSequence,
      records: toRecords(records),
    },
    allocate,
  );
}

/** Batches up to this size are built in the scratch; a larger one gets its own buffer. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

/**
 * One buffer reused to build batch after batch, for a writer that writes each batch
 * out before it builds the next (the append path: its write is synchronous). It
 * saves allocating, and first touching, fresh memory for every batch, which costs
 * more than encoding a batch of small records. A batch built here is only valid
 * until the next one is: never keep it.
 */
export class BatchScratch {
  #buffer: Buffer = Buffer.alloc(0);

  readonly allocate = (size: number): Buffer => {
    if (size > MAX_SCRATCH_BYTES) return Buffer.allocUnsafe(size);
    if (size > this.#buffer.length) {
      this.#buffer = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH_BYTES, Math.max(64 * 1024, size * 2)));
    }
    return this.#buffer.subarray(0, size);
  };
}

/** The three producer fields of a batch with no producer: all -1. */
export const NO_PRODUCER: ProducerFields = {
  producerId: NO_PRODUCER_ID,
  producerEpoch: NO_PRODUCER_EPOCH,
  baseSequence: NO_SEQUENCE,
};

/** A batch with no producer: producerId, producerEpoch and baseSequence are -1. */
export function buildPlainBatch(
  records: readonly RecordInput[],
  baseOffset: number,
  timestamp: number,
): Buffer {
  return buildProducerBatch(records, baseOffset, timestamp, NO_PRODUCER);
}

// #region rewrite-batch
/**
 * Rewrite `batch` keeping only `kept` of its records, for compaction. Kafka's
 * `DefaultRecordBatch` "On Compaction" rule: the batch keeps its base offset,
 * lastOffsetDelta (so its first and last offset), base timestamp, and the producer's
 * id, epoch and base sequence, even when records are removed, so the producer's
 * state can still be rebuilt from the log.
 */
export function rewriteBatch(batch: RecordBatch, kept: readonly Record[]): Buffer {
  return encodeRecordBatch({
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    // A compressed batch comes out uncompressed: the encoder writes records plain.
    attributes: batch.attributes & ~COMPRESSION_MASK,
    lastOffsetDelta: batch.lastOffsetDelta,
    baseTimestamp: batch.baseTimestamp,
    maxTimestamp: batch.maxTimestamp,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    records: kept,
  });
}
// #endregion rewrite-batch
