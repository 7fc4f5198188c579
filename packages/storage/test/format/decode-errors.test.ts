import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  buildPlainBatch,
  DecodeError,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  MAX_OFFSET,
  readStoredBatchHeader,
  StorageError,
} from '../../src/internals.js';
import { NOW, records, thrown } from '../helpers.js';
import { kafkaJsBatch } from '../kafkajs-compressed.js';

/**
 * Every refusal of the decoder names the field and the byte, counted from where the
 * caller says the bytes start (`base`: a batch's position in its segment) plus where
 * the batch sits in the buffer (`pos`). Each case below puts the batch at pos 5 of a
 * buffer read as if it started at byte 1000 of a file, breaks one thing, and expects
 * exactly that field, byte and reason.
 */
const POS = 5;
const BASE = 1000;
const at = (field: number) => BASE + POS + field;

function placed(batch: Buffer, edit?: (b: Buffer) => void, fixCrc = true): Buffer {
  const b = Buffer.from(batch);
  edit?.(b);
  if (fixCrc) b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return Buffer.concat([Buffer.alloc(POS, 0xee), b]);
}

const decodeError = (bytes: Buffer, maxBatchBytes?: number) =>
  thrown(DecodeError, () =>
    decodeRecordBatch(bytes, POS, { base: BASE, ...(maxBatchBytes === undefined ? {} : { maxBatchBytes }) }),
  );

describe('decode errors: the field, the byte, the reason', () => {
  const good = buildPlainBatch(records(3, 'd'), 100, NOW);

  it.each([
    [
      '11 bytes: no length prefix',
      placed(good).subarray(0, POS + 11),
      'batchLength',
      at(8),
      'truncated: 11 bytes left, the length prefix needs 12',
    ],
    [
      '12 bytes: a length but no header',
      placed(good).subarray(0, POS + 12),
      'magic',
      at(16),
      'truncated: 12 bytes left, the header needs 61',
    ],
    [
      'a length below the v2 minimum',
      placed(good, (b) => b.writeInt32BE(48, 8)),
      'batchLength',
      at(8),
      '48 is below the v2 minimum of 49',
    ],
    [
      'magic 1',
      placed(good, (b) => b.writeInt8(1, 16)),
      'magic',
      at(16),
      'magic 1 is not 2 (only RecordBatch v2 is supported)',
    ],
    [
      'compression 5',
      placed(good, (b) => b.writeInt16BE(5, 21)),
      'attributes',
      at(21),
      'compression id 5 is not one Kafka defines (0-4)',
    ],
    [
      'a negative base offset',
      placed(good, (b) => b.writeBigInt64BE(-1n, 0)),
      'baseOffset',
      at(0),
      '-1 is negative',
    ],
    [
      'a base offset past 2^53',
      placed(good, (b) => b.writeBigInt64BE(2n ** 60n, 0)),
      'baseOffset',
      at(0),
      'i64 0x1000000000000000 is not a safe integer',
    ],
    [
      'a negative lastOffsetDelta',
      placed(good, (b) => b.writeInt32BE(-1, 23)),
      'lastOffsetDelta',
      at(23),
      '-1 is negative',
    ],
    [
      'a last offset past MAX_OFFSET',
      placed(good, (b) => b.writeBigInt64BE(BigInt(MAX_OFFSET - 1), 0)),
      'lastOffsetDelta',
      at(23),
      `the batch's last offset ${MAX_OFFSET - 1} + 2 is past ${MAX_OFFSET}, the largest offset klog holds exactly`,
    ],
    [
      'a negative count',
      placed(good, (b) => b.writeInt32BE(-1, 57)),
      'recordsCount',
      at(57),
      `-1 records cannot fit in ${good.length} bytes`,
    ],
    [
      'more records than the body can hold',
      placed(good, (b) => b.writeInt32BE(1000, 57)),
      'recordsCount',
      at(57),
      `1000 records cannot fit in ${good.length} bytes`,
    ],
    [
      'more records than offsets',
      placed(good, (b) => b.writeInt32BE(4, 57)),
      'recordsCount',
      at(57),
      '4 records exceed lastOffsetDelta + 1 = 3',
    ],
    [
      'a producer id below -1',
      placed(good, (b) => b.writeBigInt64BE(-2n, 43)),
      'producerId',
      at(43),
      '-2 is below -1',
    ],
    [
      'a batch longer than the buffer',
      placed(good).subarray(0, POS + good.length - 1),
      'batchLength',
      at(8),
      `truncated: batch needs ${good.length} bytes, ${good.length - 1} left`,
    ],
  ])('%s', (_, bytes, field, offset, reason) => {
    expect(decodeError(bytes)).toMatchObject({ field, offset, reason });
  });

  it('the size limit: exactly the limit decodes, one byte under it is refused by size', () => {
    const bytes = placed(good);
    expect(decodeRecordBatch(bytes, POS, { base: BASE, maxBatchBytes: good.length }).baseOffset).toBe(100);
    expect(decodeError(bytes, good.length - 1)).toMatchObject({
      field: 'batchLength',
      offset: at(8),
      reason: `batch of ${good.length} bytes exceeds the limit of ${good.length - 1}`,
    });
  });

  it('readStoredBatchHeader reads the header where the batch is, as stored', () => {
    const bytes = placed(good, (b) => b.writeBigInt64BE(-5n, 43));
    expect(readStoredBatchHeader(bytes, POS)).toMatchObject({
      baseOffset: 100n,
      batchLength: good.length - 12,
      magic: 2,
      producerId: -5n,
      recordsCount: 3,
    });
  });

  it('the last offset may be MAX_OFFSET exactly', () => {
    const bytes = placed(good, (b) => b.writeBigInt64BE(BigInt(MAX_OFFSET - 2), 0));
    expect(decodeBatchHeader(bytes, POS).baseOffset).toBe(MAX_OFFSET - 2);
  });

  it('a CRC that does not match names the crc field; skipping the check (for tools) decodes the batch', () => {
    const bytes = placed(good, (b) => b.writeUInt8(b[b.length - 2]! ^ 1, b.length - 2), false);
    const error = decodeError(bytes);
    expect(error).toMatchObject({ field: 'crc', offset: at(17) });
    expect(error.reason).toMatch(/^stored 0x[0-9a-f]{8} but the bytes give 0x[0-9a-f]{8}$/);
    expect(decodeRecordBatch(bytes, POS, { verifyCrc: false }).records).toHaveLength(3);
  });

  it('inside the records: the byte in the file, and what is left over', () => {
    // The first record's length varint claims one byte more: the second record starts one byte late.
    const overlong = placed(good, (b) => b.writeUInt8(b[61]! + 2, 61));
    const error = decodeError(overlong);
    expect(error.offset).toBeGreaterThanOrEqual(at(61));
    expect(error.offset).toBeLessThan(BASE + POS + good.length);
    // Three records and two spare bytes (the batch says it is longer than its records).
    const spare = Buffer.concat([good.subarray(0, good.length), Buffer.alloc(2)]);
    spare.writeInt32BE(good.length + 2 - 12, 8);
    const error2 = decodeError(placed(spare));
    expect(error2).toMatchObject({
      field: 'records',
      offset: at(good.length),
      reason: '2 bytes left after 3 records',
    });
    // Without a base the same byte is counted from the buffer.
    const noBase = thrown(DecodeError, () => decodeRecordBatch(placed(spare), POS));
    expect(noBase.offset).toBe(POS + good.length);
  });

  it('a compressed batch: the count is checked against what it decompresses to, not its compressed size', async () => {
    const many = Array.from({ length: 2000 }, () => ({ key: null, value: Buffer.from('x') }));
    const gzip = await kafkaJsBatch('gzip', many);
    expect(gzip.length).toBeLessThan(2000 * 7);
    expect(decodeRecordBatch(gzip).records).toHaveLength(2000);
    // Claiming more records than the decompressed bytes can hold is refused before reading them.
    const claimed = Buffer.from(gzip);
    claimed.writeInt32BE(4999, 23); // lastOffsetDelta, so that the count below is allowed by the header
    claimed.writeInt32BE(5000, 57);
    claimed.writeUInt32BE(crc32c(claimed.subarray(21)), 17);
    const error = thrown(DecodeError, () => decodeRecordBatch(claimed, 0, { base: 50 }));
    expect(error).toMatchObject({ field: 'recordsCount', offset: 50 + 57 });
    expect(error.reason).toMatch(/^5000 records cannot fit in the \d+ bytes gzip decompressed$/);
  });

  it('the encoder refuses attributes that name a codec, by name', () => {
    const error = thrown(StorageError, () =>
      encodeRecordBatch({
        baseOffset: 0,
        partitionLeaderEpoch: 0,
        attributes: 1,
        lastOffsetDelta: 0,
        baseTimestamp: NOW,
        maxTimestamp: NOW,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        records: [],
      }),
    );
    expect(error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(error.message).toBe(
      'cannot encode a batch with compression gzip: klog writes records uncompressed',
    );
  });
});
