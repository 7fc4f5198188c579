import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BY_REFERENCE_BYTES,
  ProtocolDecodeError,
  ProtocolEncodeError,
  Reader,
  Writer,
} from '../src/index.js';

const bytes = (...b: number[]) => new Uint8Array(b);
const written = (f: (w: Writer) => void) => {
  const w = new Writer(4);
  f(w);
  return w.toBytes();
};
function decodeError(f: () => unknown): ProtocolDecodeError {
  try {
    f();
  } catch (error) {
    if (error instanceof ProtocolDecodeError) return error;
    throw error;
  }
  throw new Error('no ProtocolDecodeError');
}

describe('primitives, by the protocol guide', () => {
  it('INT8/16/32 big-endian, round trip over their whole range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -128, max: 127 }),
        fc.integer({ min: -32768, max: 32767 }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        (a, b, c) => {
          const out = written((w) => w.int8(a, 'a').int16(b, 'b').int32(c, 'c'));
          const r = new Reader(out);
          expect([r.int8('a'), r.int16('b'), r.int32('c')]).toEqual([a, b, c]);
        },
      ),
    );
    expect([...written((w) => w.int32(258, 'x'))]).toEqual([0, 0, 1, 2]);
  });

  it('INT64 as a number: exact over the safe range, two’s complement on the wire', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        const out = written((w) => w.int64(n, 'n'));
        expect(Buffer.from(out).readBigInt64BE(0)).toBe(BigInt(n));
        expect(new Reader(out).int64('n')).toBe(n);
      }),
    );
    expect(new Reader(written((w) => w.int64(-1, 'x'))).int64('x')).toBe(-1);
    expect([...written((w) => w.int64(-2, 'x'))]).toEqual([255, 255, 255, 255, 255, 255, 255, 254]);
  });

  it('an INT64 beyond 2^53 − 1 is refused, not rounded', () => {
    const big = Buffer.alloc(8);
    big.writeBigInt64BE(2n ** 60n);
    const e = decodeError(() => new Reader(big).int64('fetchOffset'));
    expect(e.message).toBe(
      'fetchOffset at byte 0: INT64 1152921504606846976 is outside the safe integer range',
    );
    expect(() => new Writer().int64(2 ** 53, 'x')).toThrow(ProtocolEncodeError);
    expect(() => new Writer().int64(1.5, 'x')).toThrow(ProtocolEncodeError);
  });

  it('values out of their type are refused when written, naming the field', () => {
    expect(() => new Writer().int16(40000, 'errorCode')).toThrow('errorCode: 40000 is not an INT16');
    expect(() => new Writer().int32(2 ** 31, 'x')).toThrow(ProtocolEncodeError);
    expect(() => new Writer().int8(-129, 'x')).toThrow(ProtocolEncodeError);
    expect(() => new Writer().uvarint(-1, 'x')).toThrow(ProtocolEncodeError);
  });

  it('UNSIGNED_VARINT: the bytes Kafka writes, and no more than 32 bits read', () => {
    expect([...written((w) => w.uvarint(0, 'x'))]).toEqual([0]);
    expect([...written((w) => w.uvarint(127, 'x'))]).toEqual([0x7f]);
    expect([...written((w) => w.uvarint(128, 'x'))]).toEqual([0x80, 0x01]);
    expect([...written((w) => w.uvarint(300, 'x'))]).toEqual([0xac, 0x02]);
    expect([...written((w) => w.uvarint(2 ** 32 - 1, 'x'))]).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        expect(new Reader(written((w) => w.uvarint(n, 'x'))).uvarint('x')).toBe(n);
      }),
    );
    expect(decodeError(() => new Reader(bytes(0xff, 0xff, 0xff, 0xff, 0x1f)).uvarint('n')).reason).toBe(
      'the UNSIGNED_VARINT is longer than 32 bits',
    );
    expect(decodeError(() => new Reader(bytes(0x80, 0x80)).uvarint('n')).reason).toBe(
      'the UNSIGNED_VARINT ends with the frame',
    );
  });

  it('strings: INT16 and compact lengths, null, UTF-8 (Thai), and the 32767-byte limit', () => {
    const out = written((w) =>
      w
        .string('orders', 'a')
        .nullableString(null, 'b')
        .compactString('คาฟคา', 'c')
        .compactNullableString(null, 'd')
        .string('', 'e'),
    );
    const r = new Reader(out);
    expect([
      r.string('a'),
      r.nullableString('b'),
      r.compactString('c'),
      r.compactNullableString('d'),
      r.string('e'),
    ]).toEqual(['orders', null, 'คาฟคา', null, '']);
    expect(r.remaining).toBe(0);
    expect([...written((w) => w.compactString('ab', 'x'))]).toEqual([3, 97, 98]);
    expect(() => new Writer().string('x'.repeat(0x8000), 'topic')).toThrow(
      'topic: string of 32768 bytes is over 32767',
    );
    expect(() => new Writer().string(null, 'name')).toThrow(
      'name: null in a field that is not nullable in this version',
    );
    expect(decodeError(() => new Reader(bytes(0xff, 0xff)).string('name')).reason).toBe(
      'a non-nullable string is null',
    );
    expect(decodeError(() => new Reader(bytes(0xff, 0xfe)).nullableString('name')).reason).toBe(
      'string length -2 is negative',
    );
    expect(decodeError(() => new Reader(bytes(0, 5, 97)).string('name')).reason).toBe(
      'a string of 5 bytes needs 5 bytes, only 1 left',
    );
  });

  it('any string round-trips in both forms', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        const wellFormed = Buffer.from(s, 'utf8').toString('utf8');
        const r = new Reader(written((w) => w.string(s, 'a').compactString(s, 'b')));
        expect([r.string('a'), r.compactString('b')]).toEqual([wellFormed, wellFormed]);
      }),
    );
  });

  it('bytes: views into the frame, not copies; large ones written by reference', () => {
    const frame = written((w) => w.nullableBytes(bytes(1, 2, 3), 'r').compactNullableBytes(null, 'n'));
    const r = new Reader(frame);
    const b = r.nullableBytes('r')!;
    expect([...b]).toEqual([1, 2, 3]);
    expect(b.buffer).toBe(frame.buffer);
    expect(r.compactNullableBytes('n')).toBeNull();
    const big = new Uint8Array(BY_REFERENCE_BYTES);
    const w = new Writer();
    w.int32(1, 'before').nullableBytes(big, 'records').int32(2, 'after');
    const chunks = w.finish();
    expect(chunks).toHaveLength(3);
    expect(chunks[1]).toBe(big);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(8 + 4 + BY_REFERENCE_BYTES);
  });

  it('UUID in the 8-4-4-4-12 form', () => {
    const id = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    const out = written((w) => w.uuid(id, 'id'));
    expect(out.length).toBe(16);
    expect(new Reader(out).uuid('id')).toBe(id);
    expect(() => new Writer().uuid('nope', 'id')).toThrow(ProtocolEncodeError);
  });

  it('an array count the frame cannot hold is refused before anything is allocated', () => {
    const e = decodeError(() =>
      new Reader(bytes(0x7f, 0xff, 0xff, 0xff, 0, 0)).array('topics', 6, (r) => r.int32('x')),
    );
    expect(e.message).toBe(
      'topics at byte 0: 2147483647 elements of at least 6 bytes cannot fit in the 2 bytes left',
    );
    expect(
      decodeError(() => new Reader(bytes(0xff, 0xff, 0xff, 0xfe)).array('t', 1, (r) => r.int8('x'))).reason,
    ).toBe('array length -2 is negative');
    expect(
      decodeError(() => new Reader(bytes(0xff, 0xff, 0xff, 0xff)).array('t', 1, (r) => r.int8('x'))).reason,
    ).toBe('a non-nullable array is null');
    expect(new Reader(bytes(0xff, 0xff, 0xff, 0xff)).nullableArray('t', 1, (r) => r.int8('x'))).toBeNull();
    expect(new Reader(bytes(0)).compactNullableArray('t', 1, (r) => r.int8('x'))).toBeNull();
    expect(new Reader(bytes(3, 7, 8)).compactArray('t', 1, (r) => r.int8('x'))).toEqual([7, 8]);
  });

  it('tagged fields: unknown ones skipped whole, a known one must fill its declared size', () => {
    // two tags: 5 (2 bytes, unknown) and 0 (an INT8 declared as 2 bytes)
    const frame = bytes(2, 5, 2, 0xaa, 0xbb, 0, 2, 7, 0);
    const seen: number[] = [];
    const e = decodeError(() =>
      new Reader(frame).taggedFields('_tagged_fields', (tag, r) => {
        seen.push(tag);
        if (tag !== 0) return false;
        r.int8('x');
        return true;
      }),
    );
    expect(seen).toEqual([5, 0]);
    expect(e.reason).toBe('the tagged field declared it ends at byte 9, its value ended at 8');
    const r = new Reader(bytes(1, 9, 3, 1, 2, 3, 42));
    r.skipTaggedFields('_tagged_fields');
    expect(r.int8('next')).toBe(42);
  });

  it('every read past the end names the field and the byte', () => {
    const e = decodeError(() => new Reader(bytes(0, 0, 0)).int32('timeoutMs'));
    expect(e.message).toBe('timeoutMs at byte 0: an INT32 needs 4 bytes, only 3 left');
    expect(e.code).toBe('INVALID_REQUEST');
  });
});
