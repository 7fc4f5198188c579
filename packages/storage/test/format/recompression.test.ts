import { createRequire } from 'node:module';
import { compressFrameSync } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import {
  type BrokerCompressionType,
  COMPRESSION_TYPES,
  type CompressionType,
  compressionName,
  crc32c,
  decodeRecordBatch,
  Log,
  Partition,
  type RecordBatch,
  readProducedBatch,
  StorageError,
  TRANSACTIONAL_FLAG,
} from '../../src/internals.js';
import { tempDir, thrown } from '../helpers.js';
import { type Codec, type Entry, kafkaJsBatch, sampleEntries } from '../kafkajs-compressed.js';

/** KafkaJS 2.2.4's batch decoder (deep require): an outside reader of what klog stored. */
const require = createRequire(import.meta.url);
const KafkaJsDecoder = require('kafkajs/src/protocol/decoder');
const decodeKafkaJsBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));
const SOURCES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const satisfies readonly (Codec | 'none')[];
const TARGETS: readonly BrokerCompressionType[] = ['uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'];
const codecOf = (t: BrokerCompressionType): CompressionType => (t === 'uncompressed' ? 'none' : t) as never;

/**
 * An idempotent producer's batch: producer 4242, epoch 0, sequence `sequence`, encoded by KafkaJS. Its lz4
 * codec plays back recorded frames only, so an lz4 batch is KafkaJS's uncompressed one with its records
 * framed by lz4-napi (independent blocks, as librdkafka and Kafka's Java client write them).
 */
async function producerBatch(
  codec: Codec | 'none',
  entries: readonly Entry[],
  sequence = 0,
): Promise<Buffer> {
  const options = { producerId: 4242, baseSequence: sequence };
  if (codec !== 'lz4') return kafkaJsBatch(codec, entries, options);
  const plain = await kafkaJsBatch('none', entries, options);
  const out = Buffer.concat([plain.subarray(0, 61), compressFrameSync(plain.subarray(61))]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeInt16BE(out.readInt16BE(21) | 3, 21);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}

function expectSameRecords(stored: RecordBatch, entries: readonly Entry[]): void {
  expect(stored.records.map((r) => hex(r.key))).toEqual(entries.map((e) => hex(e.key)));
  expect(stored.records.map((r) => hex(r.value))).toEqual(entries.map((e) => hex(e.value)));
  expect(stored.records.map((r) => r.offsetDelta)).toEqual(entries.map((_, i) => i));
  expect(stored.records.map((r) => r.timestampDelta)).toEqual(entries.map((_, i) => i));
  expect(
    stored.records.map((r) =>
      Object.fromEntries(r.headers.map((h) => [h.key, Buffer.from(h.value!).toString()])),
    ),
  ).toEqual(entries.map((e) => e.headers ?? {}));
}

function client(bytes: Buffer) {
  return { origin: 'client', batch: readProducedBatch(Buffer.from(bytes)) } as const;
}

describe("compression.type rewrites a client's batch into the topic's codec (Kafka's LogValidator)", () => {
  for (const source of SOURCES) {
    for (const target of TARGETS) {
      it(`${source} → ${target}: header fields kept, CRC valid, offsets the log's`, async () => {
        const log = Log.open(tempDir(), { compression: target });
        try {
          log.append(client(await kafkaJsBatch('none', [{ key: null, value: Buffer.from('first') }])));
          const entries = sampleEntries(9);
          const sent = await producerBatch(source, entries, 7);
          const sentHeader = readProducedBatch(sent).header;
          const info = log.append(client(sent));
          expect(info).toMatchObject({ firstOffset: 1, lastOffset: entries.length });

          const bytes = log.readChecked(1);
          // decodeRecordBatch checks the CRC-32C and decompresses the records.
          const stored = decodeRecordBatch(bytes);
          expect(bytes.readUInt32BE(17)).toBe(crc32c(bytes.subarray(21)));
          expect(compressionName(stored.attributes)).toBe(codecOf(target));
          expect(stored.attributes & ~0x07).toBe(sentHeader.attributes & ~0x07);
          expect(stored).toMatchObject({
            baseOffset: 1,
            partitionLeaderEpoch: 0,
            lastOffsetDelta: entries.length - 1,
            recordsCount: entries.length,
            baseTimestamp: sentHeader.baseTimestamp,
            maxTimestamp: sentHeader.maxTimestamp,
            producerId: 4242,
            producerEpoch: 0,
            baseSequence: 7,
          });
          expect(stored.batchLength).toBe(bytes.length - 12);
          expectSameRecords(stored, entries);
          // The log indexes it where it is: reads from its middle and after it find it.
          expect(decodeRecordBatch(log.readChecked(5)).baseOffset).toBe(1);
          expect(log.logEndOffset).toBe(entries.length + 1);
        } finally {
          log.close();
        }
      });
    }
  }

  it("producer (the default) stores every codec as the producer wrote it, byte for byte after the log's fields", async () => {
    for (const source of SOURCES) {
      const log = Log.open(tempDir());
      try {
        expect(log.config.compression).toBe('producer');
        const sent = await producerBatch(source, sampleEntries(4));
        log.append(client(sent));
        expect(log.readChecked(0).subarray(21)).toEqual(sent.subarray(21));
      } finally {
        log.close();
      }
    }
  });

  it("a batch already in the topic's codec is kept as sent, not recompressed", async () => {
    const log = Log.open(tempDir(), { compression: 'zstd' });
    try {
      const sent = await producerBatch('zstd', sampleEntries(6));
      log.append(client(sent));
      expect(log.readChecked(0).subarray(21)).toEqual(sent.subarray(21));
    } finally {
      log.close();
    }
  });

  it('there and back: gzip → uncompressed, that stored batch → snappy, → gzip again: the same records', async () => {
    const entries = sampleEntries(12);
    let bytes = await producerBatch('gzip', entries);
    for (const target of ['uncompressed', 'snappy', 'gzip'] as const) {
      const log = Log.open(tempDir(), { compression: target });
      try {
        log.append(client(bytes));
        bytes = log.readChecked(0);
        const stored = decodeRecordBatch(bytes);
        expect(compressionName(stored.attributes)).toBe(codecOf(target));
        expectSameRecords(stored, entries);
      } finally {
        log.close();
      }
    }
  });

  it("an outside reader (KafkaJS's decoder) reads the rewritten batches: gzip, snappy (xerial framing), zstd", async () => {
    const entries = sampleEntries(8);
    for (const target of ['gzip', 'snappy', 'zstd'] as const) {
      // Encoding one batch with KafkaJS installs its codec for the decoder too.
      await kafkaJsBatch(target, entries.slice(0, 1));
      const log = Log.open(tempDir(), { compression: target });
      try {
        log.append(client(await producerBatch('none', entries)));
        const stored = log.readChecked(0);
        expect(stored.readInt16BE(21) & 0x07).toBe(COMPRESSION_TYPES.indexOf(target));
        const theirs = await decodeKafkaJsBatch(new KafkaJsDecoder(stored));
        expect(theirs.producerId).toBe('4242');
        expect(theirs.firstSequence).toBe(0);
        expect(theirs.records.map((r: { value: Buffer | null }) => hex(r.value))).toEqual(
          entries.map((e) => hex(e.value)),
        );
      } finally {
        log.close();
      }
    }
  });

  it('recompressed past message.max.bytes: MESSAGE_TOO_LARGE, as Kafka re-checks the size, and nothing written', async () => {
    const entries = [{ key: null, value: Buffer.alloc(50_000, 0x61) }];
    const sent = await producerBatch('gzip', entries);
    expect(sent.length).toBeLessThan(1000);
    const log = Log.open(tempDir(), { compression: 'uncompressed', maxBatchBytes: 10_000 });
    try {
      const error = thrown(StorageError, () => log.append(client(sent)));
      expect(error.code).toBe('MESSAGE_TOO_LARGE');
      expect(error.message).toMatch(/^batch of 500\d\d bytes exceeds the limit of 10000/);
      expect(log.logEndOffset).toBe(0);
      expect(log.size).toBe(0);
    } finally {
      log.close();
    }
  });

  it('reconfigure changes the codec of the next appends; an unknown compression.type is INVALID_CONFIG', async () => {
    const log = Log.open(tempDir(), { compression: 'lz4' });
    try {
      log.append(client(await kafkaJsBatch('none', sampleEntries(2))));
      log.reconfigure({ compression: 'producer' });
      log.append(client(await kafkaJsBatch('none', sampleEntries(2))));
      const codecs = [...log.batches()].map(({ batch }) => compressionName(batch.attributes));
      expect(codecs).toEqual(['lz4', 'none']);
      const error = thrown(StorageError, () => log.reconfigure({ compression: 'brotli' as never }));
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toBe(
        'compression.type must be one of producer, uncompressed, gzip, snappy, lz4, zstd, got brotli',
      );
      expect(log.config.compression).toBe('producer');
    } finally {
      log.close();
    }
  });

  it('a transactional batch is still refused before any recompression (the bit is not lost on the way)', async () => {
    const log = Log.open(tempDir(), { compression: 'gzip' });
    try {
      const sent = await producerBatch('none', sampleEntries(2));
      sent.writeInt16BE(sent.readInt16BE(21) | TRANSACTIONAL_FLAG, 21);
      sent.writeUInt32BE(crc32c(sent.subarray(21)), 17);
      expect(thrown(StorageError, () => log.append(client(sent))).code).toBe('INVALID_TXN_STATE');
    } finally {
      log.close();
    }
  });
});

describe("the producer's window judges the rewritten batch as the one sent (Partition, compression.type=gzip)", () => {
  it('a retry of a recompressed batch is a duplicate with its first offsets; a gap is OUT_OF_ORDER; after a restart too', async () => {
    const dir = tempDir();
    let p = Partition.open(dir, 'orders', 0, { compression: 'gzip' }, { producerSnapshots: true });
    try {
      const first = await producerBatch('none', sampleEntries(3), 0);
      const second = await producerBatch('snappy', sampleEntries(2), 3);
      expect(p.appendProducerBatch(Buffer.from(first))).toMatchObject({ kind: 'Append', firstOffset: 0 });
      expect(p.appendProducerBatch(Buffer.from(second))).toMatchObject({ kind: 'Append', firstOffset: 3 });
      expect(p.appendProducerBatch(Buffer.from(first))).toMatchObject({
        kind: 'Duplicate',
        firstOffset: 0,
        lastOffset: 2,
      });
      const gap = await producerBatch('none', sampleEntries(1), 9);
      expect(p.appendProducerBatch(gap)).toMatchObject({ kind: 'OutOfOrderSequence' });
      expect(p.logEndOffset).toBe(5);
      expect([...p.log.batches()].map(({ batch }) => compressionName(batch.attributes))).toEqual([
        'gzip',
        'gzip',
      ]);
      p.close();
      // The window rebuilt from the stored (recompressed) headers knows the same producer.
      p = Partition.open(dir, 'orders', 0, { compression: 'gzip' }, { producerSnapshots: false });
      expect(p.appendProducerBatch(Buffer.from(second))).toMatchObject({ kind: 'Duplicate', firstOffset: 3 });
      const next = await producerBatch('zstd', sampleEntries(1), 5);
      expect(p.appendProducerBatch(next)).toMatchObject({ kind: 'Append', firstOffset: 5 });
    } finally {
      p.close();
    }
  });
});
