import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Admin } from '@platformatic/kafka';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { PYTHON } from '../support/clients.js';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const LONG = 120_000;

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ logSettings: { 'log.retention.hours': '48' } });
});
afterAll(() => b?.stop());

function kafka(port = b.port) {
  return new Kafka({
    clientId: 'admin-test',
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 5000,
    retry: { initialRetryTime: 100, retries: 3 },
  });
}

async function produce(topic: string, partition: number, count: number, port = b.port): Promise<void> {
  const producer = kafka(port).producer({ idempotent: true });
  await producer.connect();
  try {
    for (let i = 0; i < count; i++) {
      await producer.send({ topic, acks: -1, messages: [{ partition, key: `k${i}`, value: `v${i}` }] });
    }
  } finally {
    await producer.disconnect();
  }
}

/** A restart on the same data directory: `b` is the broker after it. */
async function restart(): Promise<void> {
  b = await b.restart();
}

describe('KafkaJS 2.2.4 admin: the whole life of a topic', () => {
  it(
    'create with configs → describe → alter → describe → add partitions → delete records → delete → gone after a restart',
    async () => {
      const topic = 'kjs-life';
      const admin = kafka().admin();
      await admin.connect();
      try {
        expect(
          await admin.createTopics({
            topics: [
              {
                topic,
                numPartitions: 1,
                configEntries: [
                  { name: 'cleanup.policy', value: 'compact' },
                  { name: 'retention.ms', value: '3600000' },
                ],
              },
            ],
          }),
        ).toBe(true);
        const describe = async () => {
          const { resources } = await admin.describeConfigs({
            resources: [
              {
                type: ConfigResourceTypes.TOPIC,
                name: topic,
                configNames: ['cleanup.policy', 'retention.ms', 'segment.bytes'],
              },
            ],
            includeSynonyms: true,
          });
          expect(resources[0]!.errorCode).toBe(0);
          return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e]));
        };
        const before = await describe();
        expect(before['cleanup.policy']).toMatchObject({
          configValue: 'compact',
          configSource: 1,
          readOnly: false,
          isSensitive: false,
        });
        expect(before['retention.ms']).toMatchObject({ configValue: '3600000', configSource: 1 });
        // The broker's own default for it (log.retention.hours=48) and Kafka's, as synonyms, most specific first.
        expect(before['retention.ms']!.configSynonyms).toEqual([
          { configName: 'retention.ms', configValue: '3600000', configSource: 1 },
          { configName: 'log.retention.ms', configValue: '172800000', configSource: 4 },
          { configName: 'log.retention.ms', configValue: '604800000', configSource: 5 },
        ]);
        expect(before['segment.bytes']).toMatchObject({ configValue: '1073741824', configSource: 5 });

        await admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: ConfigResourceTypes.TOPIC,
              name: topic,
              configEntries: [{ name: 'retention.ms', value: '7200000' }],
            },
          ],
        });
        const after = await describe();
        expect(after['retention.ms']).toMatchObject({ configValue: '7200000', configSource: 1 });
        // AlterConfigs replaces the whole set: cleanup.policy is the default again.
        expect(after['cleanup.policy']).toMatchObject({ configValue: 'delete', configSource: 5 });
        await expect(
          admin.alterConfigs({
            validateOnly: false,
            resources: [
              {
                type: ConfigResourceTypes.TOPIC,
                name: topic,
                configEntries: [{ name: 'flush.ms', value: '-5' }],
              },
            ],
          }),
        ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });

        await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        expect(topics[0]!.partitions).toHaveLength(3);

        await produce(topic, 1, 6);
        await admin.deleteTopicRecords({ topic, partitions: [{ partition: 1, offset: '4' }] });
        const offsets = await admin.fetchTopicOffsets(topic);
        expect(offsets.find((o) => o.partition === 1)).toMatchObject({ low: '4', high: '6' });

        expect(await admin.deleteTopics({ topics: [topic] })).toBeUndefined();
        expect(await admin.listTopics()).not.toContain(topic);
      } finally {
        await admin.disconnect();
      }
      await restart();
      const again = kafka().admin();
      await again.connect();
      try {
        expect(await again.listTopics()).not.toContain(topic);
      } finally {
        await again.disconnect();
      }
    },
    LONG,
  );
});

describe('@platformatic/kafka 1.35 Admin: the whole life of a topic', () => {
  it(
    'create with configs → describe (v4) → incremental alter → describe → add partitions → delete records → log dirs → delete → gone after a restart',
    async () => {
      const topic = 'plt-life';
      const options = {
        clientId: 'plt-admin',
        bootstrapBrokers: [`127.0.0.1:${b.port}`],
        retries: 2,
        retryDelay: 100,
        requestTimeout: 5000,
      };
      const admin = new Admin(options);
      try {
        await admin.createTopics({
          topics: [topic],
          partitions: 1,
          replicas: 1,
          configs: [{ name: 'retention.bytes', value: '100000' }],
        });
        const describe = async () => {
          const [one] = await admin.describeConfigs({
            resources: [{ resourceType: 2, resourceName: topic }],
            includeSynonyms: true,
          });
          return Object.fromEntries(one!.configs.map((c) => [c.name, c]));
        };
        const before = await describe();
        expect(before['retention.bytes']).toMatchObject({ value: '100000', configSource: 1, configType: 5 });
        expect(before['cleanup.policy']).toMatchObject({ value: 'delete', configSource: 5, configType: 7 });
        expect(before['min.cleanable.dirty.ratio']).toMatchObject({ value: '0.5', configType: 6 });

        await admin.incrementalAlterConfigs({
          resources: [
            {
              resourceType: 2,
              resourceName: topic,
              configs: [
                { name: 'retention.bytes', configOperation: 0, value: '200000' },
                { name: 'cleanup.policy', configOperation: 2, value: 'compact' },
                { name: 'message.timestamp.type', configOperation: 0, value: 'LogAppendTime' },
              ],
            },
          ],
        });
        const after = await describe();
        expect(after['retention.bytes']).toMatchObject({ value: '200000', configSource: 1 });
        expect(after['cleanup.policy']).toMatchObject({ value: 'delete,compact', configSource: 1 });
        expect(after['message.timestamp.type']).toMatchObject({ value: 'LogAppendTime', configSource: 1 });
        // DELETE: back to the default; the others stay.
        await admin.incrementalAlterConfigs({
          resources: [
            {
              resourceType: 2,
              resourceName: topic,
              configs: [{ name: 'message.timestamp.type', configOperation: 1 }],
            },
          ],
        });
        const deleted = await describe();
        expect(deleted['message.timestamp.type']).toMatchObject({ value: 'CreateTime', configSource: 5 });
        expect(deleted['retention.bytes']).toMatchObject({ value: '200000' });

        await admin.createPartitions({ topics: [{ name: topic, count: 2 }] });
        expect((await admin.metadata({ topics: [topic] })).topics.get(topic)?.partitionsCount).toBe(2);

        await produce(topic, 0, 5);
        const removed = await admin.deleteRecords({
          topics: [{ name: topic, partitions: [{ partition: 0, offset: 3n }] }],
        });
        expect(removed).toEqual([{ name: topic, partitions: [{ partition: 0, lowWatermark: 3n }] }]);

        const dirs = await admin.describeLogDirs({ topics: [{ name: topic, partitions: [0, 1] }] });
        const partitions = dirs[0]!.results[0]!.topics.find((t) => t.name === topic)!.partitions;
        expect(partitions.map((p) => p.partitionIndex)).toEqual([0, 1]);
        expect(partitions[0]!.partitionSize).toBeGreaterThan(0n);
        expect(partitions[1]!.partitionSize).toBe(0n);

        await admin.deleteTopics({ topics: [topic] });
        expect(await admin.listTopics()).not.toContain(topic);
      } finally {
        await admin.close();
      }
      await restart();
      const again = new Admin({ ...options, bootstrapBrokers: [`127.0.0.1:${b.port}`] });
      try {
        expect(await again.listTopics()).not.toContain(topic);
      } finally {
        await again.close();
      }
    },
    LONG,
  );
});

describe("confluent-kafka's AdminClient (librdkafka 2.0.2)", () => {
  it(
    'create with configs → describe → alter → describe → add partitions → delete → gone after a restart',
    async () => {
      const topic = 'py-life';
      const script = join(HERE, '..', 'support', 'admin.py');
      const { stdout } = await run(PYTHON, [script, 'lifecycle', `127.0.0.1:${b.port}`, topic], {
        timeout: 60_000,
      });
      const steps = Object.fromEntries(
        stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { step: string; value: unknown })
          .map((s) => [s.step, s.value]),
      ) as Record<string, unknown>;
      // librdkafka's ConfigSource numbers are Kafka's: 1 dynamic topic config, 5 default.
      expect(steps.described).toEqual({
        'cleanup.policy': { value: 'compact', source: 1, is_default: false, read_only: false },
        'retention.ms': { value: '3600000', source: 1, is_default: false, read_only: false },
        'segment.bytes': { value: '1073741824', source: 5, is_default: true, read_only: false },
      });
      expect(steps.altered).toEqual({
        'cleanup.policy': { value: 'delete', source: 5, is_default: true, read_only: false },
        'retention.ms': { value: '7200000', source: 1, is_default: false, read_only: false },
        'segment.bytes': { value: '1048576', source: 1, is_default: false, read_only: false },
      });
      expect(steps.refused).toMatch(
        /Invalid value 99 for configuration compression\.zstd\.level: must be from -131072 to 22/,
      );
      expect(steps.partitions).toBe(3);
      expect(steps.deleted).not.toContain(topic);
      // What librdkafka sent, as the debug log names it.
      expect(b.lines.some((l) => /DescribeConfigs v[01] /.test(l))).toBe(true);
      await restart();
      const listed = await run(PYTHON, [script, 'list', `127.0.0.1:${b.port}`], { timeout: 60_000 });
      expect((JSON.parse(listed.stdout) as { value: string[] }).value).not.toContain(topic);
    },
    LONG,
  );
});
