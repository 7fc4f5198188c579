import { crcMismatch, DecodeError, StorageError } from '../errors.js';
import { COMPRESSION_MASK, compressionName, compressionOf, decompressRecords } from './compression.js';
import { crc32c } from './crc32c.js';
import { type Record, readRecord, recordBodySize, writeRecord } from './record.js';
import {
  type Cursor,
  readInt8,
  readInt16,
  readInt32,
  readInt64,
  readUint32,
  sizeOfVarint,
  writeInt64,
} from './varint.js';

// #region batch-header-layout
/**
 * RecordBatch v2, byte for byte as Kafka writes it in a `.log` segment
 * (`DefaultRecordBatch`). All header fields are big-endian:
 *
 *   offset  field                 type
 *        0  baseOffset            i64
 *        8  batchLength           i32   bytes after this field
 *       12  partitionLeaderEpoch  i32
 *       16  magic                 i8    = 2
 *       17  crc                   u32   CRC-32C of attributes … end of batch
 *       21  attributes            i16
 *       23  lastOffsetDelta       i32
 *       27  baseTimestamp         i64
 *       35  maxTimestamp          i64
 *       43  producerId            i64   -1 = no producer
 *       51  producerEpoch         i16   -1 = no producer
 *       53  baseSequence          i32   -1 = no producer
 *       57  recordsCount          i32
 *       61  records …
 */
export const RECORD_BATCH_OVERHEAD = 61;
/** baseOffset + batchLength: the bytes not counted in batchLength. */
export const LOG_OVERHEAD = 12;
export const MAGIC_V2 = 2;
export const NO_PRODUCER_ID = -1;
/** Kafka's `RecordBatch.NO_PRODUCER_EPOCH`, defined once, in @klog/core. */
export { NO_PRODUCER_EPOCH } from '@klog/core';
export const NO_SEQUENCE = -1;
// #endregion batch-header-layout
/**
 * The largest batch klog reads, and the one rule for batch sizes: every reader of
 * data already on disk (recovery on open, reads, the producer-state rebuild, `klog
 * dump-log`) takes batches up to this size, and no setting changes it. The setting
 * `LogConfig.maxBatchBytes` (Kafka's `message.max.bytes`, 1 MiB by default) limits
 * what is *accepted* by an append and may not exceed this, so that everything klog
 * ever accepted it can read back, whatever the setting is when it is reopened (Kafka
 * too applies `message.max.bytes` on append only: its recovery reads any batch that
 * fits in the file). A ceiling still, not the format's 2 GiB: it bounds what one
 * damaged length field can make a reader allocate. The records of a compressed batch
 * may decompress to at most this many bytes, for the same reason.
 */
export const MAX_READABLE_BATCH_BYTES = 64 * 1024 * 1024;
/**
 * The largest offset klog can give a record: the log end offset after it (one more)
 * must still be a safe integer, so that no two records ever get the same number.
 */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER - 1;

/**
 * Where each header field starts, derived by name from the fields' sizes in order, as
 * Kafka's `DefaultRecordBatch` derives `CRC_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH` and so
 * on: the one place a field's position is written down.
 */
const FIELD_SIZES = [
  ['baseOffset', 8],
  ['batchLength', 4],
  ['partitionLeaderEpoch', 4],
  ['magic', 1],
  ['crc', 4],
  ['attributes', 2],
  ['lastOffsetDelta', 4],
  ['baseTimestamp', 8],
  ['maxTimestamp', 8],
  ['producerId', 8],
  ['producerEpoch', 2],
  ['baseSequence', 4],
  ['recordsCount', 4],
] as const;
export type BatchFieldName = (typeof FIELD_SIZES)[number][0];
export const BATCH_FIELD: { readonly [K in BatchFieldName]: number } = (() => {
  const at = {} as { [K in BatchFieldName]: number };
  let offset = 0;
  for (const [name, size] of FIELD_SIZES) {
    at[name] = offset;
    offset += size;
  }
  if (offset !== RECORD_BATCH_OVERHEAD) throw new Error(`the header adds up to ${offset} bytes, not 61`);
  return Object.freeze(at);
})();
const F = BATCH_FIELD;
const CRC_OFFSET = F.crc;
/** The CRC-32C covers the batch from here (attributes) to its end. */
export const CRC_COVERS_FROM = F.attributes;
const ATTRIBUTES_OFFSET = F.attributes;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;

/** The 61-byte header, decoded. `batchLength` counts the bytes after its own field. */
export interface RecordBatchHeader {
  readonly baseOffset: number;
  readonly batchLength: number;
  readonly partitionLeaderEpoch: number;
  readonly magic: number;
  readonly crc: number;
  readonly attributes: number;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly recordsCount: number;
}

export interface RecordBatch extends RecordBatchHeader {
  readonly records: readonly Record[];
}

/** Everything needed to encode a batch; `batchLength`, `magic`, `crc` and `recordsCount` are computed. */
export type RecordBatchFields = Omit<RecordBatchHeader, 'batchLength' | 'magic' | 'crc' | 'recordsCount'> & {
  readonly records: readonly Record[];
};

/**
 * The header exactly as stored, judged for nothing but its framing: the 64-bit
 * fields as bigint, so that a tool can show a damaged batch as it is (a flipped
 * high byte in producerId is 2^56 away from the number a JS number would round it to).
 */
export interface StoredBatchHeader
  extends Omit<RecordBatchHeader, 'baseOffset' | 'baseTimestamp' | 'maxTimestamp' | 'producerId'> {
  readonly baseOffset: bigint;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
}

/** Total bytes a batch takes in a segment: LOG_OVERHEAD + batchLength. */
export function batchSize(header: Pick<RecordBatchHeader, 'batchLength'>): number {
  return LOG_OVERHEAD + header.batchLength;
}

/** Offset of the batch's last record: baseOffset + lastOffsetDelta. */
export function lastOffsetOf(header: Pick<RecordBatchHeader, 'baseOffset' | 'lastOffsetDelta'>): number {
  return header.baseOffset + header.lastOffsetDelta;
}

/**
 * Encode a batch, CRC-32C included, into a buffer of exactly its size from
 * `allocate`: a fresh one by default (see `BatchScratch` for a reused one).
 */
export function encodeRecordBatch(
  fields: RecordBatchFields,
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  const { records } = fields;
  if ((fields.attributes & COMPRESSION_MASK) !== 0) {
    // The encoder writes records uncompressed: attributes naming a codec would make a batch no reader can read.
    throw new StorageError(
      'INVALID_REQUEST',
      `cannot encode a batch with compression ${compressionName(fields.attributes)}: klog writes records uncompressed`,
    );
  }
  const headerKeys: Uint8Array[] = [];
  const bodies = new Array<number>(records.length);
  let size = RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < records.length; i++) {
    const body = recordBodySize(records[i]!, headerKeys);
    bodies[i] = body;
    size += sizeOfVarint(body) + body;
  }
  const buf = allocate(size);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  writeInt64(view, F.baseOffset, fields.baseOffset);
  view.setInt32(F.batchLength, size - LOG_OVERHEAD);
  view.setInt32(F.partitionLeaderEpoch, fields.partitionLeaderEpoch);
  view.setInt8(F.magic, MAGIC_V2);
  view.setInt16(F.attributes, fields.attributes);
  view.setInt32(F.lastOffsetDelta, fields.lastOffsetDelta);
  writeInt64(view, F.baseTimestamp, fields.baseTimestamp);
  writeInt64(view, F.maxTimestamp, fields.maxTimestamp);
  writeInt64(view, F.producerId, fields.producerId);
  view.setInt16(F.producerEpoch, fields.producerEpoch);
  view.setInt32(F.baseSequence, fields.baseSequence);
  view.setInt32(F.recordsCount, records.length);
  let pos = RECORD_BATCH_OVERHEAD;
  let keyIndex = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    pos = writeRecord(buf, pos, record, bodies[i]!, headerKeys, keyIndex);
    keyIndex += record.headers.length;
  }
  view.setUint32(CRC_OFFSET, crc32c(buf.subarray(ATTRIBUTES_OFFSET)));
  return buf;
}

/** Options for the decoders. `base` is added to byte offsets in errors (e.g. a batch's position in its segment). */
export interface DecodeOptions {
  readonly maxBatchBytes?: number;
  readonly base?: number;
  /** Skip the CRC check (never when reading data a user will trust; for tools that report it instead). */
  readonly verifyCrc?: boolean;
}

/**
 * Check the framing of the batch at `pos` and return its size (LOG_OVERHEAD +
 * batchLength): the length within bounds, the 61 header bytes there, magic 2. What
 * passes is a whole batch whose length leads to the next one, whatever its other
 * fields hold; `decodeBatchHeader` then judges those.
 */
export function decodeBatchFraming(bytes: Uint8Array, pos = 0, options: DecodeOptions = {}): number {
  const base = options.base ?? 0;
  const maxBatchBytes = options.maxBatchBytes ?? MAX_READABLE_BATCH_BYTES;
  const available = bytes.length - pos;
  if (available < LOG_OVERHEAD) {
    throw new DecodeError(
      'batchLength',
      base + pos + F.batchLength,
      `truncated: ${available} bytes left, the length prefix needs 12`,
    );
  }
  // Fields are read byte by byte (varint.ts): cheaper than a DataView made for every header.
  const batchLength = readInt32(bytes, pos + F.batchLength);
  if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    throw new DecodeError(
      'batchLength',
      base + pos + F.batchLength,
      `${batchLength} is below the v2 minimum of 49`,
    );
  }
  if (LOG_OVERHEAD + batchLength > maxBatchBytes) {
    throw new DecodeError(
      'batchLength',
      base + pos + F.batchLength,
      `batch of ${LOG_OVERHEAD + batchLength} bytes exceeds the limit of ${maxBatchBytes}`,
    );
  }
  if (available < RECORD_BATCH_OVERHEAD) {
    throw new DecodeError(
      'magic',
      base + pos + F.magic,
      `truncated: ${available} bytes left, the header needs 61`,
    );
  }
  const magic = readInt8(bytes, pos + F.magic);
  if (magic !== MAGIC_V2) {
    throw new DecodeError(
      'magic',
      base + pos + F.magic,
      `magic ${magic} is not 2 (only RecordBatch v2 is supported)`,
    );
  }
  return LOG_OVERHEAD + batchLength;
}

/**
 * Read and check the 61-byte header at `pos`: its framing (`decodeBatchFraming`),
 * then its fields: a compression Kafka defines, safe integers, counts that fit. The
 * records are not read and the CRC is not checked, so this needs only the header's
 * bytes: a scan can skip the bodies.
 */
export function decodeBatchHeader(
  bytes: Uint8Array,
  pos = 0,
  options: DecodeOptions = {},
): RecordBatchHeader {
  const base = options.base ?? 0;
  const batchLength = decodeBatchFraming(bytes, pos, options) - LOG_OVERHEAD;
  const attributes = readInt16(bytes, pos + F.attributes);
  if (compressionOf(attributes) === undefined) {
    throw new DecodeError(
      'attributes',
      base + pos + F.attributes,
      `compression id ${attributes & COMPRESSION_MASK} is not one Kafka defines (0-4)`,
    );
  }
  const baseOffset = readInt64(bytes, pos, 'baseOffset', base);
  if (baseOffset < 0) throw new DecodeError('baseOffset', base + pos, `${baseOffset} is negative`);
  const lastOffsetDelta = readInt32(bytes, pos + F.lastOffsetDelta);
  if (lastOffsetDelta < 0) {
    throw new DecodeError(
      'lastOffsetDelta',
      base + pos + F.lastOffsetDelta,
      `${lastOffsetDelta} is negative`,
    );
  }
  if (lastOffsetDelta > MAX_OFFSET - baseOffset) {
    throw new DecodeError(
      'lastOffsetDelta',
      base + pos + F.lastOffsetDelta,
      `the batch's last offset ${baseOffset} + ${lastOffsetDelta} is past ${MAX_OFFSET}, the largest offset klog holds exactly`,
    );
  }
  const recordsCount = readInt32(bytes, pos + F.recordsCount);
  // Every record takes at least 7 bytes; a larger count is garbage, refused before anything is allocated.
  // (Of a compressed batch, 7 of the decompressed bytes: checked once those are known.)
  const compressed = (attributes & COMPRESSION_MASK) !== 0;
  const bodyBytes = batchLength - (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD);
  if (recordsCount < 0 || (!compressed && recordsCount * 7 > bodyBytes)) {
    throw new DecodeError(
      'recordsCount',
      base + pos + F.recordsCount,
      `${recordsCount} records cannot fit in ${batchLength + LOG_OVERHEAD} bytes`,
    );
  }
  if (recordsCount > lastOffsetDelta + 1) {
    throw new DecodeError(
      'recordsCount',
      base + pos + F.recordsCount,
      `${recordsCount} records exceed lastOffsetDelta + 1 = ${lastOffsetDelta + 1}`,
    );
  }
  const producerId = readInt64(bytes, pos + F.producerId, 'producerId', base);
  const producerEpoch = readInt16(bytes, pos + F.producerEpoch);
  const baseSequence = readInt32(bytes, pos + F.baseSequence);
  if (producerId < NO_PRODUCER_ID)
    throw new DecodeError('producerId', base + pos + F.producerId, `${producerId} is below -1`);
  return {
    baseOffset,
    batchLength,
    partitionLeaderEpoch: readInt32(bytes, pos + F.partitionLeaderEpoch),
    magic: MAGIC_V2,
    crc: readUint32(bytes, pos + CRC_OFFSET),
    attributes,
    lastOffsetDelta,
    baseTimestamp: readInt64(bytes, pos + F.baseTimestamp, 'baseTimestamp', base),
    maxTimestamp: readInt64(bytes, pos + F.maxTimestamp, 'maxTimestamp', base),
    producerId,
    producerEpoch,
    baseSequence,
    recordsCount,
  };
}

/**
 * The header at `pos` as stored (see `StoredBatchHeader`), after `decodeBatchFraming`
 * has found a whole batch there: nothing but the framing is judged.
 */
export function readStoredBatchHeader(bytes: Uint8Array, pos = 0): StoredBatchHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset + pos, RECORD_BATCH_OVERHEAD);
  return {
    baseOffset: view.getBigInt64(F.baseOffset),
    batchLength: view.getInt32(F.batchLength),
    partitionLeaderEpoch: view.getInt32(F.partitionLeaderEpoch),
    magic: view.getInt8(F.magic),
    crc: view.getUint32(CRC_OFFSET),
    attributes: view.getInt16(ATTRIBUTES_OFFSET),
    lastOffsetDelta: view.getInt32(F.lastOffsetDelta),
    baseTimestamp: view.getBigInt64(F.baseTimestamp),
    maxTimestamp: view.getBigInt64(F.maxTimestamp),
    producerId: view.getBigInt64(F.producerId),
    producerEpoch: view.getInt16(F.producerEpoch),
    baseSequence: view.getInt32(F.baseSequence),
    recordsCount: view.getInt32(F.recordsCount),
  };
}

/** CRC-32C the batch at `pos` should carry, computed over attributes … end of batch. */
export function computeBatchCrc(
  bytes: Uint8Array,
  pos: number,
  header: Pick<RecordBatchHeader, 'batchLength'>,
): number {
  const start = Math.min(pos + ATTRIBUTES_OFFSET, bytes.length);
  const end = Math.min(pos + batchSize(header), bytes.length);
  // A plain view, not `subarray`: on a Buffer that is Buffer's slower subarray.
  return crc32c(new Uint8Array(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)));
}

/**
 * Decode the whole batch at `pos`: header checks, the CRC, then every record, which
 * must fill the batch exactly. The records of a compressed batch are decompressed
 * first (compression.ts), then read and checked the same way: they must fill what
 * the codec gave exactly. Any failure is a `DecodeError` naming the field and the
 * byte offset; nothing is returned half-read.
 */
export function decodeRecordBatch(bytes: Uint8Array, pos = 0, options: DecodeOptions = {}): RecordBatch {
  const header = decodeBatchHeader(bytes, pos, options);
  const base = options.base ?? 0;
  const end = pos + batchSize(header);
  if (end > bytes.length) {
    throw new DecodeError(
      'batchLength',
      base + pos + F.batchLength,
      `truncated: batch needs ${batchSize(header)} bytes, ${bytes.length - pos} left`,
    );
  }
  if (options.verifyCrc !== false) {
    const actual = computeBatchCrc(bytes, pos, header);
    if (actual !== header.crc) {
      throw crcMismatch(header.crc, actual, base + pos + CRC_OFFSET);
    }
  }
  const codec = compressionOf(header.attributes)!;
  const records =
    codec === 'none'
      ? readRecords(bytes, pos + RECORD_BATCH_OVERHEAD, end, header.recordsCount, base)
      : readCompressedRecords(bytes, pos, end, header, codec, options);
  // Field by field rather than `{ ...header, records }`: a spread of 13 fields is the
  // slowest way to build the same object, and this runs once per batch read.
  return {
    baseOffset: header.baseOffset,
    batchLength: header.batchLength,
    partitionLeaderEpoch: header.partitionLeaderEpoch,
    magic: header.magic,
    crc: header.crc,
    attributes: header.attributes,
    lastOffsetDelta: header.lastOffsetDelta,
    baseTimestamp: header.baseTimestamp,
    maxTimestamp: header.maxTimestamp,
    producerId: header.producerId,
    producerEpoch: header.producerEpoch,
    baseSequence: header.baseSequence,
    recordsCount: header.recordsCount,
    records,
  };
}

/** `count` records from `start`, which must end exactly at `end`; error offsets have `base` added. */
function readRecords(bytes: Uint8Array, start: number, end: number, count: number, base: number): Record[] {
  const records = new Array<Record>(count);
  const cur: Cursor = { value: 0, pos: start };
  try {
    for (let i = 0; i < count; i++) {
      records[i] = readRecord(bytes, cur, end, i);
    }
  } catch (error) {
    if (error instanceof DecodeError && base !== 0) {
      throw new DecodeError(error.field, base + error.offset, error.reason);
    }
    throw error;
  }
  if (cur.pos !== end) {
    throw new DecodeError('records', base + cur.pos, `${end - cur.pos} bytes left after ${count} records`);
  }
  return records;
}

/**
 * The records of a compressed batch: decompressed (to at most MAX_READABLE_BATCH_BYTES,
 * whatever limit the stored batch had: Kafka's `message.max.bytes` counts compressed
 * bytes), then read as above. An error inside the decompressed bytes points at the
 * start of the records section and says where in the decompressed bytes it is.
 */
function readCompressedRecords(
  bytes: Uint8Array,
  pos: number,
  end: number,
  header: RecordBatchHeader,
  codec: Exclude<ReturnType<typeof compressionOf>, 'none' | undefined>,
  options: DecodeOptions,
): Record[] {
  const start = pos + RECORD_BATCH_OVERHEAD;
  const at = (options.base ?? 0) + start;
  const compressed = new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start);
  let plain: Uint8Array;
  try {
    plain = decompressRecords(codec, compressed, MAX_READABLE_BATCH_BYTES);
  } catch (error) {
    if (error instanceof DecodeError) throw new DecodeError(error.field, at + error.offset, error.reason);
    throw error;
  }
  if (header.recordsCount * 7 > plain.length) {
    throw new DecodeError(
      'recordsCount',
      at - RECORD_BATCH_OVERHEAD + 57,
      `${header.recordsCount} records cannot fit in the ${plain.length} bytes ${codec} decompressed`,
    );
  }
  try {
    return readRecords(plain, 0, plain.length, header.recordsCount, 0);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    throw new DecodeError(
      error.field,
      at,
      `${error.reason} (at byte ${error.offset} of the ${plain.length} bytes ${codec} decompressed)`,
    );
  }
}
