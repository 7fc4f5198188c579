import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Cursor,
  readVarint,
  readVarlong,
  sizeOfVarint,
  sizeOfVarlong,
  writeVarint,
  writeVarlong,
} from '../../src/format/varint.js';
import { DecodeError } from '../../src/internals.js';

/** Kafka's `ByteUtils.writeVarlong`, written plainly over BigInt: zigzag, then 7 bits a byte, low first. */
function kafkaVarlong(value: number): number[] {
  let v = (BigInt(value) << 1n) ^ (BigInt(value) >> 63n);
  v = BigInt.asUintN(64, v);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** Values at every byte-count boundary of the zigzag form, both signs, and the int32 / fast-path edges. */
const EDGES = [
  0,
  1,
  -1,
  63,
  -64,
  64,
  -65,
  8191,
  -8192,
  8192,
  -8193,
  2 ** 20,
  -(2 ** 20),
  2 ** 27 - 1,
  -(2 ** 27),
  2 ** 30 - 1,
  -(2 ** 30),
  2 ** 30,
  -(2 ** 30) - 1,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 34 - 1,
  -(2 ** 34),
  2 ** 34,
  -(2 ** 34) - 1,
  2 ** 41,
  -(2 ** 41) - 1,
  2 ** 52 - 1,
  -(2 ** 52),
  -(2 ** 52) + 1,
];
const INT32_EDGES = EDGES.filter((v) => v >= -(2 ** 31) && v < 2 ** 31);

const read = (reader: typeof readVarint, bytes: number[], end = bytes.length) => {
  const cur: Cursor = { value: 0, pos: 0 };
  reader(Uint8Array.from(bytes), cur, end, 'field');
  return cur;
};

describe('zigzag varints, as Kafka writes them', () => {
  it('varlongs: the bytes Kafka writes, the size said, and the value read back, at every boundary', () => {
    for (const value of EDGES) {
      const buf = new Uint8Array(10);
      const end = writeVarlong(buf, 0, value);
      expect([...buf.subarray(0, end)], `${value}`).toEqual(kafkaVarlong(value));
      expect(sizeOfVarlong(value), `${value}`).toBe(end);
      expect(read(readVarlong, kafkaVarlong(value)), `${value}`).toEqual({ value, pos: end });
    }
  });

  it('varints: the same for int32 values, read past the one-byte shortcut when longer', () => {
    for (const value of INT32_EDGES) {
      const buf = new Uint8Array(5);
      const end = writeVarint(buf, 0, value);
      expect([...buf.subarray(0, end)], `${value}`).toEqual(kafkaVarlong(value));
      expect(sizeOfVarint(value), `${value}`).toBe(end);
      expect(read(readVarint, kafkaVarlong(value)), `${value}`).toEqual({ value, pos: end });
    }
  });

  it('round-trips every varlong whose zigzag form is below 2^53, and any int32 varint', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 - 1 }), (value) => {
        const bytes = kafkaVarlong(value);
        expect(sizeOfVarlong(value)).toBe(bytes.length);
        expect(read(readVarlong, bytes).value).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.integer(), (value) => {
        const bytes = kafkaVarlong(value);
        expect(sizeOfVarint(value)).toBe(bytes.length);
        expect(read(readVarint, bytes).value).toBe(value);
      }),
    );
  });

  it('never reads at or past the end of its record, even for a one-byte varint', () => {
    for (const reader of [readVarint, readVarlong]) {
      const name = reader === readVarint ? 'varint' : 'varlong';
      // A whole one-byte value lies in the buffer, but the record ends before it.
      expect(() => read(reader, [0x02], 0)).toThrow(new RegExp(`${name} runs past the end of its record`));
      // A longer one is cut by the record's end.
      expect(() => read(reader, [0x80, 0x80, 0x01], 2)).toThrow(DecodeError);
      expect(read(reader, [0x80, 0x80, 0x01], 3)).toEqual({ value: 8192, pos: 3 });
    }
  });

  it('refuses what does not fit: a 5th varint byte over 0x0f, an 11-byte varlong, a varlong past 2^53', () => {
    expect(() => read(readVarint, [0xff, 0xff, 0xff, 0xff, 0x10])).toThrow(/varint does not fit in 32 bits/);
    expect(read(readVarint, [0xfe, 0xff, 0xff, 0xff, 0x0f]).value).toBe(2 ** 31 - 1);
    const eleven = [...Array(10).fill(0x80), 0x00];
    expect(() => read(readVarlong, eleven)).toThrow(/varlong longer than 10 bytes/);
    expect(read(readVarlong, [...Array(9).fill(0x80), 0x00]).value).toBe(0);
    // The value 2^52 - 1 (zigzag 2^53 - 2) still reads; 2^52 (zigzag 2^53) and zigzag 2^53 + 2 do not.
    expect(read(readVarlong, kafkaVarlong(2 ** 52 - 1)).value).toBe(2 ** 52 - 1);
    expect(() => read(readVarlong, kafkaVarlong(2 ** 52))).toThrow(/outside the safe integer range/);
    expect(() => read(readVarlong, [0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10])).toThrow(
      /varlong is outside the safe integer range/,
    );
    for (const bytes of [[0xff, 0xff, 0xff, 0xff, 0x10], eleven]) {
      const error = (() => {
        try {
          read(bytes === eleven ? readVarlong : readVarint, bytes);
        } catch (e) {
          return e as DecodeError;
        }
        throw new Error('no error');
      })();
      expect(error).toMatchObject({ field: 'field', offset: 0 });
    }
  });
});
