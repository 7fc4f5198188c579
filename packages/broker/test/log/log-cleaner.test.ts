import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DescribeProducers, decodeResponse, encodeRequest } from '@klog/protocol';
import { LogManager } from '@klog/storage';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker, tempDir } from '../support/broker.js';
import { kcatConsume } from '../support/clients.js';
import { RawClient } from '../support/raw-client.js';

const run = promisify(execFile);
const LONG = 180_000;

let b: TestBroker | undefined;
let scratch: { dir: string; remove(): void } | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill();
  await b?.stop();
  b = undefined;
  scratch?.remove();
  scratch = undefined;
});

function kafka(port: number) {
  return new Kafka({
    clientId: 'cleaner-test',
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 5000,
  });
}

async function createTopic(port: number, topic: string, configs: Record<string, string>): Promise<void> {
  const admin = kafka(port).admin();
  await admin.connect();
  try {
    const configEntries = Object.entries(configs).map(([name, value]) => ({ name, value }));
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries }] })).toBe(true);
  } finally {
    await admin.disconnect();
  }
}

/** Resolves once `check` holds, looking every 50 ms; fails after `timeoutMs` saying what it waited for. */
async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function kcatProduceLines(
  port: number,
  topic: string,
  lines: readonly string[],
  dir: string,
  name: string,
): Promise<void> {
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  await run(
    'kcat',
    [
      '-P',
      '-b',
      `127.0.0.1:${port}`,
      '-t',
      topic,
      '-p',
      '0',
      '-K',
      ':',
      '-H',
      'source=kcat',
      '-X',
      'enable.idempotence=true',
      '-X',
      'acks=all',
      '-X',
      'linger.ms=5',
      '-X',
      'batch.num.messages=4',
      '-X',
      'socket.timeout.ms=1000',
      '-X',
      'message.timeout.ms=60000',
      '-l',
      file,
    ],
    { timeout: 60_000 },
  );
}

describe('cleanup.policy=compact: cleaned in the background', () => {
  it(
    'a compacted topic created through the broker, written by kcat with repeated keys, reads back one value per key; every batch keeps its producer fields',
    async () => {
      scratch = tempDir('klog-compact-');
      b = await startBroker({ logCleanerBackoffMs: 100 }, join(scratch.dir, 'data'));
      const port = b.port;
      await createTopic(port, 'latest', {
        'cleanup.policy': 'compact',
        'segment.bytes': '100',
        'min.cleanable.dirty.ratio': '0.01',
      });
      const rounds = 5;
      const lines = Array.from({ length: rounds }, (_, r) =>
        Array.from({ length: 10 }, (_, k) => `k${k}:round ${r} of k${k}`),
      ).flat();
      await kcatProduceLines(port, 'latest', lines, scratch.dir, 'rounds');
      // One more batch, so that every batch of the rounds is in an inactive segment (segment.bytes 100: a
      // batch a segment), which compaction may clean (never the active one, as in Kafka).
      await kcatProduceLines(port, 'latest', ['end:done'], scratch.dir, 'end');
      // A compaction that ran after the last batch was on the log (the broker's debug line for its Produce
      // says where it went: offset 50), so every batch of the rounds was in an inactive segment.
      const compactedAfterEnd = () => {
        const end = b!.lines.findIndex((l) => /latest-0 NONE at 50\b/.test(l));
        return (
          end >= 0 &&
          b!.lines.slice(end).some((l) => /latest-0: compacted \d+ segment\(s\): \d+ → \d+ records/.test(l))
        );
      };
      await waitFor('a compaction after the last write', compactedAfterEnd);
      const read = await kcatConsume(port, 'latest');
      expect(read.map((r) => `${r.key}=${r.value}`)).toEqual([
        ...Array.from({ length: 10 }, (_, k) => `k${k}=round ${rounds - 1} of k${k}`),
        'end=done',
      ]);
      expect(read.every((r) => r.headers.source === 'kcat')).toBe(true);
      // The offsets are the ones the records were written at: the last round's.
      expect(read.map((r) => r.offset)).toEqual([...Array.from({ length: 10 }, (_, k) => 40 + k), 50]);

      // DescribeProducers: kcat's producer, epoch 0, its last sequence (51 records: 0..50), its last timestamp.
      const c = await RawClient.connect(port);
      c.send(
        encodeRequest(DescribeProducers, 0, 5, 'test', {
          topics: [{ name: 'latest', partitionIndexes: [0] }],
        }),
      );
      const producers = decodeResponse(DescribeProducers, 0, await c.next()).body.topics[0]!.partitions[0]!;
      c.close();
      expect(producers.errorCode).toBe(0);
      expect(producers.activeProducers).toHaveLength(2); // two kcat runs, two producer ids
      expect(
        producers.activeProducers.map((p) => [p.producerEpoch, p.lastSequence, p.coordinatorEpoch]),
      ).toEqual([
        [0, 49, -1],
        [0, 0, -1],
      ]);
      expect(producers.activeProducers.every((p) => p.producerId >= 0 && p.lastTimestamp > 0)).toBe(true);

      await b.stop();
      b = undefined;
      const manager = LogManager.open(join(scratch.dir, 'data'));
      try {
        const log = manager.partition('latest', 0)!.log;
        const batches = log.readCheckedBatches(0, 1 << 20);
        expect(batches.length).toBeGreaterThan(1);
        for (const batch of batches) {
          expect(batch.producerId).toBeGreaterThanOrEqual(0);
          expect(batch.producerEpoch).toBe(0);
          expect(batch.baseSequence).toBeGreaterThanOrEqual(0);
        }
        // Fewer records than were written: the cleaner removed the older values.
        expect(batches.reduce((n, x) => n + x.records.length, 0)).toBe(11);
      } finally {
        manager.close();
      }
    },
    LONG,
  );
});

describe('retention: old segments deleted while a consumer reads', () => {
  it(
    'retention.bytes deletes old segments in the background, the log start offset moves, nothing above it is lost',
    async () => {
      b = await startBroker({ logRetentionCheckIntervalMs: 100 });
      const port = b.port;
      await createTopic(port, 'rolling', { 'segment.bytes': '200', 'retention.bytes': '800' });
      // A consumer from the beginning, reading while the producer writes; on OFFSET_OUT_OF_RANGE it resets
      // to the earliest offset there is.
      let out = '';
      const consumer = spawn('kcat', [
        '-C',
        '-b',
        `127.0.0.1:${port}`,
        '-t',
        'rolling',
        '-p',
        '0',
        '-o',
        'beginning',
        '-u',
        '-q',
        '-X',
        'auto.offset.reset=earliest',
        '-X',
        'fetch.wait.max.ms=50',
        '-f',
        '%o %s\\n',
      ]);
      children.push(consumer);
      consumer.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const total = 300;
      const producer = kafka(port).producer({ idempotent: true });
      await producer.connect();
      try {
        for (let i = 0; i < total; i++)
          await producer.send({ topic: 'rolling', acks: -1, messages: [{ partition: 0, value: `v${i}` }] });
      } finally {
        await producer.disconnect();
      }
      await waitFor('the consumer to read the last record', () =>
        out.includes(`${total - 1} v${total - 1}\n`),
      );
      await waitFor('retention to delete segments', () =>
        b!.lines.some((l) => /rolling-0: retention deleted \d+ segment/.test(l)),
      );
      const admin = kafka(port).admin();
      await admin.connect();
      const [offsets] = await admin.fetchTopicOffsets('rolling');
      await admin.disconnect();
      const low = Number(offsets!.low);
      expect(low).toBeGreaterThan(0);
      expect(Number(offsets!.high)).toBe(total);
      const read = new Map(
        out
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => l.split(' ') as [string, string])
          .map(([o, v]) => [Number(o), v]),
      );
      // Every record from the log start offset on was read, with its value.
      for (let o = low; o < total; o++) expect(read.get(o), `offset ${o}`).toBe(`v${o}`);
      // And what is left on disk is about retention.bytes: a few segments, not the whole log.
      // (Retention may have run again since: the log starts at or after `low`, and holds everything from there.)
      const left = await kcatConsume(port, 'rolling');
      const start = left[0]!.offset;
      expect(start).toBeGreaterThanOrEqual(low);
      expect(left.map((r) => r.offset)).toEqual(Array.from({ length: total - start }, (_, i) => start + i));
      expect(left.every((r) => r.value === `v${r.offset}`)).toBe(true);
    },
    LONG,
  );
});
