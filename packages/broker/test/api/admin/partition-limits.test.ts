import { readdirSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

/**
 * Issue 40, 1(b): nothing bounded the partitions one request, or one broker, could make. Here
 * `max.partitions.per.request` is 10 and `max.broker.partitions` 25: past either, CreateTopics,
 * CreatePartitions and Metadata's auto-creation answer POLICY_VIOLATION (Kafka's controller's answer to an
 * operation over its record bound) and make nothing of the request.
 */
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ numPartitions: 4, maxPartitionsPerRequest: 10, maxBrokerPartitions: 25 });
});
afterAll(() => b.stop());

function kafka() {
  return new Kafka({
    clientId: 'limits-test',
    brokers: [`127.0.0.1:${b.port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
}

/** The partition directories on disk, by topic. */
function onDisk(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of readdirSync(b.dataDir)) {
    const m = /^(.+)-(\d+)$/.exec(entry);
    if (m !== null) counts[m[1]!] = (counts[m[1]!] ?? 0) + 1;
  }
  return counts;
}

describe('limits on partitions per request and per broker', () => {
  it('KafkaJS admin: a CreateTopics over max.partitions.per.request is refused whole, in Kafka’s words; within it, made', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      await expect(
        admin.createTopics({
          topics: [
            { topic: 'six', numPartitions: 6 },
            { topic: 'five', numPartitions: 5 },
          ],
        }),
      ).rejects.toMatchObject({
        errors: [
          expect.objectContaining({ type: 'POLICY_VIOLATION' }),
          expect.objectContaining({ type: 'POLICY_VIOLATION' }),
        ],
      });
      await expect(
        admin.createTopics({ validateOnly: true, topics: [{ topic: 'eleven', numPartitions: 11 }] }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'POLICY_VIOLATION' })] });
      expect(await admin.listTopics()).toEqual([]);
      expect(onDisk()).toEqual({});

      // The message, as Kafka's controller words it (CreateTopics v1+ carries it).
      const c = await RawClient.connect(b.port);
      try {
        const req = await kafkajs('createTopics', 1, {
          topics: [{ topic: 'eleven', numPartitions: 11, replicationFactor: 1 }],
          timeout: 5000,
        });
        c.send(req.frame);
        const answer = (await req.decode(await c.next())).data as {
          topicErrors: { topic: string; errorCode: number; errorMessage: string }[];
        };
        expect(answer.topicErrors).toEqual([
          {
            topic: 'eleven',
            errorCode: 44,
            errorMessage: 'Unable to perform excessively large batch operation.',
          },
        ]);
      } finally {
        c.close();
      }

      expect(
        await admin.createTopics({
          topics: [
            { topic: 'six', numPartitions: 6 },
            { topic: 'four', numPartitions: 4 },
          ],
        }),
      ).toBe(true);
      expect(onDisk()).toEqual({ six: 6, four: 4 });
    } finally {
      await admin.disconnect();
    }
  });

  it('KafkaJS admin: a CreatePartitions over either limit is refused and grows nothing; within them it grows', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      // 4 → 15 adds 11, over the per-request bound.
      await expect(
        admin.createPartitions({ topicPartitions: [{ topic: 'four', count: 15 }] }),
      ).rejects.toMatchObject({ type: 'POLICY_VIOLATION' });
      // Two topics adding 6 each: 12 in one request.
      await expect(
        admin.createPartitions({
          topicPartitions: [
            { topic: 'four', count: 10 },
            { topic: 'six', count: 12 },
          ],
        }),
      ).rejects.toMatchObject({ type: 'POLICY_VIOLATION' });
      expect(onDisk()).toEqual({ six: 6, four: 4 });
      // 10 held; +10 is within both.
      await admin.createPartitions({ topicPartitions: [{ topic: 'four', count: 14 }] });
      expect(onDisk()).toEqual({ six: 6, four: 14 });
      // 20 held: +6 would be 26, over max.broker.partitions (25).
      await expect(
        admin.createPartitions({ topicPartitions: [{ topic: 'six', count: 12 }] }),
      ).rejects.toMatchObject({ type: 'POLICY_VIOLATION' });
      await expect(
        admin.createTopics({ topics: [{ topic: 'more', numPartitions: 6 }] }),
      ).rejects.toMatchObject({ errors: [expect.objectContaining({ type: 'POLICY_VIOLATION' })] });
      expect(onDisk()).toEqual({ six: 6, four: 14 });
      const c = await RawClient.connect(b.port);
      try {
        const req = await kafkajs('createPartitions', 0, {
          topicPartitions: [{ topic: 'six', count: 12 }],
          timeout: 5000,
        });
        c.send(req.frame);
        const answer = (await req.decode(await c.next())).data as {
          topicErrors: { topic: string; errorCode: number; errorMessage: string }[];
        };
        expect(answer.topicErrors).toEqual([
          {
            topic: 'six',
            errorCode: 44,
            errorMessage:
              'Unable to add 6 partition(s): this broker holds 20 and may hold at most 25 (max.broker.partitions).',
          },
        ]);
      } finally {
        c.close();
      }
    } finally {
      await admin.disconnect();
    }
  });

  it('Metadata’s auto-creation past max.broker.partitions: POLICY_VIOLATION for the topic, nothing made; within it, made', async () => {
    // 20 held, num.partitions 4: one auto-created topic fits (24), a second would not (28).
    const c = await RawClient.connect(b.port);
    try {
      const ask = async (topic: string, correlationId: number) => {
        const req = await kafkajs(
          'metadata',
          4,
          { topics: [topic], allowAutoTopicCreation: true },
          correlationId,
        );
        c.send(req.frame);
        const data = (await req.decode(await c.next())).data as {
          topicMetadata: { topic: string; topicErrorCode: number; partitionMetadata: unknown[] }[];
        };
        return data.topicMetadata.map((t) => [t.topic, t.topicErrorCode, t.partitionMetadata.length]);
      };
      expect(await ask('auto-a', 1)).toEqual([['auto-a', 0, 4]]);
      expect(await ask('auto-b', 2)).toEqual([['auto-b', 44, 0]]);
      expect(onDisk()).toEqual({ six: 6, four: 14, 'auto-a': 4 });
    } finally {
      c.close();
    }
  });
});
