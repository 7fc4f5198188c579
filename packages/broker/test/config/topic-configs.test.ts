import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  DescribeConfigs,
  decodeResponse,
  encodeRequest,
  IncrementalAlterConfigs,
  Produce,
} from '@klog/protocol';
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

describe("Kafka's topic configs klog does not act on: accepted, checked, stored and described", () => {
  /** One request on its own connection, its response body. */
  async function ask<Req, Res>(
    codec: Parameters<typeof encodeRequest<Req>>[0],
    version: number,
    body: Req,
  ): Promise<Res> {
    const c = await RawClient.connect(b.port);
    try {
      c.send(encodeRequest(codec, version, 7, 'test', body));
      return decodeResponse(codec as never, version, await c.next()).body as Res;
    } finally {
      c.close();
    }
  }

  interface Described {
    name: string;
    value: string | null;
    configSource: number;
    documentation: string | null;
  }
  async function described(topic: string, names: string[]): Promise<Described[]> {
    const res = await ask<unknown, { results: { errorCode: number; configs: Described[] }[] }>(
      DescribeConfigs,
      4,
      {
        resources: [{ resourceType: 2, resourceName: topic, configurationKeys: names }],
        includeSynonyms: false,
        includeDocumentation: true,
      },
    );
    expect(res.results[0]!.errorCode).toBe(0);
    return res.results[0]!.configs;
  }

  it(
    'CreateTopics with file.delete.delay.ms, max.compaction.lag.ms, flush.ms, flush.messages (librdkafka 0077): described as set, noted as not acted on',
    async () => {
      const own = {
        'file.delete.delay.ms': '10000',
        'max.compaction.lag.ms': '100',
        'flush.ms': '1000',
        'flush.messages': '9223372036854775807',
      };
      await create('stored-only', { 'cleanup.policy': 'compact', ...own });
      const names = [...Object.keys(own), 'segment.jitter.ms'];
      const configs = await described('stored-only', names);
      expect(configs.map((c) => [c.name, c.value, c.configSource])).toEqual(
        // DYNAMIC_TOPIC_CONFIG (1) for the topic's own values, DEFAULT_CONFIG (5) otherwise; sorted by name.
        [
          ['file.delete.delay.ms', '10000', 1],
          ['flush.messages', '9223372036854775807', 1],
          ['flush.ms', '1000', 1],
          ['max.compaction.lag.ms', '100', 1],
          ['segment.jitter.ms', '0', 5],
        ],
      );
      for (const c of configs)
        expect(c.documentation, c.name).toMatch(/klog stores this config but does not act on it/);
      // Stored: a restart describes them again.
      b = await b.restart();
      expect((await described('stored-only', ['flush.ms']))[0]).toMatchObject({
        value: '1000',
        configSource: 1,
      });
    },
    LONG,
  );

  it('IncrementalAlterConfigs sets and deletes one; bad values and unknown names are INVALID_CONFIG, as Kafka answers', async () => {
    await create('stored-alter', {});
    const alter = async (configs: { name: string; configOperation: number; value: string | null }[]) =>
      (
        await ask<unknown, { responses: { errorCode: number; errorMessage: string | null }[] }>(
          IncrementalAlterConfigs,
          1,
          { resources: [{ resourceType: 2, resourceName: 'stored-alter', configs }], validateOnly: false },
        )
      ).responses[0]!;
    expect(await alter([{ name: 'preallocate', configOperation: 0, value: 'true' }])).toMatchObject({
      errorCode: 0,
    });
    expect((await described('stored-alter', ['preallocate']))[0]).toMatchObject({
      value: 'true',
      configSource: 1,
    });
    expect(await alter([{ name: 'preallocate', configOperation: 1, value: null }])).toMatchObject({
      errorCode: 0,
    });
    expect((await described('stored-alter', ['preallocate']))[0]).toMatchObject({
      value: 'false',
      configSource: 5,
    });
    expect(await alter([{ name: 'flush.ms', configOperation: 0, value: '-5' }])).toEqual({
      errorCode: 40,
      errorMessage:
        'Invalid value -5 for configuration flush.ms: must be from 0 to 9223372036854775807, got -5',
      resourceType: 2,
      resourceName: 'stored-alter',
    });
    expect(await alter([{ name: 'no.such.config', configOperation: 0, value: '1' }])).toMatchObject({
      errorCode: 40,
      errorMessage: 'Unknown topic config name: no.such.config',
    });
    // CreateTopics checks them the same way.
    await withAdmin(async (admin) => {
      await expect(
        admin.createTopics({
          topics: [{ topic: 'stored-bad', configEntries: [{ name: 'max.compaction.lag.ms', value: '0' }] }],
        }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
      await expect(
        admin.createTopics({
          topics: [{ topic: 'stored-bad', configEntries: [{ name: 'flush.interval', value: '1' }] }],
        }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
    });
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
