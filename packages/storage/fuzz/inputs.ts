import fc from 'fast-check';
import { crc32c } from '../src/format/crc32c.js';
import { batchSize, encodeRecordBatch, RECORD_BATCH_OVERHEAD } from '../src/format/record-batch.js';
import { arbBatchFields } from '../test/arbitraries.js';

/**
 * Inputs for the fuzz targets: random bytes, and valid batches bent in the ways a
 * disk, a torn write or a hostile client bends them. Most damage is caught by the
 * CRC at once, so half of the mutants get their CRC recomputed: those reach the
 * header checks past the CRC and the record decoder with garbage inside.
 */
export interface FuzzInput {
  readonly bytes: Buffer;
  /** How the input was made, for the figures. */
  readonly how: string;
  /** The CRC was recomputed after the damage: a decode may succeed, on bytes no encoder wrote. */
  readonly crcFixed: boolean;
}

const CRC_FIELD = 17;
const ATTRIBUTES = 21;

/** A copy of `bytes` with the CRC recomputed (a copy: fast-check may hand the same value to another run). */
function fixCrc(source: Buffer): Buffer {
  const bytes = Buffer.from(source);
  if (bytes.length >= RECORD_BATCH_OVERHEAD) {
    const end = Math.min(bytes.length, 12 + Math.max(0, bytes.readInt32BE(8)));
    if (end > ATTRIBUTES) bytes.writeUInt32BE(crc32c(bytes.subarray(ATTRIBUTES, end)), CRC_FIELD);
  }
  return bytes;
}

const validBatch = arbBatchFields.map((fields) => encodeRecordBatch(fields));

/** One to four valid batches back to back, offsets increasing, as a segment holds them. */
export const validBatches = fc.array(arbBatchFields, { minLength: 1, maxLength: 4 }).map((list) => {
  let next = list[0]!.baseOffset;
  const encoded = list.map((fields) => {
    const bytes = encodeRecordBatch({
      ...fields,
      baseOffset: Math.min(next, Number.MAX_SAFE_INTEGER - 2_000_000),
    });
    next = Math.min(next, Number.MAX_SAFE_INTEGER - 2_000_000) + fields.lastOffsetDelta + 1;
    return bytes;
  });
  return Buffer.concat(encoded);
});

const int32Edge = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.constantFrom(-1, 0, 1, 7, 48, 49, 50, 60, 61, 0x7fffffff, -0x80000000, 1_048_588, 64 * 1024 * 1024),
);

type Mutation = (bytes: Buffer) => fc.Arbitrary<{ bytes: Buffer; how: string }>;

const mutations: readonly Mutation[] = [
  (b) =>
    fc.uniqueArray(fc.nat({ max: b.length * 8 - 1 }), { minLength: 1, maxLength: 8 }).map((bits) => {
      const out = Buffer.from(b);
      for (const bit of bits) out[bit >> 3]! ^= 1 << (bit & 7);
      return { bytes: out, how: 'bit flips' };
    }),
  (b) => fc.nat({ max: b.length }).map((n) => ({ bytes: Buffer.from(b.subarray(0, n)), how: 'truncated' })),
  (b) =>
    fc.tuple(fc.nat({ max: Math.max(0, b.length - 12) }), int32Edge).map(([batch, length]) => {
      const out = Buffer.from(b);
      // A batchLength at the start of some batch, or anywhere.
      const at = batch - (batch % 4);
      if (at + 12 <= out.length) out.writeInt32BE(length, at + 8);
      return { bytes: out, how: 'length field' };
    }),
  (b) =>
    int32Edge.map((count) => {
      const out = Buffer.from(b);
      if (out.length >= RECORD_BATCH_OVERHEAD) out.writeInt32BE(count, 57);
      return { bytes: out, how: 'records count' };
    }),
  (b) =>
    fc.tuple(fc.nat({ max: b.length }), fc.nat({ max: b.length }), validBatch).map(([cut, from, other]) => ({
      bytes: Buffer.concat([b.subarray(0, cut), other.subarray(Math.min(from, other.length))]),
      how: 'splice',
    })),
  (b) =>
    fc.tuple(fc.nat({ max: b.length }), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([at, junk]) => {
      const out = Buffer.from(b);
      out.set(junk.subarray(0, Math.max(0, out.length - at)), at);
      return { bytes: out, how: 'overwrite' };
    }),
  (b) =>
    fc
      .tuple(fc.nat({ max: b.length }), fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.boolean())
      .map(([at, junk, insert]) => ({
        bytes: insert
          ? Buffer.concat([b.subarray(0, at), junk, b.subarray(at)])
          : Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + junk.length))]),
        how: insert ? 'insert' : 'delete',
      })),
  (b) =>
    // A varint in the records area made long, negative or huge.
    fc
      .tuple(
        fc.nat({ max: Math.max(0, b.length - RECORD_BATCH_OVERHEAD) }),
        fc.constantFrom(
          [0xff, 0xff, 0xff, 0xff, 0x0f],
          [0x01],
          [0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
          [0xfe, 0xff, 0xff, 0xff, 0x0f],
        ),
      )
      .map(([at, varint]) => {
        const out = Buffer.from(b);
        out.set(
          varint.slice(0, Math.max(0, out.length - RECORD_BATCH_OVERHEAD - at)),
          RECORD_BATCH_OVERHEAD + at,
        );
        return { bytes: out, how: 'varint' };
      }),
];

const mutant = (source: fc.Arbitrary<Buffer>) =>
  source.chain((b) =>
    fc.tuple(
      fc.oneof(...mutations.map((m) => (b.length === 0 ? fc.constant({ bytes: b, how: 'empty' }) : m(b)))),
      fc.boolean(),
    ),
  );

/** Inputs for the batch decoder: one batch's bytes, mutated, or random bytes. */
export const batchInputs: fc.Arbitrary<FuzzInput> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 512 })
      .map((a) => ({ bytes: Buffer.from(a), how: 'random', crcFixed: false })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.uint8Array({ minLength: 61, maxLength: 300 }),
        fc.nat({ max: 400 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 8 }),
      )
      .map(([a, length, delta, count]) => {
        // Random bytes dressed as a sane v2 header (magic 2, plausible length and
        // counts, safe integers, a good CRC), so the records that follow are garbage
        // the record decoder has to refuse field by field.
        const bytes = Buffer.from(a);
        bytes.writeBigInt64BE(BigInt(a[0]!), 0);
        // A batchLength that fits in the bytes, so the decoder gets past the length checks.
        bytes.writeInt32BE(49 + (length % (a.length - 12 - 49 + 1)), 8);
        bytes[16] = 2;
        bytes.writeInt16BE(0, 21);
        bytes.writeInt32BE(delta, 23);
        bytes.writeBigInt64BE(BigInt(a[1]!), 27);
        bytes.writeBigInt64BE(BigInt(a[2]!), 35);
        bytes.writeBigInt64BE(-1n, 43);
        bytes.writeInt32BE(Math.min(count, delta + 1), 57);
        return { bytes: fixCrc(bytes), how: 'random header', crcFixed: true };
      }),
  },
  { weight: 1, arbitrary: validBatch.map((bytes) => ({ bytes, how: 'valid', crcFixed: false })) },
  {
    weight: 6,
    arbitrary: mutant(validBatch).map(([{ bytes, how }, refix]) => ({
      bytes: refix ? fixCrc(bytes) : bytes,
      how: refix ? `${how} + crc` : how,
      crcFixed: refix,
    })),
  },
);

/**
 * Inputs of megabytes, made from a few numbers (fast-check would take long to draw
 * megabytes byte by byte): a file whose every `period` bytes hold a header that
 * decodes and claims a batch of `claim` bytes with a wrong CRC (the input that made a
 * search for the next whole batch quadratic), with one real batch at a random place;
 * or one batch with a value of megabytes, cut or with a flipped bit.
 */
export const largeSegmentInputs: fc.Arbitrary<FuzzInput> = fc.oneof(
  fc
    .record({
      size: fc.integer({ min: 64 * 1024, max: 4 * 1024 * 1024 }),
      period: fc.integer({ min: 61, max: 4096 }),
      claim: fc.integer({ min: 61, max: 4 * 1024 * 1024 }),
      at: fc.nat(),
      real: validBatch,
    })
    .map(({ size, period, claim, at, real }) => {
      const bytes = Buffer.alloc(size);
      for (let p = 0; p + RECORD_BATCH_OVERHEAD <= size; p += period) {
        bytes.writeInt32BE(Math.max(49, Math.min(claim, size - p) - 12), p + 8);
        bytes[p + 16] = 2;
        bytes.writeUInt32BE((p * 2654435761) >>> 0, p + 17);
        bytes.writeBigInt64BE(-1n, p + 43);
      }
      const where = at % Math.max(1, size - real.length);
      real.copy(bytes, where);
      return { bytes, how: `plausible headers every ${period} bytes claiming ${claim}`, crcFixed: false };
    }),
  fc
    .record({
      valueBytes: fc.integer({ min: 256 * 1024, max: 3 * 1024 * 1024 }),
      cut: fc.nat(),
      bit: fc.nat(),
    })
    .map(({ valueBytes, cut, bit }) => {
      const whole = encodeRecordBatch({
        baseOffset: 0,
        partitionLeaderEpoch: 0,
        attributes: 0,
        lastOffsetDelta: 0,
        baseTimestamp: 0,
        maxTimestamp: 0,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        records: [
          {
            attributes: 0,
            timestampDelta: 0,
            offsetDelta: 0,
            key: null,
            value: Buffer.alloc(valueBytes, 7),
            headers: [],
          },
        ],
      });
      if (cut % 2 === 0)
        return { bytes: whole.subarray(0, cut % whole.length), how: 'large batch, cut', crcFixed: false };
      const bytes = Buffer.from(whole);
      bytes[(bit >> 3) % bytes.length]! ^= 1 << (bit & 7);
      return { bytes, how: 'large batch, one bit flipped', crcFixed: false };
    }),
);

/** Inputs for the segment reader: several batches back to back, mutated, or random bytes. */
/** Inputs for the segment reader: several batches back to back, mutated, or random bytes. */
export const segmentInputs: fc.Arbitrary<FuzzInput> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 1024 })
      .map((a) => ({ bytes: Buffer.from(a), how: 'random', crcFixed: false })),
  },
  { weight: 1, arbitrary: validBatches.map((bytes) => ({ bytes, how: 'valid', crcFixed: false })) },
  {
    weight: 6,
    arbitrary: mutant(validBatches).map(([{ bytes, how }, refix]) => ({
      bytes: refix ? fixCrcOfFirst(bytes) : bytes,
      how: refix ? `${how} + crc` : how,
      crcFixed: refix,
    })),
  },
);

/** Recompute the CRC of the first batch only: the later ones keep whatever the damage left. */
function fixCrcOfFirst(bytes: Buffer): Buffer {
  if (bytes.length < RECORD_BATCH_OVERHEAD) return bytes;
  const length = bytes.readInt32BE(8);
  if (length < 49 || 12 + length > bytes.length) return fixCrc(bytes);
  const size = batchSize({ batchLength: length });
  return Buffer.concat([fixCrc(Buffer.from(bytes.subarray(0, size))), bytes.subarray(size)]);
}
