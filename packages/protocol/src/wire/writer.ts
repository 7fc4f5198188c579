import { ProtocolEncodeError } from '../errors.js';
import { MAX_STRING_BYTES } from './reader.js';
import { encodeUtf8Into, utf8Length } from './utf8.js';

/** Byte strings at least this long are passed on by reference instead of copied (Fetch's records). */
export const BY_REFERENCE_BYTES = 4096;

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Writes Kafka's primitive types, big-endian, into a growing buffer, and returns the result as a list of
 * chunks: large byte strings (a Fetch response's records) stay where they are and go out as their own chunk,
 * as Kafka's `MultiRecordsSend` does, so a response never copies the log. Each write checks its value fits
 * the type and names the field when it does not.
 */
export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;
  private readonly chunks: Uint8Array[] = [];
  private chunkBytes = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.chunkBytes + this.pos;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = Math.max(64, this.buf.length * 2);
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  private range(value: number, min: number, max: number, type: string, field: string): void {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ProtocolEncodeError(field, `${value} is not an ${type}`);
    }
  }

  int8(value: number, field: string): this {
    this.range(value, -0x80, 0x7f, 'INT8', field);
    this.room(1);
    this.view.setInt8(this.pos++, value);
    return this;
  }

  bool(value: boolean, _field: string): this {
    this.room(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  int16(value: number, field: string): this {
    this.range(value, -0x8000, 0x7fff, 'INT16', field);
    this.room(2);
    this.view.setInt16(this.pos, value);
    this.pos += 2;
    return this;
  }

  uint16(value: number, field: string): this {
    this.range(value, 0, 0xffff, 'UINT16', field);
    this.room(2);
    this.view.setUint16(this.pos, value);
    this.pos += 2;
    return this;
  }

  int32(value: number, field: string): this {
    this.range(value, -0x8000_0000, 0x7fff_ffff, 'INT32', field);
    this.room(4);
    this.view.setInt32(this.pos, value);
    this.pos += 4;
    return this;
  }

  int64(value: number, field: string): this {
    if (!Number.isSafeInteger(value)) throw new ProtocolEncodeError(field, `${value} is not a safe INT64`);
    this.room(8);
    // Two's complement split without BigInt: floor division keeps the sign in the high word.
    this.view.setInt32(this.pos, Math.floor(value / 0x1_0000_0000));
    this.view.setUint32(this.pos + 4, value >>> 0);
    this.pos += 8;
    return this;
  }

  float64(value: number, _field: string): this {
    this.room(8);
    this.view.setFloat64(this.pos, value);
    this.pos += 8;
    return this;
  }

  uuid(value: string, field: string): this {
    if (!UUID_FORM.test(value))
      throw new ProtocolEncodeError(field, `${JSON.stringify(value)} is not a UUID`);
    this.room(16);
    const hex = value.replaceAll('-', '');
    for (let i = 0; i < 16; i++) this.buf[this.pos + i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    this.pos += 16;
    return this;
  }

  uvarint(value: number, field: string): this {
    this.range(value, 0, 0xffff_ffff, 'UNSIGNED_VARINT', field);
    this.room(5);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  private text(value: string, compact: boolean, field: string): this {
    const n = utf8Length(value);
    if (n > MAX_STRING_BYTES)
      throw new ProtocolEncodeError(field, `string of ${n} bytes is over ${MAX_STRING_BYTES}`);
    if (compact) this.uvarint(n + 1, field);
    else this.int16(n, field);
    this.room(n);
    this.pos += encodeUtf8Into(value, this.buf, this.pos);
    return this;
  }

  private nonNull<T>(value: T | null, field: string): T {
    if (value === null)
      throw new ProtocolEncodeError(field, 'null in a field that is not nullable in this version');
    return value;
  }

  string(value: string | null, field: string): this {
    return this.text(this.nonNull(value, field), false, field);
  }

  nullableString(value: string | null, field: string): this {
    if (value === null) return this.int16(-1, field);
    return this.text(value, false, field);
  }

  compactString(value: string | null, field: string): this {
    return this.text(this.nonNull(value, field), true, field);
  }

  compactNullableString(value: string | null, field: string): this {
    if (value === null) return this.uvarint(0, field);
    return this.text(value, true, field);
  }

  /** Bytes as they are; large ones by reference (the caller must not change them until they are sent). */
  raw(bytes: Uint8Array): this {
    if (bytes.length >= BY_REFERENCE_BYTES) {
      if (this.pos > 0) {
        this.chunks.push(this.buf.subarray(0, this.pos));
        this.chunkBytes += this.pos;
        // Go on writing in the rest of the same buffer: the chunk above keeps only its written part.
        this.buf = this.buf.length - this.pos >= 64 ? this.buf.subarray(this.pos) : new Uint8Array(256);
        this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
        this.pos = 0;
      }
      this.chunks.push(bytes);
      this.chunkBytes += bytes.length;
      return this;
    }
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  bytesField(value: Uint8Array | null, field: string): this {
    const v = this.nonNull(value, field);
    return this.int32(v.length, field).raw(v);
  }

  nullableBytes(value: Uint8Array | null, field: string): this {
    if (value === null) return this.int32(-1, field);
    return this.int32(value.length, field).raw(value);
  }

  compactBytes(value: Uint8Array | null, field: string): this {
    const v = this.nonNull(value, field);
    return this.uvarint(v.length + 1, field).raw(v);
  }

  compactNullableBytes(value: Uint8Array | null, field: string): this {
    if (value === null) return this.uvarint(0, field);
    return this.uvarint(value.length + 1, field).raw(value);
  }

  /** ARRAY's INT32 count; −1 writes a null array. */
  arrayLength(count: number, field: string): this {
    return this.int32(count, field);
  }

  /** COMPACT_ARRAY's count + 1; −1 writes a null array (0). */
  compactArrayLength(count: number, field: string): this {
    return this.uvarint(count + 1, field);
  }

  /** The chunks written, in order; the writer must not be used afterwards. */
  finish(): Uint8Array[] {
    if (this.pos > 0 || this.chunks.length === 0) this.chunks.push(this.buf.subarray(0, this.pos));
    this.chunkBytes += this.pos;
    this.pos = 0;
    return this.chunks;
  }

  /** Everything written, as one contiguous copy (for small things: tagged fields, tests). */
  toBytes(): Uint8Array {
    const chunks = this.finish();
    if (chunks.length === 1) return chunks[0]!;
    return concatBytes(chunks);
  }
}

export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
