import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compressFrameSync } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import {
  compact,
  compressionName,
  crc32c,
  DecodeError,
  decodeRecordBatch,
  decompressRecords,
  Log,
  MAX_READABLE_BATCH_BYTES,
  Partition,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
} from '../../src/internals.js';
import { xerialRecords } from '../fixtures/xerial-snappy/records.mjs';
import { tempDir, thrown, writableLog } from '../helpers.js';
import {
  CODEC_IDS,
  type Codec,
  type Entry,
  KAFKA_JAVA_LZ4,
  kafkaJsBatch,
  sampleEntries,
} from '../kafkajs-compressed.js';

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));

function expectRecords(batch: RecordBatch, entries: readonly Entry[]): void {
  expect(batch.recordsCount).toBe(entries.length);
  expect(batch.records.map((r) => hex(r.key))).toEqual(entries.map((e) => hex(e.key)));
  expect(batch.records.map((r) => hex(r.value))).toEqual(entries.map((e) => hex(e.value)));
  expect(batch.records.map((r) => r.offsetDelta)).toEqual(entries.map((_, i) => i));
  expect(
    batch.records.map((r) =>
      Object.fromEntries(r.headers.map((h) => [h.key, Buffer.from(h.value!).toString()])),
    ),
  ).toEqual(entries.map((e) => e.headers ?? {}));
}

/** The compressed records section of a batch. */
const section = (batch: Buffer) => batch.subarray(RECORD_BATCH_OVERHEAD);

/** A copy of `batch` with its bytes after the header replaced, length and CRC made right. */
function withSection(batch: Buffer, records: Uint8Array): Buffer {
  const out = Buffer.concat([batch.subarray(0, RECORD_BATCH_OVERHEAD), records]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}

const variants: [string, Codec, Parameters<typeof kafkaJsBatch>[2]?][] = [
  ['gzip (KafkaJS built-in)', 'gzip'],
  ['snappy, one raw block (kafkajs-snappy, as librdkafka writes it)', 'snappy'],
  ['lz4, node-lz4 defaults (4 MiB blocks, content checksum)', 'lz4'],
  ["lz4, Kafka's Java framing (64 KiB blocks, several of them)", 'lz4', { lz4: KAFKA_JAVA_LZ4 }],
  ['zstd (libzstd through a KafkaJS codec)', 'zstd'],
];

describe('compressed batches written by KafkaJS decode to their records', () => {
  for (const [name, codec, options] of variants) {
    it(name, async () => {
      const entries = sampleEntries();
      const bytes = await kafkaJsBatch(codec, entries, options);
      const batch = decodeRecordBatch(bytes); // CRC checked, records decompressed and checked
      expect(batch.attributes & 7).toBe(CODEC_IDS[codec]);
      expect(compressionName(batch.attributes)).toBe(codec);
      expectRecords(batch, entries);
      expect(batch.records.map((r) => r.timestampDelta)).toEqual(entries.map((_, i) => i));
      // The records really were compressed: the batch is smaller than what they decompress to.
      expect(bytes.length).toBeLessThan(entries.reduce((n, e) => n + (e.value?.length ?? 0), 0));
    });
  }

  it("lz4: Kafka's Java framing is the frame descriptor KafkaLZ4BlockOutputStream writes", async () => {
    const bytes = await kafkaJsBatch('lz4', sampleEntries(), { lz4: KAFKA_JAVA_LZ4 });
    const frame = section(bytes);
    expect(frame.readUInt32LE(0)).toBe(0x184d2204);
    expect(frame[4]).toBe(0x60); // version 1, independent blocks, no checksums, no size
    expect(frame[5]).toBe(0x40); // 64 KiB blocks
    // More than one block: the first is a full 64 KiB one.
    expect(frame.readUInt32LE(7) & 0x7fffffff).toBeLessThanOrEqual(64 * 1024);
    expect(frame.length).toBeGreaterThan(7 + 4 + (frame.readUInt32LE(7) & 0x7fffffff) + 4);
    expectRecords(decodeRecordBatch(bytes), sampleEntries());
  });

  it("snappy in xerial's framing, as Kafka's Java client writes it (snappy-java's SnappyOutputStream)", () => {
    const here = join(import.meta.dirname, '../fixtures/xerial-snappy');
    const bytes = readFileSync(join(here, 'batch.bin'));
    const framed = section(bytes);
    expect(framed.subarray(0, 8)).toEqual(Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]));
    const batch = decodeRecordBatch(bytes);
    const { records, producerId } = xerialRecords();
    expect(batch.producerId).toBe(producerId);
    expectRecords(batch, records);
    // Three chunks of 32 KiB or less: 80 KiB of records.
    let chunks = 0;
    for (let pos = 16; pos + 4 <= framed.length; pos += 4 + framed.readInt32BE(pos)) chunks++;
    expect(chunks).toBe(3);
    // Two framed streams one after the other (xerial reads a second header as a new stream).
    const twice = Buffer.concat([framed, framed]);
    const plain = decompressRecords('snappy', framed, 1 << 20);
    expect(Buffer.from(decompressRecords('snappy', twice, 1 << 20))).toEqual(Buffer.concat([plain, plain]));
  });
});

describe('a compressed batch whose records are damaged is refused with a DecodeError', () => {
  for (const [name, codec, options] of variants) {
    it(`${name}: every flipped byte of the compressed records, CRC resealed`, async () => {
      const entries = sampleEntries(6);
      const bytes = await kafkaJsBatch(codec, entries, options);
      const records = section(bytes);
      let refused = 0;
      for (let i = 0; i < records.length; i += Math.max(1, Math.floor(records.length / 150))) {
        const bad = Buffer.from(records);
        bad[i]! ^= 0x5a;
        try {
          const batch = decodeRecordBatch(withSection(bytes, bad));
          // A flip the codec cannot see (a literal byte inside a value) decodes to other bytes, whole.
          expect(batch.records).toHaveLength(entries.length);
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
          expect(error.offset).toBeGreaterThanOrEqual(RECORD_BATCH_OVERHEAD);
          refused++;
        }
      }
      expect(refused).toBeGreaterThan(0);
    });

    it(`${name}: cut short`, async () => {
      const bytes = await kafkaJsBatch(codec, sampleEntries(6), options);
      const records = section(bytes);
      const error = thrown(DecodeError, () =>
        decodeRecordBatch(withSection(bytes, records.subarray(0, records.length - 7))),
      );
      expect(error.field).toMatch(/^records/);
    });
  }

  it('records that decompress to more than the limit are refused before they are all decompressed', async () => {
    const big = [{ key: null, value: Buffer.alloc(3 * 1024 * 1024, 0x61) }];
    for (const [, codec, options] of variants) {
      const bytes = await kafkaJsBatch(codec, big, options);
      expect(bytes.length).toBeLessThan(1024 * 1024);
      const error = thrown(DecodeError, () => decompressRecords(codec, section(bytes), 1024 * 1024));
      expect(error.field).toBe('records');
      expect(error.reason).toMatch(new RegExp(`^${codec}: decompresses to .*the limit of 1048576 bytes$`));
      expect(decodeRecordBatch(bytes).records[0]!.value).toHaveLength(3 * 1024 * 1024);
    }
  });

  it('the batch decoder allows MAX_READABLE_BATCH_BYTES of decompressed records, whatever the stored limit', async () => {
    const ok = await kafkaJsBatch('gzip', [
      { key: null, value: Buffer.alloc(MAX_READABLE_BATCH_BYTES - 1024) },
    ]);
    expect(decodeRecordBatch(ok, 0, { maxBatchBytes: 1024 * 1024 }).records[0]!.value).toHaveLength(
      MAX_READABLE_BATCH_BYTES - 1024,
    );
    const bomb = await kafkaJsBatch('gzip', [{ key: null, value: Buffer.alloc(MAX_READABLE_BATCH_BYTES) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const error = thrown(DecodeError, () => decodeRecordBatch(bomb));
    expect(error.reason).toBe(
      `gzip: decompresses to more than the limit of ${MAX_READABLE_BATCH_BYTES} bytes`,
    );
  });

  it('a record count the decompressed bytes cannot hold', async () => {
    const bytes = await kafkaJsBatch('gzip', sampleEntries(3));
    const bad = Buffer.from(bytes);
    bad.writeInt32BE(1_000_000, 57);
    bad.writeInt32BE(2_000_000, 23);
    bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
    const error = thrown(DecodeError, () => decodeRecordBatch(bad));
    expect(error).toMatchObject({ field: 'recordsCount', offset: 57 });
  });

  it('lz4: linked blocks, which Kafka does not read, are refused', async () => {
    const bytes = await kafkaJsBatch('lz4', sampleEntries(3), { lz4: { blockIndependence: false } });
    const error = thrown(DecodeError, () => decodeRecordBatch(bytes));
    expect(error.reason).toBe('lz4: dependent blocks are unsupported (Kafka writes independent ones)');
  });

  it('lz4: block and content checksums are checked when the frame has them', () => {
    // node-lz4 writes neither right (its block checksum overflows), so lz4_flex writes this one.
    const plain = Buffer.from('checksummed '.repeat(20_000));
    const frame = compressFrameSync(plain, { blockChecksums: true, contentChecksum: true });
    expect(frame[4]! & 0x14).toBe(0x14);
    expect(Buffer.from(decompressRecords('lz4', frame, 1 << 20))).toEqual(plain);
    const bad = Buffer.from(frame);
    bad[frame.length - 20]! ^= 1;
    expect(thrown(DecodeError, () => decompressRecords('lz4', bad, 1 << 20)).reason).toMatch(/^lz4: /);
  });

  it('gzip: concatenated members are one stream, as GZIPInputStream reads them', () => {
    const a = gzipSync('first ');
    const b = gzipSync('second');
    expect(Buffer.from(decompressRecords('gzip', Buffer.concat([a, b]), 100)).toString()).toBe(
      'first second',
    );
  });
});

describe("Log.append of 'raw' bytes takes a compressed batch from a client: records checked after decompression, bytes kept", () => {
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(codec, async () => {
      const log = Log.open(tempDir());
      try {
        const entries = sampleEntries(5);
        log.append({
          origin: 'raw',
          bytes: await kafkaJsBatch('none', [{ key: null, value: Buffer.from('first') }]),
        });
        const bytes = await kafkaJsBatch(codec, entries);
        const info = log.append({ origin: 'raw', bytes: Buffer.from(bytes) });
        expect(info).toMatchObject({ firstOffset: 1, lastOffset: entries.length });
        // Stored as it came (only the base offset, outside the CRC, is the log's).
        const stored = log.readChecked(1);
        expect(stored.subarray(8)).toEqual(bytes.subarray(8));
        expect(stored.readBigInt64BE(0)).toBe(1n);
        expectRecords(log.readCheckedBatches(1)[0]!, entries);

        // Damaged records are refused before anything is written.
        const bad = withSection(bytes, Buffer.from(section(bytes)).fill(0x33, 0, 12));
        expect(() => log.append({ origin: 'raw', bytes: bad })).toThrow(DecodeError);
        expect(log.logEndOffset).toBe(entries.length + 1);
      } finally {
        log.close();
      }
    });
  }
});

describe('compaction of a log holding compressed batches', () => {
  it('keeps the latest record per key; a batch that lost records is written uncompressed, one that lost none as it came', async () => {
    // Each batch in a segment of its own, then one more so that all three are older segments, which compaction cleans.
    const p = Partition.open(tempDir(), 'keys', 0, { segmentBytes: 100 });
    try {
      const value = (k: string, v: number) => ({ key: Buffer.from(k), value: Buffer.from(`${k}=${v}`) });
      writableLog(p).append({
        origin: 'raw',
        bytes: await kafkaJsBatch('gzip', [value('a', 1), value('b', 1), value('a', 2)]),
      });
      writableLog(p).append({
        origin: 'raw',
        bytes: await kafkaJsBatch('zstd', [value('b', 2), value('c', 1), value('c', 2)]),
      });
      writableLog(p).append({ origin: 'raw', bytes: await kafkaJsBatch('lz4', [value('a', 3)]) });
      writableLog(p).append({ origin: 'raw', bytes: await kafkaJsBatch('gzip', [value('z', 1)]) });
      compact(p);
      const batches = p.log.readCheckedBatches(0, 1 << 20);
      // gzip lost every record (and has no producer): gone. zstd lost c=1: rewritten plain.
      // lz4 lost nothing: kept as it came (Kafka's filterTo writes such a batch whole).
      expect(batches.map((b) => [b.baseOffset, b.attributes & 7])).toEqual([
        [3, 0],
        [6, 3],
        [7, 1],
      ]);
      const kept = batches.flatMap((b) =>
        b.records.map((r) => `${b.baseOffset + r.offsetDelta}:${Buffer.from(r.value!).toString()}`),
      );
      expect(kept).toEqual(['3:b=2', '5:c=2', '6:a=3', '7:z=1']);
    } finally {
      p.close();
    }
  });
});
