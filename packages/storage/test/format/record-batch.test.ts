import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildPlainBatch,
  buildProducerBatch,
  crc32c,
  DecodeError,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  RECORD_BATCH_OVERHEAD,
  type Record,
} from '../../src/internals.js';
import { arbBatchFields } from '../arbitraries.js';
import { NOW, records, thrown } from '../helpers.js';

const decodeError = (fn: () => unknown) => thrown(DecodeError, fn);

describe('RecordBatch v2 layout', () => {
  const batch = buildProducerBatch(records(3), 42, NOW, {
    producerId: 1000,
    producerEpoch: 2,
    baseSequence: 7,
  });

  it('writes the 61-byte big-endian header at Kafka offsets', () => {
    expect(batch.readBigInt64BE(0)).toBe(42n);
    expect(batch.readInt32BE(8)).toBe(batch.length - 12);
    expect(batch.readInt32BE(12)).toBe(0);
    expect(batch.readInt8(16)).toBe(2);
    expect(batch.readUInt32BE(17)).toBe(crc32c(batch.subarray(21)));
    expect(batch.readInt16BE(21)).toBe(0);
    expect(batch.readInt32BE(23)).toBe(2);
    expect(batch.readBigInt64BE(27)).toBe(BigInt(NOW));
    expect(batch.readBigInt64BE(35)).toBe(BigInt(NOW));
    expect(batch.readBigInt64BE(43)).toBe(1000n);
    expect(batch.readInt16BE(51)).toBe(2);
    expect(batch.readInt32BE(53)).toBe(7);
    expect(batch.readInt32BE(57)).toBe(3);
  });

  it('encodes a record with zigzag varints, byte for byte', () => {
    const one = buildPlainBatch([{ key: Buffer.from('k'), value: Buffer.from('vv') }], 0, NOW);
    // body 9 bytes → zigzag 18; attributes 0; tsDelta 0; offsetDelta 0; key len 1 → 2, 'k'; value len 2 → 4, 'vv'; 0 headers.
    expect([...one.subarray(RECORD_BATCH_OVERHEAD)]).toEqual([18, 0, 0, 0, 2, 0x6b, 4, 0x76, 0x76, 0]);
    expect(one.readBigInt64BE(43)).toBe(-1n);
    expect(one.readInt16BE(51)).toBe(-1);
    expect(one.readInt32BE(53)).toBe(-1);
  });

  it('decodes what it encodes, header and records', () => {
    const decoded = decodeRecordBatch(batch);
    expect(decoded).toMatchObject({
      baseOffset: 42,
      magic: 2,
      lastOffsetDelta: 2,
      producerId: 1000,
      producerEpoch: 2,
      baseSequence: 7,
      recordsCount: 3,
    });
    expect(decoded.records.map((r) => Buffer.from(r.value!).toString())).toEqual([
      'r-value-0',
      'r-value-1',
      'r-value-2',
    ]);
    expect(decoded.records.map((r) => r.offsetDelta)).toEqual([0, 1, 2]);
  });
});

describe('decoder rejections name the field and the byte', () => {
  const good = buildProducerBatch(records(2), 0, NOW, { producerId: 5, producerEpoch: 0, baseSequence: 0 });

  it('bad magic', () => {
    const bad = Buffer.from(good);
    bad[16] = 1;
    const error = decodeError(() => decodeRecordBatch(bad));
    expect(error.field).toBe('magic');
    expect(error.offset).toBe(16);
  });

  it('bad CRC, at any flipped byte after the CRC field', () => {
    for (let i = 21; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x01;
      const error = decodeError(() => decodeRecordBatch(bad));
      expect(['crc', 'attributes', 'recordsCount', 'producerId', 'baseTimestamp', 'maxTimestamp']).toContain(
        error.field,
      );
    }
    const bad = Buffer.from(good);
    bad[good.length - 1]! ^= 0xff;
    expect(decodeError(() => decodeRecordBatch(bad))).toMatchObject({ field: 'crc', offset: 17 });
  });

  it('truncated input, at every length', () => {
    for (let n = 0; n < good.length; n++) {
      const error = decodeError(() => decodeRecordBatch(good.subarray(0, n)));
      expect(error.message).toMatch(/truncated/);
    }
  });

  it('oversized batches', () => {
    const error = decodeError(() => decodeRecordBatch(good, 0, { maxBatchBytes: 64 }));
    expect(error.field).toBe('batchLength');
    expect(error.message).toMatch(/exceeds the limit of 64/);
    const huge = Buffer.from(good);
    huge.writeInt32BE(0x7fffffff, 8);
    expect(decodeError(() => decodeRecordBatch(huge)).field).toBe('batchLength');
    const tiny = Buffer.from(good);
    tiny.writeInt32BE(10, 8);
    expect(decodeError(() => decodeRecordBatch(tiny)).message).toMatch(/below the v2 minimum/);
  });

  it('a compression id Kafka does not define (5-7)', () => {
    for (const codec of [5, 6, 7]) {
      const bad = Buffer.from(good);
      bad.writeInt16BE(codec, 21);
      bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
      const error = decodeError(() => decodeRecordBatch(bad));
      expect(error).toMatchObject({ field: 'attributes', offset: 21 });
      expect(error.reason).toBe(`compression id ${codec} is not one Kafka defines (0-4)`);
    }
  });

  it('records that are not what the named codec wrote', () => {
    for (const [codec, name] of [
      [1, 'gzip'],
      [2, 'snappy'],
      [3, 'lz4'],
      [4, 'zstd'],
    ] as const) {
      const bad = Buffer.from(good);
      bad.writeInt16BE(codec, 21);
      bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
      const error = decodeError(() => decodeRecordBatch(bad));
      expect(error.field).toBe('records');
      expect(error.offset).toBeGreaterThanOrEqual(RECORD_BATCH_OVERHEAD);
      expect(error.reason).toMatch(new RegExp(`^${name}: `));
    }
  });

  it('the encoder refuses attributes naming a codec, which it would not honour', () => {
    const fields = decodeRecordBatch(good);
    expect(() => encodeRecordBatch({ ...fields, attributes: 1 })).toThrow(
      /cannot encode a batch with compression gzip: klog writes records uncompressed/,
    );
  });

  it('a record count the bytes cannot hold is refused before allocating', () => {
    const bad = Buffer.from(good);
    bad.writeInt32BE(1_000_000_000, 57);
    expect(decodeError(() => decodeRecordBatch(bad, 0, { verifyCrc: false })).field).toBe('recordsCount');
    bad.writeInt32BE(-1, 57);
    expect(decodeError(() => decodeRecordBatch(bad, 0, { verifyCrc: false })).field).toBe('recordsCount');
  });

  it('records that do not fill the batch exactly', () => {
    const fewer = Buffer.from(good);
    fewer.writeInt32BE(1, 57);
    fewer.writeUInt32BE(crc32c(fewer.subarray(21)), 17);
    expect(decodeError(() => decodeRecordBatch(fewer))).toMatchObject({ field: 'records' });
  });

  it('a record length that runs past the batch', () => {
    const bad = Buffer.from(good);
    bad[RECORD_BATCH_OVERHEAD] = 0x7e; // zigzag 63: longer than what is left
    bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
    const error = decodeError(() => decodeRecordBatch(bad));
    expect(error).toMatchObject({ field: 'records[0].length', offset: RECORD_BATCH_OVERHEAD });
  });

  it('offsets in errors are relative to the given base', () => {
    const bad = Buffer.from(good);
    bad[16] = 0;
    expect(decodeError(() => decodeBatchHeader(bad, 0, { base: 1000 })).offset).toBe(1016);
  });

  it('i64 fields outside the safe integer range are refused, not rounded', () => {
    const bad = Buffer.from(good);
    bad.writeBigInt64BE(2n ** 60n, 43);
    bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
    expect(decodeError(() => decodeRecordBatch(bad))).toMatchObject({ field: 'producerId', offset: 43 });
  });
});

describe('property: decode ∘ encode is the identity', () => {
  it('on random batches', () => {
    fc.assert(
      fc.property(arbBatchFields, (fields) => {
        const encoded = encodeRecordBatch(fields);
        const decoded = decodeRecordBatch(encoded);
        const { records: got, batchLength, magic, crc, recordsCount, ...header } = decoded;
        const { records: want, ...wantHeader } = fields;
        expect(header).toEqual(wantHeader);
        expect(magic).toBe(2);
        expect(batchLength).toBe(encoded.length - 12);
        expect(recordsCount).toBe(want.length);
        expect(crc).toBe(crc32c(encoded.subarray(21)));
        expect(got.map(plain)).toEqual(want.map(plain));
        // And encoding what was decoded gives the same bytes.
        expect(encodeRecordBatch(decoded).equals(encoded)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

function plain(r: Record) {
  const b = (x: Uint8Array | null) => (x === null ? null : Buffer.from(x).toString('hex'));
  return {
    attributes: r.attributes,
    timestampDelta: r.timestampDelta,
    offsetDelta: r.offsetDelta,
    key: b(r.key),
    value: b(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: b(h.value) })),
  };
}

describe('decoder rejections inside a record name the record and its field', () => {
  const withHeaders: Record[] = [0, 1].map((i) => ({
    attributes: 0,
    timestampDelta: i,
    offsetDelta: i,
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [{ key: 'trace', value: Buffer.from('t') }],
  }));
  const fields = {
    baseOffset: 0,
    partitionLeaderEpoch: 0,
    attributes: 0,
    lastOffsetDelta: 1,
    baseTimestamp: NOW,
    maxTimestamp: NOW + 1,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    records: withHeaders,
  };
  const good = encodeRecordBatch(fields);
  // Record 1 starts after record 0: its length varint, then its body.
  const second = RECORD_BATCH_OVERHEAD + 1 + (good[RECORD_BATCH_OVERHEAD]! >> 1);
  const resealed = (bytes: Buffer) => {
    bytes.writeUInt32BE(crc32c(bytes.subarray(21)), 17);
    return bytes;
  };

  it('a null header key in the second record', () => {
    const bad = Buffer.from(good);
    // Body of record 1: attributes, tsDelta, offsetDelta, key (len + 2), value (len + 2), header count, header key length.
    const keyLengthAt = second + 1 + 1 + 1 + 1 + 3 + 3 + 1;
    expect(bad[keyLengthAt]).toBe(10); // zigzag 5: 'trace'
    bad[keyLengthAt] = 1; // zigzag -1: null
    const error = decodeError(() => decodeRecordBatch(resealed(bad)));
    expect(error).toMatchObject({ field: 'records[1].headers[0].key', offset: keyLengthAt });
    expect(error.reason).toBe('header key is null');
  });

  it('a header key that is not UTF-8', () => {
    const bad = Buffer.from(good);
    const keyAt = second + 1 + 1 + 1 + 1 + 3 + 3 + 1;
    bad[keyAt + 1] = 0xff;
    const error = decodeError(() => decodeRecordBatch(resealed(bad)));
    expect(error).toMatchObject({
      field: 'records[1].headers[0].key',
      reason: 'header key is not valid UTF-8',
    });
  });

  it('a record whose fields end before its declared length', () => {
    const bad = Buffer.from(good);
    bad[second + 1 + 1 + 1 + 1 + 3 + 3] = 0; // header count 1 → 0: the header's bytes are left over
    const error = decodeError(() => decodeRecordBatch(resealed(bad)));
    expect(error.field).toBe('records[1]');
    expect(error.reason).toBe('record declares 18 bytes but its fields end 8 bytes early');
  });

  it('keys and values are views of the input bytes, not copies', () => {
    const decoded = decodeRecordBatch(good);
    const value = decoded.records[1]!.value!;
    expect(value.buffer).toBe(good.buffer);
    expect(Buffer.from(value).toString()).toBe('v1');
  });

  it('property: any flipped byte in the records, CRC resealed, decodes or fails with a DecodeError', () => {
    fc.assert(
      fc.property(
        arbBatchFields.filter((f) => f.records.length > 0),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (f, at, flip) => {
          const bytes = Buffer.from(encodeRecordBatch(f));
          const i = RECORD_BATCH_OVERHEAD + (at % (bytes.length - RECORD_BATCH_OVERHEAD));
          bytes[i]! ^= flip;
          try {
            decodeRecordBatch(resealed(bytes));
          } catch (error) {
            expect(error).toBeInstanceOf(DecodeError);
            expect((error as DecodeError).field).toMatch(/^records/);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
