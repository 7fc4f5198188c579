import { DecodeError } from '../errors.js';

/**
 * Zigzag varints as RecordBatch v2 records use them (Kafka's `ByteUtils.writeVarint`
 * / `writeVarlong`): zigzag maps -1 → 1, 1 → 2, …, then 7 bits per byte, low first,
 * high bit set while more bytes follow. A varint is at most 5 bytes, a varlong 10;
 * JS numbers carry varlongs exactly up to 2^53, which the decoder enforces.
 * The big-endian fixed-width readers of the batch header live here too.
 */

const TWO_32 = 4_294_967_296;

/** Bytes `writeVarint(value)` would take; for values within int32. */
export function sizeOfVarint(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (v >= 0x80) {
    v >>>= 7;
    bytes++;
  }
  return bytes;
}

/** Bytes `writeVarlong(value)` would take; for any safe integer. */
export function sizeOfVarlong(value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return sizeOfVarint(value);
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  let bytes = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    bytes++;
  }
  return bytes;
}

/** Write a zigzag varint (int32) at `pos`; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

/** Write a zigzag varlong (any safe integer) at `pos`; returns the position after it. */
export function writeVarlong(buf: Uint8Array, pos: number, value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return writeVarint(buf, pos, value);
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  while (v >= 0x80) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** A decoded number and where the next field starts. Reused to keep the decoder allocation-free. */
export interface Cursor {
  value: number;
  pos: number;
}

/**
 * The one-byte case of both readers: most varints in a record are one byte (small
 * deltas, a short key's length, no headers), so they skip the loop. True if it read one.
 */
function readOneByte(buf: Uint8Array, cur: Cursor, end: number): boolean {
  const start = cur.pos;
  if (start >= end || buf[start]! >= 0x80) return false;
  const byte = buf[start]!;
  cur.value = (byte >>> 1) ^ -(byte & 1);
  cur.pos = start + 1;
  return true;
}

/** Read a zigzag varint (int32) at `cur.pos`, not reading at or past `end`. */
export function readVarint(buf: Uint8Array, cur: Cursor, end: number, field: string): void {
  if (readOneByte(buf, cur, end)) return;
  const start = cur.pos;
  let pos = start;
  let raw = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end) throw new DecodeError(field, start, 'varint runs past the end of its record');
    const byte = buf[pos++]!;
    if (shift === 28 && byte > 0x0f) throw new DecodeError(field, start, 'varint does not fit in 32 bits');
    raw |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  raw >>>= 0;
  cur.value = (raw >>> 1) ^ -(raw & 1);
  cur.pos = pos;
}

/** Read a zigzag varlong at `cur.pos`; rejects values a JS number cannot hold exactly. */
export function readVarlong(buf: Uint8Array, cur: Cursor, end: number, field: string): void {
  if (readOneByte(buf, cur, end)) return;
  const start = cur.pos;
  let pos = start;
  let raw = 0;
  let scale = 1;
  for (let i = 0; ; i++) {
    if (pos >= end) throw new DecodeError(field, start, 'varlong runs past the end of its record');
    if (i === 10) throw new DecodeError(field, start, 'varlong longer than 10 bytes');
    const byte = buf[pos++]!;
    raw += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
    scale *= 128;
  }
  // raw is the zigzag form; it is exact while below 2^53.
  if (raw > Number.MAX_SAFE_INTEGER) {
    throw new DecodeError(field, start, 'varlong is outside the safe integer range');
  }
  const half = Math.floor(raw / 2);
  cur.value = raw % 2 === 0 ? half : -half - 1;
  cur.pos = pos;
}

/** Big-endian fixed-width reads from a byte array; the caller has checked the bytes are there. */
export function readInt32(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! << 24) | (bytes[pos + 1]! << 16) | (bytes[pos + 2]! << 8) | bytes[pos + 3]!;
}

export function readUint32(bytes: Uint8Array, pos: number): number {
  return readInt32(bytes, pos) >>> 0;
}

export function readInt16(bytes: Uint8Array, pos: number): number {
  return ((bytes[pos]! << 24) | (bytes[pos + 1]! << 16)) >> 16;
}

export function readInt8(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! << 24) >> 24;
}

/** Read a big-endian i64 that must be a safe integer (offsets, timestamps, producer ids). */
export function readInt64(bytes: Uint8Array, pos: number, field: string, base: number): number {
  const hi = readInt32(bytes, pos);
  const lo = readUint32(bytes, pos + 4);
  const value = hi * TWO_32 + lo;
  if (!Number.isSafeInteger(value)) {
    throw new DecodeError(
      field,
      base + pos,
      `i64 0x${(hi >>> 0).toString(16)}${lo.toString(16).padStart(8, '0')} is not a safe integer`,
    );
  }
  return value;
}

/** Write a safe integer as a big-endian i64. */
export function writeInt64(view: DataView, pos: number, value: number): void {
  view.setInt32(pos, Math.floor(value / TWO_32));
  view.setUint32(pos + 4, value >>> 0);
}

/** Write a safe integer as a big-endian i64 into a Buffer (no DataView to make: the append path's stamp). */
export function writeInt64BE(buf: Buffer, pos: number, value: number): void {
  buf.writeInt32BE(Math.floor(value / TWO_32), pos);
  buf.writeUInt32BE(value >>> 0, pos + 4);
}
