import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import {
  kafkajs,
  kafkajsProduce,
  kcatConsume,
  kcatProduce,
  keyFor,
  PARTITIONS,
  platformaticFetchAll,
  platformaticProduce,
  pythonConsume,
  pythonProduce,
  type ReadRecord,
  type Reports,
  valueFor,
} from '../support/clients.js';

/**
 * Unmodified Kafka clients against `klog serve`: each producer writes a few thousand keyed messages with
 * headers, idempotently, several per batch and several requests in flight, to a topic of three
 * partitions; the broker restarts; every message is read back, per partition in order, exactly once, at
 * the offset the producer was told.
 */
const COUNT = 2000;
const require = createRequire(import.meta.url);

/** Real client processes on a busy 2-core machine: time out only on a hang. */
const LONG_TIMEOUT_MS = 300_000;
let b: TestBroker;
let dataDir: string;
const scratch = mkdtempSync(join(tmpdir(), 'klog-clients-'));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'klog-clients-data-'));
  b = await startBroker({}, dataDir);
  const admin = kafkajs(b.port).admin();
  await admin.connect();
  await admin.createTopics({
    topics: ['kcat', 'python', 'kafkajs', 'platformatic'].map((topic) => ({
      topic,
      numPartitions: PARTITIONS,
    })),
  });
  await admin.disconnect();
});
afterAll(async () => {
  await b.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The producer kept several requests in flight: some Produce requests came before the answer to the one
 * before. librdkafka does (max.in.flight 5 under idempotence). KafkaJS's idempotent producer takes a lock
 * per broker for each send (eosManager.acquireBrokerLock), so its sends, issued all at once by the test,
 * reach the broker one after the other; @platformatic/kafka's must be sent one after the other by the
 * caller (see platformaticProduce).
 */
function expectPipelined(before: number): void {
  const produce = b.broker.requestStats.get('Produce');
  expect(produce).toBeDefined();
  expect(produce!.pipelined - before).toBeGreaterThan(0);
}

const pipelinedSoFar = () => b.broker.requestStats.get('Produce')?.pipelined ?? 0;

function expectExactlyOnceInOrder(
  records: readonly ReadRecord[],
  prefix: string,
  source: string,
  reports?: Reports,
): void {
  expect(records).toHaveLength(COUNT);
  const keys = new Set(records.map((r) => r.key));
  expect(keys.size).toBe(COUNT);
  for (let i = 0; i < COUNT; i++) expect(keys.has(keyFor(prefix, i))).toBe(true);
  for (let p = 0; p < PARTITIONS; p++) {
    const offsets = records.filter((r) => r.partition === p).map((r) => r.offset);
    // Per partition in order, no gap, no repeat: offsets 0, 1, 2 …
    expect(offsets).toEqual(offsets.map((_, i) => i));
  }
  for (const r of records) {
    expect(r.value).toBe(valueFor(r.key));
    expect(r.headers.source).toBe(source);
    if (reports !== undefined)
      expect(reports.get(r.key)).toEqual({ partition: r.partition, offset: r.offset });
  }
}

describe('real clients produce idempotently; after a restart every message reads back exactly once', {
  timeout: LONG_TIMEOUT_MS,
}, () => {
  it('kcat (librdkafka 2.0.2) → kcat -C -e', async () => {
    const before = pipelinedSoFar();
    await kcatProduce(b.port, 'kcat', COUNT, 'kc', scratch);
    expectPipelined(before);
    b = await b.restart();
    expectExactlyOnceInOrder(await kcatConsume(b.port, 'kcat'), 'kc', 'kcat');
  });

  it('confluent-kafka (Python, librdkafka) → its Consumer with assign(), no group API', async () => {
    const before = pipelinedSoFar();
    const reports = await pythonProduce(b.port, 'python', COUNT, 'py');
    expectPipelined(before);
    b = await b.restart();
    expectExactlyOnceInOrder(
      await pythonConsume(b.port, 'python', PARTITIONS),
      'py',
      'confluent-kafka',
      reports,
    );
  });

  it('KafkaJS 2.2.4 → read by kcat', async () => {
    const reports = await kafkajsProduce(b.port, 'kafkajs', COUNT, 'kjs');
    b = await b.restart();
    expectExactlyOnceInOrder(await kcatConsume(b.port, 'kafkajs'), 'kjs', 'kafkajs', reports);
  });

  it('@platformatic/kafka 1.35 → its fetch API', async () => {
    const reports = await platformaticProduce(b.port, 'platformatic', COUNT, 'plt');
    b = await b.restart();
    expectExactlyOnceInOrder(
      await platformaticFetchAll(b.port, 'platformatic', PARTITIONS),
      'plt',
      'platformatic',
      reports,
    );
  });

  it('every topic reads the same with every reader', async () => {
    for (const topic of ['python', 'platformatic']) {
      const byKcat = await kcatConsume(b.port, topic);
      const byPython = await pythonConsume(b.port, topic, PARTITIONS);
      const sort = (rs: ReadRecord[]) =>
        rs.map((r) => `${r.partition}/${r.offset}/${r.key}/${r.value}`).sort();
      expect(sort(byPython)).toEqual(sort(byKcat));
    }
  });
});

describe('compressed batches, stored as the client sent them', { timeout: LONG_TIMEOUT_MS }, () => {
  /**
   * librdkafka 2.0.2 turns its codecs on from the versions a broker advertises (rdkafka_feature.c): gzip,
   * snappy and zstd here; LZ4 only when FindCoordinator v0 is advertised (it dates LZ4 support by the group
   * coordinator of Kafka 0.8.2), which klog does now that it serves consumer groups: all four are used.
   */
  it('kcat with gzip, snappy, lz4 and zstd: read back whole; on disk as sent', async () => {
    const admin = kafkajs(b.port).admin();
    await admin.connect();
    await admin.createTopics({
      topics: ['gzip', 'snappy', 'lz4', 'zstd'].map((topic) => ({ topic: `z-${topic}`, numPartitions: 1 })),
    });
    await admin.disconnect();
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      // Long, repetitive values: librdkafka sends a batch uncompressed when compressing would not save space.
      await kcatProduce(b.port, `z-${codec}`, 500, codec, scratch, ['-z', codec], (key) =>
        `${key} `.repeat(40),
      );
      const records = await kcatConsume(b.port, `z-${codec}`);
      expect(records.map((r) => r.key)).toEqual(Array.from({ length: 500 }, (_, i) => keyFor(codec, i)));
      // The batch on disk is the client's, compression and all: its attributes name the codec.
      const segment = readFileSync(join(dataDir, `z-${codec}-0`, '00000000000000000000.log'));
      expect(segment.readInt16BE(21) & 7).toBe({ gzip: 1, snappy: 2, lz4: 3, zstd: 4 }[codec]);
    }
  });
});

describe('several producers at once on one partition', { timeout: LONG_TIMEOUT_MS }, () => {
  it('two kcat and two confluent-kafka producers, one partition: every message once, offsets 0 … n−1', async () => {
    const admin = kafkajs(b.port).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'shared', numPartitions: 1 }] });
    await admin.disconnect();
    const reports = await Promise.all([
      kcatProduce(b.port, 'shared', 1000, 'kc1', scratch),
      kcatProduce(b.port, 'shared', 1000, 'kc2', scratch),
      pythonProduce(b.port, 'shared', 1000, 'py1'),
      pythonProduce(b.port, 'shared', 1000, 'py2'),
    ]);
    const records = await kcatConsume(b.port, 'shared');
    expect(records).toHaveLength(4000);
    expect(records.map((r) => r.offset)).toEqual(records.map((_, i) => i));
    expect(new Set(records.map((r) => r.key)).size).toBe(4000);
    for (const r of records) {
      const told = reports[2]!.get(r.key) ?? reports[3]!.get(r.key);
      if (told !== undefined) expect(told).toEqual({ partition: 0, offset: r.offset });
    }
  });
});

describe('the segment files the broker wrote', { timeout: LONG_TIMEOUT_MS }, () => {
  it('decode with KafkaJS’s RecordBatch decoder, every CRC-32C right, every message there once, batches of several records', async () => {
    const Decoder = require('kafkajs/src/protocol/decoder');
    const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');
    const crc32C = require('kafkajs/src/protocol/recordBatch/crc32C') as (b: Buffer) => number;
    const seen = new Map<string, number>();
    let largestBatch = 0;
    for (const topic of ['kcat', 'python', 'kafkajs', 'platformatic']) {
      for (let p = 0; p < PARTITIONS; p++) {
        const dir = join(dataDir, `${topic}-${p}`);
        const segments = readdirSync(dir)
          .filter((f) => /^\d{20}\.log$/.test(f))
          .sort();
        expect(segments.length).toBeGreaterThan(0);
        let next = 0;
        for (const file of segments) {
          const bytes = readFileSync(join(dir, file));
          let at = 0;
          while (at < bytes.length) {
            const size = 12 + bytes.readInt32BE(at + 8);
            const batch = bytes.subarray(at, at + size);
            // CRC-32C over attributes … end of the batch, as Kafka's DefaultRecordBatch computes it.
            expect(crc32C(batch.subarray(21))).toBe(batch.readUInt32BE(17));
            const decoded = await decodeBatch(new Decoder(batch));
            expect(Number(decoded.firstOffset)).toBe(next);
            largestBatch = Math.max(largestBatch, decoded.records.length);
            for (const r of decoded.records as { offset: string; key: Buffer }[]) {
              expect(Number(r.offset)).toBe(next++);
              const k = `${topic}/${r.key.toString()}`;
              seen.set(k, (seen.get(k) ?? 0) + 1);
            }
            at += size;
          }
        }
      }
    }
    expect(seen.size).toBe(4 * COUNT);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(largestBatch).toBeGreaterThan(1);
  });
});
