import { Admin } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, RawClient, rawFrame } from '../../support/raw-client.js';

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ numPartitions: 2, autoCreateTopics: false });
});
afterAll(() => b.stop());

function kafka() {
  return new Kafka({
    clientId: 'topics-test',
    brokers: [`127.0.0.1:${b.port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 1000,
    retry: { initialRetryTime: 100, retries: 3 },
  });
}

describe('Metadata and CreateTopics through real clients', () => {
  it('KafkaJS admin: creates topics, lists them, sees this broker as leader and controller at its advertised address', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      expect(
        await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }], waitForLeaders: true }),
      ).toBe(true);
      expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] })).toBe(false);
      expect((await admin.listTopics()).sort()).toEqual(['orders']);
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([{ nodeId: 0, host: '127.0.0.1', port: b.port }]);
      expect(cluster.controller).toBe(0);
      const { topics } = await admin.fetchTopicMetadata({ topics: ['orders'] });
      expect(topics[0]!.partitions.map((p) => [p.partitionId, p.leader, p.replicas, p.isr]).sort()).toEqual([
        [0, 0, [0], [0]],
        [1, 0, [0], [0]],
        [2, 0, [0], [0]],
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it('KafkaJS admin: Kafka’s errors for a replication factor above one broker, a bad name, topic configs klog does not apply or cannot read', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      await expect(
        admin.createTopics({ topics: [{ topic: 'r3', numPartitions: 1, replicationFactor: 3 }] }),
      ).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_REPLICATION_FACTOR' })],
      });
      await expect(
        admin.createTopics({ topics: [{ topic: 'bad name!', numPartitions: 1 }] }),
      ).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_TOPIC_EXCEPTION' })],
      });
      await expect(
        admin.createTopics({
          topics: [
            {
              topic: 'compacted',
              numPartitions: 1,
              configEntries: [{ name: 'compression.type', value: 'brotli' }],
            },
          ],
        }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
      await expect(
        admin.createTopics({
          topics: [
            {
              topic: 'compacted',
              numPartitions: 1,
              configEntries: [{ name: 'cleanup.policy', value: 'squash' }],
            },
          ],
        }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'INVALID_CONFIG' })] });
      await expect(
        admin.createTopics({ topics: [{ topic: 'zero', numPartitions: 0 }] }),
      ).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_PARTITIONS' })],
      });
      expect(await admin.listTopics()).not.toContain('compacted');
    } finally {
      await admin.disconnect();
    }
  });

  it('@platformatic/kafka admin: CreateTopics v7 and Metadata v9', async () => {
    const admin = new Admin({
      clientId: 'plt-topics',
      bootstrapBrokers: [`127.0.0.1:${b.port}`],
      retries: 2,
      retryDelay: 100,
      requestTimeout: 1000,
    });
    try {
      const created = await admin.createTopics({ topics: ['payments'], partitions: 4, replicas: 1 });
      expect(created).toMatchObject([{ name: 'payments', partitions: 4, replicas: 1 }]);
      expect((await admin.listTopics()).sort()).toEqual(['orders', 'payments']);
      const metadata = await admin.metadata({ topics: ['payments'] });
      expect(metadata.topics.get('payments')?.partitionsCount).toBe(4);
    } finally {
      await admin.close();
    }
  });

  it('Metadata: an unknown topic is UNKNOWN_TOPIC_OR_PARTITION unless auto-creation is on and the client allows it', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs('metadata', 6, { topics: ['nope'], allowAutoTopicCreation: true });
    c.send(req.frame);
    const { data } = await req.decode(await c.next());
    expect((data.topicMetadata as { topic: string; topicErrorCode: number }[])[0]).toMatchObject({
      topic: 'nope',
      topicErrorCode: 3,
    });
    c.close();

    const auto = await startBroker({ numPartitions: 2 }); // Kafka's default: auto.create.topics.enable=true
    try {
      const a = await RawClient.connect(auto.port);
      const refused = await kafkajs('metadata', 6, { topics: ['wanted'], allowAutoTopicCreation: false }, 2);
      a.send(refused.frame);
      expect(
        ((await refused.decode(await a.next())).data.topicMetadata as { topicErrorCode: number }[])[0]!
          .topicErrorCode,
      ).toBe(3);
      const allowed = await kafkajs(
        'metadata',
        6,
        { topics: ['wanted', 'bad/name'], allowAutoTopicCreation: true },
        3,
      );
      a.send(allowed.frame);
      const topics = (await allowed.decode(await a.next())).data.topicMetadata as {
        topic: string;
        topicErrorCode: number;
        partitionMetadata: unknown[];
      }[];
      expect(topics.map((t) => [t.topic, t.topicErrorCode, t.partitionMetadata.length])).toEqual([
        ['wanted', 0, 2],
        ['bad/name', 17, 0],
      ]);
      expect(auto.lines).toContain(
        'info: created topic wanted with 2 partition(s) (auto-create, asked by Metadata)',
      );
      a.close();
    } finally {
      await auto.stop();
    }
  });

  it('Metadata v0: an empty list asks for every topic; v1+: null asks for every topic, an empty list for none', async () => {
    const c = await RawClient.connect(b.port);
    const v0 = await kafkajs('metadata', 0, { topics: [] }, 1);
    c.send(v0.frame);
    expect(((await v0.decode(await c.next())).data.topicMetadata as unknown[]).length).toBe(2);
    // KafkaJS writes null for an empty list; an empty list itself (INT32 0) asks for no topic.
    const decoder = await kafkajs('metadata', 1, { topics: [] }, 2);
    c.send(rawFrame(3, 1, 2, new Uint8Array([0, 0, 0, 0])));
    expect(((await decoder.decode(await c.next())).data.topicMetadata as unknown[]).length).toBe(0);
    c.send(decoder.frame);
    expect(((await decoder.decode(await c.next())).data.topicMetadata as unknown[]).length).toBe(2);
    c.close();
  });
});
