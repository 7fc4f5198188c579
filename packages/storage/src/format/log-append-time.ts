import { BATCH_FIELD, computeBatchCrc, LOG_OVERHEAD, TIMESTAMP_TYPE_MASK } from './record-batch.js';
import { writeInt64BE } from './varint.js';

/**
 * `message.timestamp.type=LogAppendTime` (Kafka's `LogValidator`, `setMaxTimestamp(LOG_APPEND_TIME, now)`):
 * the batch's timestamp type bit is set and its max timestamp becomes the broker's clock; the records keep
 * their deltas, which readers ignore for such a batch. The CRC-32C covers both fields, so it is computed
 * again — only after the client's CRC was checked, so damage is never sealed in. Changes `bytes` in place
 * and returns the header as it now is (its `crc`, if it has one, is the client's).
 */
export function stampLogAppendTime<H extends { readonly attributes: number; readonly maxTimestamp: number }>(
  bytes: Buffer,
  header: H,
  nowMs: number,
): H {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const attributes = header.attributes | TIMESTAMP_TYPE_MASK;
  view.setInt16(BATCH_FIELD.attributes, attributes);
  writeInt64BE(bytes, BATCH_FIELD.maxTimestamp, nowMs);
  // `bytes` is exactly one batch: its length field counts what follows it.
  view.setUint32(BATCH_FIELD.crc, computeBatchCrc(bytes, 0, { batchLength: bytes.length - LOG_OVERHEAD }));
  return { ...header, attributes, maxTimestamp: nowMs };
}
