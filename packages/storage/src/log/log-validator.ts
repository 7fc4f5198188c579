import { isUtf8 } from 'node:buffer';
import { MAX_PRODUCER_EPOCH, MAX_SEQUENCE } from '@klog/core';
import { DecodeError, StorageError } from '../errors.js';
import {
  type BrokerCompressionType,
  compressionOf,
  decompressRecords,
  targetCodec,
} from '../format/compression.js';
import { crc32c } from '../format/crc32c.js';
import { recompressBatch } from '../format/recompress-batch.js';
import {
  BATCH_FIELD,
  batchSize,
  CONTROL_FLAG,
  CRC_COVERS_FROM,
  MAX_OFFSET,
  MAX_READABLE_BATCH_BYTES,
  NO_PRODUCER_ID,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchHeader,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG,
} from '../format/record-batch.js';
import { type Cursor, readVarint, readVarlong, writeInt64BE } from '../format/varint.js';
import { quickWalk } from './quick-walk.js';

// Kafka's `LogValidator`, the one file that says what a batch must be to be appended: the header's
// rules (`validateForAppend`, its `validateBatch` for magic 2, by `AppendOrigin`), the log's clock
// (`validateTimestamp`), then every record walked (`validateRecords`, `validateBatch`). `Log.check`
// (Kafka's `UnifiedLog.analyzeAndValidateRecords`) calls them after the size and the CRC; the producer's
// sequence and epoch are judged after, by `Partition.append` (Kafka's `ProducerStateManager`).

/**
 * Where a batch comes from, which decides how much is checked (Kafka's `AppendOrigin`; see
 * `LogAppend` in log.ts): a `client`'s batch, or `raw` bytes from outside, pass every rule
 * below; a batch `klog` built a moment ago has its structure right by construction, and
 * only its size and offsets are checked.
 */
export type AppendOrigin = 'client' | 'raw' | 'klog';

/** The header fields the checks read. */
export type AppendedHeader = Pick<
  RecordBatchHeader,
  | 'attributes'
  | 'lastOffsetDelta'
  | 'recordsCount'
  | 'producerId'
  | 'producerEpoch'
  | 'baseSequence'
  | 'maxTimestamp'
>;

/**
 * Kafka's `LogValidator.validateBatch` for magic 2, on the header alone, plus the
 * limits that apply when a batch is accepted: whatever is refused here never reaches
 * the file, and whatever passes is something every reader of the log accepts. A
 * limit that is a setting (`message.max.bytes`) applies here only, never when the
 * data is read back.
 */
export function validateForAppend(
  header: AppendedHeader,
  size: number,
  baseOffset: number,
  maxBatchBytes: number,
  origin: AppendOrigin,
): void {
  if (size > maxBatchBytes) {
    throw new StorageError(
      'MESSAGE_TOO_LARGE',
      `batch of ${size} bytes exceeds the limit of ${maxBatchBytes} (message.max.bytes)`,
    );
  }
  if (header.lastOffsetDelta > MAX_OFFSET - baseOffset) {
    throw new StorageError(
      'OFFSET_OVERFLOW',
      `the batch would end at offset ${baseOffset} + ${header.lastOffsetDelta}, past ${MAX_OFFSET}, ` +
        'the largest offset klog holds exactly',
    );
  }
  if (origin !== 'klog') {
    if (header.recordsCount <= 0) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid reported count for record batch: ${header.recordsCount}`,
      );
    }
    if (header.lastOffsetDelta + 1 !== header.recordsCount) {
      throw new StorageError(
        'INVALID_RECORD',
        `inconsistent batch offset range [0, ${header.lastOffsetDelta}] and count of records ${header.recordsCount}`,
      );
    }
    if (header.attributes & CONTROL_FLAG) {
      throw new StorageError('INVALID_RECORD', 'clients are not allowed to write control records');
    }
  }
  if (header.attributes & TRANSACTIONAL_FLAG) {
    throw new StorageError(
      'INVALID_TXN_STATE',
      'a transactional batch: klog does not build transactions (no coordinator, no markers)',
    );
  }
  if (header.producerId > NO_PRODUCER_ID) {
    // Kafka refuses a negative sequence here; an epoch outside 0..32767 would make the
    // producer-state rebuild meet a batch it cannot place, so it is refused too.
    if (header.baseSequence < 0 || header.baseSequence > MAX_SEQUENCE) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid sequence number ${header.baseSequence} in record batch with producerId ${header.producerId}`,
      );
    }
    if (header.producerEpoch < 0 || header.producerEpoch > MAX_PRODUCER_EPOCH) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid producer epoch ${header.producerEpoch} in record batch with producerId ${header.producerId}`,
      );
    }
  }
}

/** A timestamp the log gives (its clock, `nowMs`): a safe integer >= 0, as a Kafka client requires. */
export function validateTimestamp(nowMs: number, field = 'timestamp'): number {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) {
    throw new StorageError('INVALID_TIMESTAMP', `${field} must be a safe integer >= 0, got ${String(nowMs)}`);
  }
  return nowMs;
}

/**
 * The record-level half of Kafka's `LogValidator` (`assignOffsetsNonCompressed`,
 * `validateMessagesAndAssignOffsetsCompressed` with a `skipKeyValueIterator`): a
 * client's batch is accepted only once every record in it has been walked, so that
 * no bytes reach the log that a reader (a consumer, `klog dump-log`, recovery) would
 * refuse. The header's checks (`validateForAppend`) and the CRC come first; this
 * walks the records, decompressing a compressed batch with compression.ts, and
 * allocates nothing per record (no keys, values or header strings are built).
 *
 * What each record must hold, as `readRecord` reads it: a length varint of 1..the
 * bytes left, varints that fit, an offset delta equal to its index (Kafka rewrites a
 * compressed batch whose inner offsets are wrong and keeps an uncompressed one as it
 * is; klog stores bytes as sent, so it refuses both), key, value and header lengths
 * inside the record, header keys present and UTF-8, fields that end where the length
 * says; then exactly `recordsCount` records filling the batch (or what its codec gave).
 *
 * Errors, as Kafka answers them: a record that does not read is `INVALID_RECORD`
 * (Kafka's `InvalidRecordException` from `DefaultRecord.readFrom`); a compressed
 * payload that does not decompress is `CORRUPT_MESSAGE`.
 */

/** A client's batch once validated: as it came (its header perhaps rewritten in place), or recompressed. */
export interface ValidatedBatch {
  readonly bytes: Buffer;
  readonly header: RecordBatchHeader;
}

/**
 * Walk every record of the batch at the start of `bytes` (its header already decoded
 * and checked, its CRC checked), and make its max timestamp the largest of its
 * records' (Kafka's `setMaxTimestamp(CREATE_TIME, …)`: a client that wrote −1 there
 * would make ListOffsets by timestamp miss the batch). When the stored value differs,
 * or the batch claims LogAppendTime (klog's topics are CreateTime, as Kafka's are by
 * default), the header is rewritten in `bytes` and its CRC recomputed, as Kafka does.
 * Returns the header the log should index the batch by.
 */
export function validateRecords(bytes: Buffer, header: RecordBatchHeader): RecordBatchHeader {
  return setMaxTimestamp(bytes, header, walkRecords(bytes, header, undefined));
}

/** Whether a batch in `attributes`' codec is rewritten under `compression.type` = `compression`. */
export function needsRecompression(attributes: number, compression: BrokerCompressionType): boolean {
  const source = compressionOf(attributes)!;
  return targetCodec(compression, source) !== source;
}

/**
 * `validateRecords`, then the topic's `compression.type`: a batch whose codec is not the one the topic
 * names is written again in it (`recompressBatch`), as Kafka's `validateMessagesAndAssignOffsetsCompressed`
 * does when it cannot assign in place; the records walked are the ones recompressed, decompressed once.
 */
export function validateBatch(
  bytes: Buffer,
  header: RecordBatchHeader,
  compression: BrokerCompressionType,
): ValidatedBatch {
  if (!needsRecompression(header.attributes, compression)) {
    return { bytes, header: validateRecords(bytes, header) };
  }
  const records: { plain?: Uint8Array } = {};
  const checked = setMaxTimestamp(bytes, header, walkRecords(bytes, header, records));
  const target = targetCodec(compression, compressionOf(header.attributes)!);
  return recompressBatch(bytes, checked, records.plain!, target);
}

/**
 * The batch indexes of the records without a key (a key length of −1) in a batch `validateRecords` has
 * walked: on a compacted topic Kafka's `LogValidator.validateKey` refuses each of them with INVALID_RECORD.
 * Only compacted topics pay for this second walk (and, for a compressed batch, a second decompression).
 */
export function keylessRecords(bytes: Buffer, header: RecordBatchHeader): number[] {
  const codec = compressionOf(header.attributes)!;
  let buf: Uint8Array = bytes;
  let end = batchSize(header);
  const cur: Cursor = { value: 0, pos: RECORD_BATCH_OVERHEAD };
  if (codec !== 'none') {
    const compressed = new Uint8Array(
      bytes.buffer,
      bytes.byteOffset + RECORD_BATCH_OVERHEAD,
      end - RECORD_BATCH_OVERHEAD,
    );
    buf = decompressRecords(codec, compressed, MAX_READABLE_BATCH_BYTES);
    end = buf.length;
    cur.pos = 0;
  }
  const keyless: number[] = [];
  for (let i = 0; i < header.recordsCount; i++) {
    readVarint(buf, cur, end, 'length');
    const recordEnd = cur.pos + cur.value;
    cur.pos++; // attributes
    readVarlong(buf, cur, recordEnd, 'timestampDelta');
    readVarint(buf, cur, recordEnd, 'offsetDelta');
    readVarint(buf, cur, recordEnd, 'keyLength');
    if (cur.value < 0) keyless.push(i);
    cur.pos = recordEnd;
  }
  return keyless;
}

function setMaxTimestamp(bytes: Buffer, header: RecordBatchHeader, maxTimestamp: number): RecordBatchHeader {
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  if (maxTimestamp === header.maxTimestamp && !logAppendTime) return header;
  const attributes = header.attributes & ~TIMESTAMP_TYPE_MASK;
  bytes.writeInt16BE(attributes, BATCH_FIELD.attributes);
  writeInt64BE(bytes, BATCH_FIELD.maxTimestamp, maxTimestamp);
  const crc = crc32c(bytes.subarray(CRC_COVERS_FROM, batchSize(header)));
  bytes.writeUInt32BE(crc, BATCH_FIELD.crc);
  return { ...header, attributes, maxTimestamp, crc };
}

/**
 * The records' largest timestamp, or a StorageError naming the first record that does not read; `keep`,
 * when given, gets the records uncompressed (for a recompression: nothing is kept on the usual path).
 */
function walkRecords(
  bytes: Buffer,
  header: RecordBatchHeader,
  keep: { plain?: Uint8Array } | undefined,
): number {
  const codec = compressionOf(header.attributes)!;
  const end = batchSize(header);
  if (codec === 'none') {
    if (keep !== undefined) keep.plain = bytes.subarray(RECORD_BATCH_OVERHEAD, end);
    return walkBoth(bytes, RECORD_BATCH_OVERHEAD, end, header, '');
  }
  let plain: Uint8Array;
  try {
    const compressed = new Uint8Array(
      bytes.buffer,
      bytes.byteOffset + RECORD_BATCH_OVERHEAD,
      end - RECORD_BATCH_OVERHEAD,
    );
    plain = decompressRecords(codec, compressed, MAX_READABLE_BATCH_BYTES);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    throw new StorageError('CORRUPT_MESSAGE', `the ${codec} records do not decompress: ${error.reason}`);
  }
  if (keep !== undefined) keep.plain = plain;
  return walkBoth(plain, 0, plain.length, header, ` of the ${plain.length} bytes ${codec} decompressed`);
}

/** The quick walk (quick-walk.ts), and the careful one where it cannot decide. */
function walkBoth(
  buf: Uint8Array,
  start: number,
  end: number,
  header: RecordBatchHeader,
  where: string,
): number {
  const max = quickWalk(buf, start, end, header.baseTimestamp, header.recordsCount);
  return Number.isNaN(max) ? carefulWalk(buf, start, end, header, where) : max;
}

function invalid(index: number, at: number, reason: string, where: string): StorageError {
  return new StorageError('INVALID_RECORD', `record ${index} at byte ${at}${where}: ${reason}`);
}

/** The careful walk: every check, and the message naming the first record that fails one. */
export function carefulWalk(
  buf: Uint8Array,
  start: number,
  end: number,
  header: RecordBatchHeader,
  where: string,
): number {
  const count = header.recordsCount;
  const cur: Cursor = { value: 0, pos: start };
  let max = -1;
  let i = 0;
  try {
    for (; i < count; i++) {
      const at = cur.pos;
      readVarint(buf, cur, end, 'length');
      const length = cur.value;
      if (length < 1 || length > end - cur.pos) {
        throw invalid(i, at, `length ${length} is outside 1..${end - cur.pos} (the bytes left)`, where);
      }
      const recordEnd = cur.pos + length;
      cur.pos++; // attributes: unused in v2
      readVarlong(buf, cur, recordEnd, 'timestampDelta');
      const timestamp = header.baseTimestamp + cur.value;
      if (!Number.isSafeInteger(timestamp)) {
        throw invalid(i, at, `timestamp ${header.baseTimestamp} + ${cur.value} is not a safe integer`, where);
      }
      if (timestamp > max) max = timestamp;
      readVarint(buf, cur, recordEnd, 'offsetDelta');
      if (cur.value !== i) throw invalid(i, at, `offset delta ${cur.value}, expected ${i}`, where);
      skipBytes(buf, cur, recordEnd, 'key', i, where, false);
      skipBytes(buf, cur, recordEnd, 'value', i, where, false);
      readVarint(buf, cur, recordEnd, 'headerCount');
      const headers = cur.value;
      if (headers < 0 || headers * 2 > recordEnd - cur.pos) {
        throw invalid(i, at, `header count ${headers} does not fit the record`, where);
      }
      for (let h = 0; h < headers; h++) {
        skipBytes(buf, cur, recordEnd, `headers[${h}].key`, i, where, true);
        skipBytes(buf, cur, recordEnd, `headers[${h}].value`, i, where, false);
      }
      if (cur.pos !== recordEnd) {
        throw invalid(
          i,
          at,
          `declares ${length} bytes but its fields end ${recordEnd - cur.pos} early`,
          where,
        );
      }
    }
  } catch (error) {
    if (error instanceof DecodeError)
      throw invalid(i, error.offset, `${error.field}: ${error.reason}`, where);
    throw error;
  }
  if (cur.pos !== end) {
    throw new StorageError(
      'INVALID_RECORD',
      `${end - cur.pos} bytes left after the ${count} records the batch declares${where}`,
    );
  }
  return max;
}

/** A length-prefixed field: -1 (null) or a length inside the record; a header key must be UTF-8. */
function skipBytes(
  buf: Uint8Array,
  cur: Cursor,
  end: number,
  field: string,
  index: number,
  where: string,
  key: boolean,
): void {
  const at = cur.pos;
  readVarint(buf, cur, end, field);
  const length = cur.value;
  if (length === -1 && !key) return;
  if (length < 0)
    throw invalid(index, at, `${field} length ${length} is ${key ? 'null' : 'negative'}`, where);
  if (length > end - cur.pos) {
    throw invalid(
      index,
      at,
      `${field} length ${length} runs past the record (${end - cur.pos} bytes left)`,
      where,
    );
  }
  if (key && !isUtf8(new Uint8Array(buf.buffer, buf.byteOffset + cur.pos, length))) {
    throw invalid(index, at, `${field} is not valid UTF-8`, where);
  }
  cur.pos += length;
}
