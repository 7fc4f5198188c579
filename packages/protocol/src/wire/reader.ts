import { ProtocolDecodeError } from '../errors.js';
import { decodeUtf8 } from './utf8.js';

/** Kafka's limit on a string's length in bytes (`Short.MAX_VALUE`), for the INT16 and compact forms alike. */
export const MAX_STRING_BYTES = 0x7fff;

/**
 * Reads Kafka's primitive types (the protocol guide's "Protocol Primitive Types") from one request frame,
 * big-endian, checking every length against what is left so that no input makes it allocate more than the
 * input's own size. Every read names its field, which a failure reports with the byte offset.
 *
 * Like Kafka's `ByteBufferAccessor`, bytes and records come back as views into the frame, not copies.
 */
export class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** Where the next read starts, counted from the start of `bytes`. */
  offset: number;
  /** One past the last byte that belongs to this frame. */
  readonly end: number;

  constructor(bytes: Uint8Array, offset = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  fail(field: string, reason: string, at = this.offset): never {
    throw new ProtocolDecodeError(field, at, reason);
  }

  private need(n: number, field: string, what: string): void {
    if (n > this.end - this.offset) {
      this.fail(field, `${what} needs ${n} byte${n === 1 ? '' : 's'}, only ${this.end - this.offset} left`);
    }
  }

  int8(field: string): number {
    this.need(1, field, 'an INT8');
    return this.view.getInt8(this.offset++);
  }

  /** Kafka reads a BOOLEAN as `byte != 0`. */
  bool(field: string): boolean {
    this.need(1, field, 'a BOOLEAN');
    return this.bytes[this.offset++] !== 0;
  }

  int16(field: string): number {
    this.need(2, field, 'an INT16');
    const v = this.view.getInt16(this.offset);
    this.offset += 2;
    return v;
  }

  uint16(field: string): number {
    this.need(2, field, 'a UINT16');
    const v = this.view.getUint16(this.offset);
    this.offset += 2;
    return v;
  }

  int32(field: string): number {
    this.need(4, field, 'an INT32');
    const v = this.view.getInt32(this.offset);
    this.offset += 4;
    return v;
  }

  /** An INT64 as a number; one outside ±(2^53 − 1) is refused rather than rounded. */
  int64(field: string): number {
    this.need(8, field, 'an INT64');
    const high = this.view.getInt32(this.offset);
    const low = this.view.getUint32(this.offset + 4);
    const v = high * 0x1_0000_0000 + low;
    if (!Number.isSafeInteger(v)) {
      this.fail(field, `INT64 ${this.view.getBigInt64(this.offset)} is outside the safe integer range`);
    }
    this.offset += 8;
    return v;
  }

  float64(field: string): number {
    this.need(8, field, 'a FLOAT64');
    const v = this.view.getFloat64(this.offset);
    this.offset += 8;
    return v;
  }

  /** A UUID as 32 lowercase hex digits in the 8-4-4-4-12 form. */
  uuid(field: string): string {
    this.need(16, field, 'a UUID');
    let hex = '';
    for (let i = 0; i < 16; i++) {
      hex += (this.bytes[this.offset + i]! + 0x100).toString(16).slice(1);
      if (i === 3 || i === 5 || i === 7 || i === 9) hex += '-';
    }
    this.offset += 16;
    return hex;
  }

  /** Kafka's UNSIGNED_VARINT: at most 5 bytes, a 32-bit value (`ByteUtils.readUnsignedVarint`). */
  uvarint(field: string): number {
    const start = this.offset;
    let value = 0;
    for (let i = 0; i < 5; i++) {
      if (this.offset >= this.end) this.fail(field, 'the UNSIGNED_VARINT ends with the frame', start);
      const b = this.bytes[this.offset++]!;
      if (i === 4 && b > 0x0f) this.fail(field, 'the UNSIGNED_VARINT is longer than 32 bits', start);
      value += (b & 0x7f) * 2 ** (7 * i);
      if ((b & 0x80) === 0) return value;
    }
    return this.fail(field, 'the UNSIGNED_VARINT is longer than 5 bytes', start);
  }

  private text(length: number, field: string): string {
    this.need(length, field, `a string of ${length} bytes`);
    const s = decodeUtf8(this.bytes, this.offset, this.offset + length);
    this.offset += length;
    return s;
  }

  private stringLength(length: number, field: string, at: number): number {
    if (length > MAX_STRING_BYTES)
      this.fail(field, `string length ${length} is over ${MAX_STRING_BYTES}`, at);
    return length;
  }

  /** STRING: INT16 length, then UTF-8; −1 (null) is refused. */
  string(field: string): string {
    const s = this.nullableString(field);
    if (s === null) this.fail(field, 'a non-nullable string is null', this.offset - 2);
    return s;
  }

  /** NULLABLE_STRING: INT16 length (−1 for null), then UTF-8. */
  nullableString(field: string): string | null {
    const at = this.offset;
    const length = this.int16(field);
    if (length === -1) return null;
    if (length < -1) this.fail(field, `string length ${length} is negative`, at);
    return this.text(length, field);
  }

  /** COMPACT_STRING: UNSIGNED_VARINT length + 1, then UTF-8; 0 (null) is refused. */
  compactString(field: string): string {
    const s = this.compactNullableString(field);
    if (s === null) this.fail(field, 'a non-nullable compact string is null', this.offset - 1);
    return s;
  }

  compactNullableString(field: string): string | null {
    const at = this.offset;
    const n = this.uvarint(field);
    if (n === 0) return null;
    return this.text(this.stringLength(n - 1, field, at), field);
  }

  private slice(length: number, field: string): Uint8Array {
    this.need(length, field, `a byte string of ${length} bytes`);
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** BYTES / RECORDS: INT32 length, then the bytes (a view into the frame); −1 (null) is refused. */
  bytesField(field: string): Uint8Array {
    const b = this.nullableBytes(field);
    if (b === null) this.fail(field, 'a non-nullable byte string is null', this.offset - 4);
    return b;
  }

  nullableBytes(field: string): Uint8Array | null {
    const at = this.offset;
    const length = this.int32(field);
    if (length === -1) return null;
    if (length < -1) this.fail(field, `byte length ${length} is negative`, at);
    return this.slice(length, field);
  }

  compactBytes(field: string): Uint8Array {
    const b = this.compactNullableBytes(field);
    if (b === null) this.fail(field, 'a non-nullable compact byte string is null', this.offset - 1);
    return b;
  }

  compactNullableBytes(field: string): Uint8Array | null {
    const n = this.uvarint(field);
    if (n === 0) return null;
    return this.slice(n - 1, field);
  }

  private checkCount(count: number, minElementBytes: number, field: string, at: number): number {
    // Every element takes at least `minElementBytes`: a count the rest of the frame cannot hold is refused
    // before anything is allocated for it (Kafka's "Tried to read N elements, but there are only M bytes").
    if (count * minElementBytes > this.end - this.offset) {
      this.fail(
        field,
        `${count} elements of at least ${minElementBytes} byte${minElementBytes === 1 ? '' : 's'} cannot fit in the ${this.end - this.offset} bytes left`,
        at,
      );
    }
    return count;
  }

  /** ARRAY: INT32 count, −1 for null (returned as −1); anything below −1 is refused. */
  arrayLength(field: string, minElementBytes: number): number {
    const at = this.offset;
    const count = this.int32(field);
    if (count === -1) return -1;
    if (count < -1) this.fail(field, `array length ${count} is negative`, at);
    return this.checkCount(count, minElementBytes, field, at);
  }

  /** COMPACT_ARRAY: UNSIGNED_VARINT count + 1, 0 for null (returned as −1). */
  compactArrayLength(field: string, minElementBytes: number): number {
    const at = this.offset;
    const n = this.uvarint(field);
    if (n === 0) return -1;
    return this.checkCount(n - 1, minElementBytes, field, at);
  }

  private elements<T>(count: number, read: (r: Reader) => T): T[] {
    const out: T[] = [];
    for (let i = 0; i < count; i++) out.push(read(this));
    return out;
  }

  /** A non-nullable ARRAY of elements read by `read`. */
  array<T>(field: string, minElementBytes: number, read: (r: Reader) => T): T[] {
    const count = this.arrayLength(field, minElementBytes);
    if (count === -1) this.fail(field, 'a non-nullable array is null', this.offset - 4);
    return this.elements(count, read);
  }

  nullableArray<T>(field: string, minElementBytes: number, read: (r: Reader) => T): T[] | null {
    const count = this.arrayLength(field, minElementBytes);
    return count === -1 ? null : this.elements(count, read);
  }

  compactArray<T>(field: string, minElementBytes: number, read: (r: Reader) => T): T[] {
    const at = this.offset;
    const count = this.compactArrayLength(field, minElementBytes);
    if (count === -1) this.fail(field, 'a non-nullable compact array is null', at);
    return this.elements(count, read);
  }

  compactNullableArray<T>(field: string, minElementBytes: number, read: (r: Reader) => T): T[] | null {
    const count = this.compactArrayLength(field, minElementBytes);
    return count === -1 ? null : this.elements(count, read);
  }

  /**
   * A tagged-field section: `read(tag, reader)` reads a tag this version knows and returns true, or returns
   * false and the field is skipped. A known field must fill exactly the size it declared.
   */
  taggedFields(field: string, read: (tag: number, r: Reader) => boolean): void {
    const count = this.uvarint(field);
    this.checkCount(count, 2, field, this.offset);
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint(field);
      const size = this.uvarint(field);
      const end = this.taggedFieldEnd(size, field);
      if (read(tag, this)) this.expectAt(end, field);
      else this.offset = end;
    }
  }

  skip(length: number, field: string): void {
    this.need(length, field, `skipping ${length} bytes`);
    this.offset += length;
  }

  /**
   * The start of a tagged field: checks that its declared size fits and returns where it must end. Tags
   * this version does not know are skipped by the caller, as Kafka keeps them as unknown tagged fields.
   */
  taggedFieldEnd(size: number, field: string): number {
    this.need(size, field, `tagged field of ${size} bytes`);
    return this.offset + size;
  }

  /** After a known tagged field: its value must have used exactly the size it declared. */
  expectAt(end: number, field: string): void {
    if (this.offset !== end) {
      this.fail(field, `the tagged field declared it ends at byte ${end}, its value ended at ${this.offset}`);
    }
  }

  /** A tagged-field section with no tag this version knows: each one is skipped whole. */
  skipTaggedFields(field: string): void {
    const count = this.uvarint(field);
    this.checkCount(count, 2, field, this.offset);
    for (let i = 0; i < count; i++) {
      this.uvarint(field);
      const size = this.uvarint(field);
      this.skip(size, field);
    }
  }
}
