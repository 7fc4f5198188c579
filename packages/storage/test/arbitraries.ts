import fc from 'fast-check';
import type { Record } from '../src/internals.js';

const bytes = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
const arbRecord = fc.record({
  attributes: fc.constant(0),
  timestampDelta: fc.oneof(
    fc.integer({ min: -1000, max: 1000 }),
    fc.maxSafeInteger().map((n) => Math.floor(n / 4)),
  ),
  key: fc.option(bytes, { nil: null }),
  value: fc.option(bytes, { nil: null }),
  headers: fc.array(
    fc.record({ key: fc.string({ maxLength: 8, unit: 'grapheme' }), value: fc.option(bytes, { nil: null }) }),
    { maxLength: 3 },
  ),
});

export const arbBatchFields = fc
  .record({
    baseOffset: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 1_000_000 }),
    partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    attributes: fc.constantFrom(0, 0x08, 0x10),
    baseTimestamp: fc.integer({ min: -1, max: 2 ** 45 }),
    producerId: fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }),
    producerEpoch: fc.integer({ min: -1, max: 32767 }),
    baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    records: fc.array(arbRecord, { maxLength: 12 }),
    extraDelta: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ records, extraDelta, ...rest }) => {
    const withOffsets: Record[] = records.map((r, i) => ({ ...r, offsetDelta: i }));
    return {
      ...rest,
      maxTimestamp: rest.baseTimestamp + 10,
      lastOffsetDelta: Math.max(0, withOffsets.length - 1) + extraDelta,
      records: withOffsets,
    };
  });
