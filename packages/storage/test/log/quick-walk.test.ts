import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBatchHeader,
  encodeRecordBatch,
  RECORD_BATCH_OVERHEAD,
  type Record,
} from '../../src/internals.js';
import { carefulWalk } from '../../src/log/log-validator.js';
import { quickWalk } from '../../src/log/quick-walk.js';
import { arbBatchFields } from '../arbitraries.js';
import { LONG_TEST, NOW } from '../helpers.js';

/** What the careful walk says of the records of `bytes`: their largest timestamp, or its refusal. */
function careful(bytes: Buffer): number | string {
  const header = decodeBatchHeader(bytes);
  try {
    return carefulWalk(bytes, RECORD_BATCH_OVERHEAD, bytes.length, header, '');
  } catch (error) {
    return (error as Error).message;
  }
}

function quick(bytes: Buffer): number {
  const header = decodeBatchHeader(bytes);
  return quickWalk(bytes, RECORD_BATCH_OVERHEAD, bytes.length, header.baseTimestamp, header.recordsCount);
}

/** A batch as kcat sends it: `n` records of `size` bytes, no key, timestamps a few ms apart. */
function clientBatch(n: number, size: number, headers = 0): Buffer {
  const records: Record[] = Array.from({ length: n }, (_, i) => ({
    attributes: 0,
    timestampDelta: Math.floor(i / 1000),
    offsetDelta: i,
    key: null,
    value: Buffer.alloc(size, 0x61),
    headers: Array.from({ length: headers }, (_, h) => ({
      key: `h${h}`,
      value: h % 2 ? null : Buffer.from('v'),
    })),
  }));
  return encodeRecordBatch({
    baseOffset: 0,
    partitionLeaderEpoch: -1,
    attributes: 0,
    lastOffsetDelta: n - 1,
    baseTimestamp: NOW,
    maxTimestamp: NOW + Math.floor((n - 1) / 1000),
    producerId: 7,
    producerEpoch: 0,
    baseSequence: 0,
    records,
  });
}

describe('quickWalk: the careful walk for the batches clients send', () => {
  it('decides the batches clients send, with the careful walk’s largest timestamp', () => {
    // 9,000 records of 100 B is a 1 MB Produce: offset deltas of one, two and three bytes.
    for (const bytes of [
      clientBatch(1, 100),
      clientBatch(9_000, 100),
      clientBatch(1_000, 1024),
      clientBatch(50, 10, 3),
    ]) {
      const max = quick(bytes);
      expect(Number.isNaN(max)).toBe(false);
      expect(max).toBe(careful(bytes));
    }
  });

  it('leaves to the careful walk what it cannot decide: a timestamp delta past four bytes', () => {
    const bytes = encodeRecordBatch({
      baseOffset: 0,
      partitionLeaderEpoch: -1,
      attributes: 0,
      lastOffsetDelta: 0,
      baseTimestamp: NOW,
      maxTimestamp: NOW + 2 ** 40,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: [
        { attributes: 0, timestampDelta: 2 ** 40, offsetDelta: 0, key: null, value: null, headers: [] },
      ],
    });
    expect(quick(bytes)).toBeNaN();
    expect(careful(bytes)).toBe(NOW + 2 ** 40);
  });

  it('agrees with the careful walk on every batch it decides, also damaged ones', LONG_TEST, () => {
    fc.assert(
      fc.property(
        arbBatchFields,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        (fields, damage) => {
          const bytes = encodeRecordBatch({ ...fields, attributes: 0 });
          const span = bytes.length - RECORD_BATCH_OVERHEAD;
          for (const [at, value] of damage) if (span > 0) bytes[RECORD_BATCH_OVERHEAD + (at % span)] = value;
          const max = quick(bytes);
          // Undecided is always safe; a decision must be the careful walk's, never an acceptance it refuses.
          if (!Number.isNaN(max)) expect(careful(bytes)).toBe(max);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('refuses nothing the careful walk accepts among the generated batches, undamaged', () => {
    fc.assert(
      fc.property(arbBatchFields, (fields) => {
        const bytes = encodeRecordBatch({ ...fields, attributes: 0 });
        const max = quick(bytes);
        const expected = careful(bytes);
        if (Number.isNaN(max)) {
          // Only timestamps past a four-byte delta are left undecided in well-formed batches.
          expect(fields.records.some((r) => Math.abs(r.timestampDelta) >= 2 ** 27)).toBe(true);
        } else expect(max).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
  });
});
