import { compressRecords } from './compress-records.js';
import { COMPRESSION_MASK, COMPRESSION_TYPES, type CompressionType } from './compression.js';
import { crc32c } from './crc32c.js';
import {
  BATCH_FIELD,
  CRC_COVERS_FROM,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchHeader,
} from './record-batch.js';

/**
 * A topic's `compression.type` at work (Kafka's `LogValidator.validateMessagesAndAssignOffsetsCompressed`
 * when the producer's codec is not the topic's, which then builds the batch anew with
 * `buildRecordsAndAssignOffsets`): the same records, in `target`'s codec. What Kafka's new batch carries
 * over is carried over here, field for field: producerId, producerEpoch, baseSequence, the transactional
 * and control bits, partitionLeaderEpoch, lastOffsetDelta, recordsCount and the timestamps — so the
 * producer's window judges the rewritten batch as it would the one sent, and a retry of it is still a
 * duplicate. Only the codec bits of the attributes, batchLength and the CRC-32C change. The records' own
 * bytes are kept as they are (Kafka re-encodes them from the same fields; a producer's batch, whose base
 * timestamp is its first record's, comes out the same).
 *
 * `bytes` is a batch whose records were validated and `plain` those records uncompressed; `header` is its
 * header as validated. A new buffer is returned, `bytes` is not changed.
 */
export function recompressBatch(
  bytes: Uint8Array,
  header: RecordBatchHeader,
  plain: Uint8Array,
  target: CompressionType,
): { bytes: Buffer; header: RecordBatchHeader } {
  const records = target === 'none' ? plain : compressRecords(target, plain);
  const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + records.length);
  out.set(bytes.subarray(0, RECORD_BATCH_OVERHEAD), 0);
  out.set(records, RECORD_BATCH_OVERHEAD);
  const attributes = (header.attributes & ~COMPRESSION_MASK) | COMPRESSION_TYPES.indexOf(target);
  const batchLength = out.length - LOG_OVERHEAD;
  out.writeInt32BE(batchLength, BATCH_FIELD.batchLength);
  out.writeInt16BE(attributes, BATCH_FIELD.attributes);
  const crc = crc32c(out.subarray(CRC_COVERS_FROM));
  out.writeUInt32BE(crc, BATCH_FIELD.crc);
  return { bytes: out, header: { ...header, attributes, batchLength, crc } };
}
