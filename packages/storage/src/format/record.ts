import { DecodeError } from '../errors.js';
import {
  type Cursor,
  readVarint,
  readVarlong,
  sizeOfVarint,
  sizeOfVarlong,
  writeVarint,
  writeVarlong,
} from './varint.js';

/**
 * One record inside a RecordBatch v2 (Kafka's `DefaultRecord`):
 *
 *   length varint · attributes i8 · timestampDelta varlong · offsetDelta varint ·
 *   keyLength varint · key · valueLength varint · value · headerCount varint ·
 *   headers (keyLength varint · key utf-8 · valueLength varint · value)
 *
 * A length of -1 is a null key or value; a null value on a compacted topic is a tombstone.
 */

export interface RecordHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

/** What a caller appends: key, value and headers; offsets and timestamps are the log's to give. */
export interface RecordInput {
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly RecordHeader[];
}

/** A record as stored: its deltas from the batch's base offset and base timestamp. */
export interface Record extends RecordInput {
  readonly attributes: number;
  readonly timestampDelta: number;
  readonly offsetDelta: number;
  readonly headers: readonly RecordHeader[];
}

const textEncoder = new TextEncoder();
const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

function sizeOfBytes(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : sizeOfVarint(bytes.length) + bytes.length;
}

/**
 * Body size of a record (everything after its length varint). The UTF-8 form of its
 * header keys is pushed onto `headerKeys`, for `writeRecord` to use without encoding again.
 */
export function recordBodySize(record: Record, headerKeys: Uint8Array[]): number {
  let size = 1 + sizeOfVarlong(record.timestampDelta) + sizeOfVarint(record.offsetDelta);
  size += sizeOfBytes(record.key) + sizeOfBytes(record.value);
  size += sizeOfVarint(record.headers.length);
  for (const header of record.headers) {
    const key = textEncoder.encode(header.key);
    headerKeys.push(key);
    size += sizeOfVarint(key.length) + key.length + sizeOfBytes(header.value);
  }
  return size;
}

function writeBytes(buf: Uint8Array, pos: number, bytes: Uint8Array | null): number {
  if (bytes === null) return writeVarint(buf, pos, -1);
  pos = writeVarint(buf, pos, bytes.length);
  buf.set(bytes, pos);
  return pos + bytes.length;
}

/** Write a record at `pos`, its header keys taken in order from `headerKeys` starting at `keyIndex`. */
export function writeRecord(
  buf: Uint8Array,
  pos: number,
  record: Record,
  bodyLength: number,
  headerKeys: Uint8Array[],
  keyIndex: number,
): number {
  pos = writeVarint(buf, pos, bodyLength);
  buf[pos++] = record.attributes & 0xff;
  pos = writeVarlong(buf, pos, record.timestampDelta);
  pos = writeVarint(buf, pos, record.offsetDelta);
  pos = writeBytes(buf, pos, record.key);
  pos = writeBytes(buf, pos, record.value);
  pos = writeVarint(buf, pos, record.headers.length);
  for (const header of record.headers) {
    pos = writeBytes(buf, pos, headerKeys[keyIndex++]!);
    pos = writeBytes(buf, pos, header.value);
  }
  return pos;
}

/**
 * A view of `length` bytes of `buf` at `pos`: a plain Uint8Array over the same memory,
 * not a copy. Made with the constructor rather than `subarray`, which on a Node
 * Buffer goes through Buffer's own `subarray` and costs about twice as much.
 */
function viewOf(buf: Uint8Array, pos: number, length: number): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset + pos, length);
}

function readBytes(buf: Uint8Array, cur: Cursor, end: number, field: string): Uint8Array | null {
  const at = cur.pos;
  readVarint(buf, cur, end, field);
  const length = cur.value;
  if (length === -1) return null;
  if (length < -1) throw new DecodeError(field, at, `length ${length} is negative`);
  if (length > end - cur.pos) {
    throw new DecodeError(
      field,
      at,
      `length ${length} runs past the end of its record (${end - cur.pos} bytes left)`,
    );
  }
  const bytes = viewOf(buf, cur.pos, length);
  cur.pos += length;
  return bytes;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

function readHeaders(buf: Uint8Array, cur: Cursor, end: number): readonly RecordHeader[] {
  const countAt = cur.pos;
  readVarint(buf, cur, end, 'headerCount');
  const headerCount = cur.value;
  // A header takes at least 2 bytes, so a count past that is garbage: refuse before allocating.
  if (headerCount < 0 || headerCount * 2 > end - cur.pos) {
    throw new DecodeError('headerCount', countAt, `header count ${headerCount} does not fit the record`);
  }
  if (headerCount === 0) return NO_HEADERS;
  const list: RecordHeader[] = [];
  for (let h = 0; h < headerCount; h++) {
    const keyAt = cur.pos;
    const keyBytes = readBytes(buf, cur, end, `headers[${h}].key`);
    if (keyBytes === null) throw new DecodeError(`headers[${h}].key`, keyAt, 'header key is null');
    let headerKey: string;
    try {
      headerKey = textDecoder.decode(keyBytes);
    } catch {
      throw new DecodeError(`headers[${h}].key`, keyAt, 'header key is not valid UTF-8');
    }
    list.push({ key: headerKey, value: readBytes(buf, cur, end, `headers[${h}].value`) });
  }
  return list;
}

/**
 * Decode the record at `cur.pos`, which must end at or before `batchEnd`. Keys and
 * values are views into `buf`, not copies. Errors name the field as
 * `records[<index>].<field>`; the name is only built when a record is bad, so a
 * good record costs no string work.
 */
export function readRecord(buf: Uint8Array, cur: Cursor, batchEnd: number, index: number): Record {
  const start = cur.pos;
  let length = 0;
  try {
    readVarint(buf, cur, batchEnd, 'length');
    length = cur.value;
    if (length < 1 || length > batchEnd - cur.pos) {
      throw new DecodeError(
        'length',
        start,
        `record length ${length} is outside 1..${batchEnd - cur.pos} (bytes left in the batch)`,
      );
    }
    const end = cur.pos + length;
    const attributes = buf[cur.pos++]!;
    readVarlong(buf, cur, end, 'timestampDelta');
    const timestampDelta = cur.value;
    readVarint(buf, cur, end, 'offsetDelta');
    const offsetDelta = cur.value;
    const key = readBytes(buf, cur, end, 'key');
    const value = readBytes(buf, cur, end, 'value');
    const headers = readHeaders(buf, cur, end);
    if (cur.pos !== end) {
      // Field '' names the record itself.
      throw new DecodeError(
        '',
        cur.pos,
        `record declares ${length} bytes but its fields end ${end - cur.pos} bytes early`,
      );
    }
    return { attributes, timestampDelta, offsetDelta, key, value, headers };
  } catch (error) {
    if (error instanceof DecodeError) {
      const field = error.field === '' ? `records[${index}]` : `records[${index}].${error.field}`;
      throw new DecodeError(field, error.offset, error.reason);
    }
    throw error;
  }
}
