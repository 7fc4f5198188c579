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

/** A batch from an idempotent producer: the three producer fields are written as given. */
export function buildProducerBatch(
  records: readonly RecordInput[],
  baseOffset: number,
  timestamp: number,
  producer: ProducerFields,
): Buffer {
  return encodeRecordBatch({
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
  });
}

const NO_PRODUCER: ProducerFields = {
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
    attributes: batch.attributes,
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
