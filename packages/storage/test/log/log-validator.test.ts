import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  crc32c,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  Partition,
  RECORD_BATCH_OVERHEAD,
  type Record,
  StorageError,
  validateRecords,
} from '../../src/internals.js';
import { NOW, tempDir, thrown } from '../helpers.js';

const record = (i: number, timestampDelta = i): Record => ({
  attributes: 0,
  timestampDelta,
  offsetDelta: i,
  key: Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i}`),
  headers: [{ key: 'h', value: Buffer.from('x') }],
});

/** A client's batch of `n` records (no producer), CRC right; the records at `keyless` have a null key. */
function batch(
  n = 3,
  fields: { maxTimestamp?: number; attributes?: number; keyless?: readonly number[] } = {},
): Buffer {
  return encodeRecordBatch({
    baseOffset: 0,
    partitionLeaderEpoch: -1,
    attributes: fields.attributes ?? 0,
    lastOffsetDelta: n - 1,
    baseTimestamp: NOW,
    maxTimestamp: fields.maxTimestamp ?? NOW + n - 1,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    records: Array.from({ length: n }, (_, i) => ({
      ...record(i),
      ...(fields.keyless?.includes(i) ? { key: null } : {}),
    })),
  });
}

/** The batch with its CRC recomputed: damage below the CRC, as a hostile client sends it. */
function recrc(bytes: Buffer): Buffer {
  bytes.writeUInt32BE(crc32c(bytes.subarray(21)), 17);
  return bytes;
}

/** The batch's records section gzipped (or replaced by `payload`), length and CRC made right. */
function gzipped(bytes: Buffer, payload?: Uint8Array): Buffer {
  const out = Buffer.concat([
    bytes.subarray(0, RECORD_BATCH_OVERHEAD),
    payload ?? gzipSync(bytes.subarray(RECORD_BATCH_OVERHEAD)),
  ]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeInt16BE(1, 21);
  return recrc(out);
}

const refusal = (bytes: Buffer) =>
  thrown(StorageError, () => validateRecords(bytes, decodeBatchHeader(bytes)));

/** Where the first record's fields are, in a batch built by `batch()`: length, attributes, then the varints. */
const FIRST = RECORD_BATCH_OVERHEAD;

describe("validateRecords: every record of a client's batch walked (Kafka's LogValidator)", () => {
  it('passes a good batch, plain or gzip, without touching its bytes', () => {
    for (const bytes of [batch(), gzipped(batch())]) {
      const before = Buffer.from(bytes);
      const header = decodeBatchHeader(bytes);
      expect(validateRecords(bytes, header)).toBe(header);
      expect(bytes.equals(before)).toBe(true);
    }
  });

  it('refuses, with INVALID_RECORD, records that do not read: each naming the record', () => {
    const cases: [string, (b: Buffer) => void, RegExp][] = [
      ['a record length past the batch', (b) => b.writeUInt8(0x7e, FIRST), /record 0 .*length 63 is outside/],
      [
        'a varlong that never ends',
        (b) => b.fill(0xff, FIRST + 2, FIRST + 20),
        /record 0 .*varlong longer than 10 bytes/,
      ],
      [
        'a key length past the record',
        (b) => b.writeUInt8(0x7e, FIRST + 4),
        /record 0 .*key length 63 runs past/,
      ],
      ['a negative key length', (b) => b.writeUInt8(0x05, FIRST + 4), /key length -3 is negative/],
      ['an offset delta out of order', (b) => b.writeUInt8(0x04, FIRST + 3), /offset delta 2, expected 0/],
      ['a header count that does not fit', (b) => b.writeUInt8(0x7e, FIRST + 15), /header count 63/],
      ['a record count that lies', (b) => b.writeInt32BE(2, 57), /bytes left after the 2 records/],
    ];
    for (const [what, damage, message] of cases) {
      const bytes = batch();
      damage(bytes);
      const error = refusal(recrc(bytes));
      expect(error.code, what).toBe('INVALID_RECORD');
      expect(error.message, what).toMatch(message);
    }
  });

  it('refuses a header key that is not UTF-8, as the reader does', () => {
    const bytes = batch(1);
    // key "k0", value "value 0", then 1 header: key length 1, key 'h' → 0xff.
    const at = bytes.indexOf(Buffer.from('h'), FIRST + 12);
    bytes[at] = 0xff;
    expect(refusal(recrc(bytes)).message).toMatch(/headers\[0\]\.key is not valid UTF-8/);
    expect(() => decodeRecordBatch(bytes)).toThrow(/UTF-8/);
  });

  it('refuses a compressed payload that does not decompress with CORRUPT_MESSAGE, bad records inside with INVALID_RECORD', () => {
    const garbage = gzipped(batch(), Buffer.from('not gzip at all'));
    expect(refusal(garbage).code).toBe('CORRUPT_MESSAGE');
    const inner = batch();
    inner[FIRST + 3] = 0x06; // offset delta 3 in the first record
    const error = refusal(gzipped(inner));
    expect(error.code).toBe('INVALID_RECORD');
    expect(error.message).toMatch(/gzip decompressed: offset delta 3, expected 0/);
  });

  it('sets the max timestamp from the records when a client wrote -1 (Sarama 1.22), CRC made right', () => {
    for (const bytes of [batch(3, { maxTimestamp: -1 }), gzipped(batch(3, { maxTimestamp: -1 }))]) {
      const header = validateRecords(bytes, decodeBatchHeader(bytes));
      expect(header.maxTimestamp).toBe(NOW + 2);
      const reread = decodeRecordBatch(bytes);
      expect(reread.maxTimestamp).toBe(NOW + 2);
      expect(reread.crc).toBe(header.crc);
    }
  });

  it('keeps CreateTime: a batch claiming LogAppendTime is stamped CreateTime, as Kafka does for such a topic', () => {
    const bytes = batch(2, { attributes: 0x08 });
    const header = validateRecords(bytes, decodeBatchHeader(bytes));
    expect(header.attributes & 0x08).toBe(0);
    expect(decodeRecordBatch(bytes).attributes & 0x08).toBe(0);
  });
});

describe('Partition.appendProducerBatch walks the records before anything is written', () => {
  it('refuses a poison batch (CRC valid, records not) and writes nothing; a good one follows at offset 0', () => {
    const partition = Partition.open(tempDir(), 't', 0);
    try {
      const poison = batch();
      poison[FIRST] = 0x7e;
      const error = thrown(StorageError, () => partition.appendProducerBatch(recrc(poison)));
      expect(error.code).toBe('INVALID_RECORD');
      expect(partition.logEndOffset).toBe(0);
      expect(partition.log.activeSegment.size).toBe(0);
      const result = partition.appendProducerBatch(batch());
      expect(result.kind === 'Append' && result.firstOffset).toBe(0);
    } finally {
      partition.close();
    }
  });

  it('ListOffsets by timestamp finds a batch whose client wrote maxTimestamp -1', () => {
    const partition = Partition.open(tempDir(), 't', 0);
    try {
      partition.appendProducerBatch(batch(3, { maxTimestamp: -1 }));
      expect(partition.offsetForTimestamp(NOW + 1)).toEqual({ offset: 1, timestamp: NOW + 1 });
      partition.reopen();
      expect(partition.offsetForTimestamp(NOW + 2)).toEqual({ offset: 2, timestamp: NOW + 2 });
    } finally {
      partition.close();
    }
  });
});

describe('a compacted topic refuses records without a key (Kafka LogValidator.validateKey)', () => {
  const mixed = (n: number, keyless: readonly number[]) => batch(n, { keyless });

  it('the whole batch, INVALID_RECORD, one RecordError per keyless record and Kafka’s message', () => {
    const partition = Partition.open(tempDir(), 'compacted', 0, { compact: true });
    try {
      const error = thrown(StorageError, () => partition.appendProducerBatch(mixed(12, [0, 4, 5, 11])));
      expect(error.code).toBe('INVALID_RECORD');
      const message = 'Compacted topic cannot accept message without key in topic partition compacted-0';
      expect(error.recordErrors).toEqual([0, 4, 5, 11].map((batchIndex) => ({ batchIndex, message })));
      expect(error.message).toBe(
        'One or more records have been rejected due to 4 record errors in total, and only showing the first ' +
          `three errors at most: [RecordError(batchIndex=0, message='${message}'), RecordError(batchIndex=4, ` +
          `message='${message}'), RecordError(batchIndex=5, message='${message}')]`,
      );
      expect(partition.logEndOffset).toBe(0);
      // Every record keyed: written.
      expect(partition.appendProducerBatch(mixed(3, []))).toMatchObject({ kind: 'Append', firstOffset: 0 });
    } finally {
      partition.close();
    }
  });

  it('inside a compressed batch too', () => {
    const partition = Partition.open(tempDir(), 'compacted', 1, { compact: true });
    try {
      const error = thrown(StorageError, () => partition.appendProducerBatch(gzipped(mixed(5, [2]))));
      expect(error.recordErrors.map((e) => e.batchIndex)).toEqual([2]);
      expect(partition.logEndOffset).toBe(0);
    } finally {
      partition.close();
    }
  });

  it('a topic that is not compacted keeps keyless records; one made compacted later refuses them', () => {
    const dir = tempDir();
    const partition = Partition.open(dir, 'plain', 0);
    try {
      expect(partition.appendProducerBatch(mixed(3, [0, 1, 2]))).toMatchObject({ kind: 'Append' });
      partition.reconfigure({ compact: true });
      expect(thrown(StorageError, () => partition.appendProducerBatch(mixed(2, [1]))).code).toBe(
        'INVALID_RECORD',
      );
      expect(partition.logEndOffset).toBe(3);
    } finally {
      partition.close();
    }
  });
});
