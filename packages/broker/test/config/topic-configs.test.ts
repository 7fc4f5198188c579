import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeResponse, encodeRequest, Produce } from '@klog/protocol';
import { encodeRecordBatch } from '@klog/storage/internals';
import { ConfigResourceTypes, Kafka, KafkaJSProtocolError, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

const run = promisify(execFile);
const LONG = 120_000;

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b?.stop());

function kafka() {
  return new Kafka({
    clientId: 'topic-configs-test',
    brokers: [`127.0.0.1:${b.port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 5000,
    retry: { initialRetryTime: 100, retries: 2 },
  });
}

async function withAdmin<T>(
  f: (admin: ReturnType<ReturnType<typeof kafka>['admin']>) => Promise<T>,
): Promise<T> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    return await f(admin);
  } finally {
    await admin.disconnect();
  }
}

async function create(topic: string, configs: Record<string, string>): Promise<void> {
  const configEntries = Object.entries(configs).map(([name, value]) => ({ name, value }));
  await withAdmin(async (admin) =>
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries }] })).toBe(true),
  );
}

async function configOf(topic: string, name: string): Promise<{ configValue: string; configSource: number }> {
  return withAdmin(async (admin) => {
    const { resources } = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }],
      includeSynonyms: false,
    });
    return resources[0]!.configEntries[0] as unknown as { configValue: string; configSource: number };
  });
}

describe('topic configs that do something', () => {
  it('a topic’s configs survive a restart; a deleted topic’s do not come back with a new one of its name', async () => {
    await create('kept', { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '5000' });
    b = await b.restart();
    expect(await configOf('kept', 'cleanup.policy')).toMatchObject({
      configValue: 'compact',
      configSource: 1,
    });
    expect(await configOf('kept', 'min.compaction.lag.ms')).toMatchObject({
      configValue: '5000',
      configSource: 1,
    });
    await withAdmin((admin) => admin.deleteTopics({ topics: ['kept'] }));
    await create('kept', {});
    expect(await configOf('kept', 'cleanup.policy')).toMatchObject({
      configValue: 'delete',
      configSource: 5,
    });
  });

  it(
    'max.message.bytes: a 1.5 MB record goes to the topic that allows 2 MB, and is MESSAGE_TOO_LARGE elsewhere',
    async () => {
      await create('big', { 'max.message.bytes': '2097152' });
      await create('small', {});
      const producer = kafka().producer({ retry: { retries: 0 } });
      await producer.connect();
      try {
        const value = Buffer.alloc(1_500_000, 7);
        const [sent] = await producer.send({ topic: 'big', acks: -1, messages: [{ value }] });
        expect(sent).toMatchObject({ errorCode: 0, baseOffset: '0' });
        await expect(
          producer.send({ topic: 'small', acks: -1, messages: [{ value }] }),
        ).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
      } finally {
        await producer.disconnect();
      }
    },
    LONG,
  );

  it(
    'message.timestamp.type=LogAppendTime: the broker’s clock replaces the producer’s, as a reader sees it',
    async () => {
      await create('stamped', { 'message.timestamp.type': 'LogAppendTime' });
      const before = Date.now();
      const producer = kafka().producer({ idempotent: true });
      await producer.connect();
      try {
        await producer.send({ topic: 'stamped', acks: -1, messages: [{ value: 'old', timestamp: '1000' }] });
      } finally {
        await producer.disconnect();
      }
      // kcat: %T is the timestamp, and librdkafka says LogAppendTime in the batch's attributes.
      const { stdout } = await run(
        'kcat',
        ['-C', '-b', `127.0.0.1:${b.port}`, '-t', 'stamped', '-o', 'beginning', '-e', '-q', '-f', '%T %s\\n'],
        { timeout: 60_000 },
      );
      const [ts, value] = stdout.trim().split(' ');
      expect(value).toBe('old');
      expect(Number(ts)).toBeGreaterThanOrEqual(before);
      expect(Number(ts)).toBeLessThanOrEqual(Date.now());
    },
    LONG,
  );

  it('segment.ms: the active segment rolls at the next append once its first batch is that old', async () => {
    await create('rolled', { 'segment.ms': '1' });
    const producer = kafka().producer({ idempotent: true });
    await producer.connect();
    try {
      for (let i = 0; i < 3; i++) {
        await producer.send({ topic: 'rolled', acks: -1, messages: [{ value: `v${i}` }] });
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      await producer.disconnect();
    }
    const segments = readdirSync(join(b.dataDir, 'rolled-0')).filter((f) => f.endsWith('.log'));
    expect(segments).toEqual([
      '00000000000000000000.log',
      '00000000000000000001.log',
      '00000000000000000002.log',
    ]);
  });

  it('DeleteRecords: ListOffsets earliest answers the new start, a fetch below it is OFFSET_OUT_OF_RANGE', async () => {
    await create('trimmed', {});
    const producer = kafka().producer({ idempotent: true });
    await producer.connect();
    await producer.send({
      topic: 'trimmed',
      acks: -1,
      messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${i}` })),
    });
    await producer.disconnect();
    await withAdmin(async (admin) => {
      // KafkaJS's deleteTopicRecords needs the topic's metadata loaded first (fetchTopicMetadata does).
      await admin.fetchTopicMetadata({ topics: ['trimmed'] });
      await admin.deleteTopicRecords({ topic: 'trimmed', partitions: [{ partition: 0, offset: '3' }] });
      expect((await admin.fetchTopicOffsets('trimmed'))[0]).toMatchObject({ low: '3', high: '5' });
    });
    const c = await RawClient.connect(b.port);
    const fetch = (offset: string, correlation: number) =>
      kafkajs(
        'fetch',
        11,
        {
          replicaId: -1,
          maxWaitTime: 0,
          minBytes: 1,
          maxBytes: 1 << 20,
          topics: [
            { topic: 'trimmed', partitions: [{ partition: 0, fetchOffset: offset, maxBytes: 1 << 20 }] },
          ],
        },
        correlation,
      );
    const below = await fetch('2', 1);
    c.send(below.frame);
    const answer = (await below.decode(await c.next())).data as {
      responses: { partitions: { errorCode: number }[] }[];
    };
    expect(answer.responses[0]!.partitions[0]).toMatchObject({ errorCode: 1 }); // OFFSET_OUT_OF_RANGE;
    const at = await fetch('3', 2);
    c.send(at.frame);
    const ok = (await at.decode(await c.next())).data as {
      responses: { partitions: { errorCode: number }[] }[];
    };
    expect(ok.responses[0]!.partitions[0]!.errorCode).toBe(0);
    c.close();
  });
});

describe('a compacted topic refuses records without a key, as Kafka 4.1 does', () => {
  /** Produce v8 (RecordErrors) of one batch to partition 0: records at `keyless` have a null key. */
  async function produceV8(topic: string, n: number, keyless: readonly number[]) {
    const now = Date.now();
    const records = encodeRecordBatch({
      baseOffset: 0,
      partitionLeaderEpoch: -1,
      attributes: 0,
      lastOffsetDelta: n - 1,
      baseTimestamp: now,
      maxTimestamp: now,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: Array.from({ length: n }, (_, i) => ({
        attributes: 0,
        timestampDelta: 0,
        offsetDelta: i,
        key: keyless.includes(i) ? null : Buffer.from(`k${i}`),
        value: Buffer.from(`v${i}`),
        headers: [],
      })),
    });
    const c = await RawClient.connect(b.port);
    try {
      c.send(
        encodeRequest(Produce, 8, 5, 'test', {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
        }),
      );
      return decodeResponse(Produce, 8, await c.next()).body.responses[0]!.partitionResponses[0]!;
    } finally {
      c.close();
    }
  }

  it('INVALID_RECORD with one RecordError per keyless record (librdkafka 0011); keyed batches are written', async () => {
    await create('compacted-keys', { 'cleanup.policy': 'compact' });
    const refused = await produceV8('compacted-keys', 10, [0, 3, 9]);
    const message = 'Compacted topic cannot accept message without key in topic partition compacted-keys-0';
    expect(refused).toMatchObject({ errorCode: 87, baseOffset: -1 });
    expect(refused.recordErrors).toEqual(
      [0, 3, 9].map((batchIndex) => ({ batchIndex, batchIndexErrorMessage: message })),
    );
    expect(refused.errorMessage).toMatch(
      /^One or more records have been rejected due to 3 record errors in total/,
    );
    expect(await produceV8('compacted-keys', 4, [])).toMatchObject({ errorCode: 0, baseOffset: 0 });
  });

  it('follows cleanup.policy as it is altered: KafkaJS’s keyless send fails only while the topic compacts', async () => {
    await create('becomes-compacted', { 'cleanup.policy': 'delete' });
    const producer = kafka().producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producer.connect();
    try {
      const send = (key: string | null) =>
        producer.send({ topic: 'becomes-compacted', messages: [{ key, value: 'v', partition: 0 }] });
      await send(null);
      await withAdmin((admin) =>
        admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: ConfigResourceTypes.TOPIC,
              name: 'becomes-compacted',
              configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
            },
          ],
        }),
      );
      const error = await send(null).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KafkaJSProtocolError);
      expect((error as KafkaJSProtocolError).type).toBe('INVALID_RECORD');
      await send('k');
    } finally {
      await producer.disconnect();
    }
  });
});
