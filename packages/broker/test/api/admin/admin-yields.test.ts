import { describe, expect, it } from 'vitest';
import { startBroker } from '../../support/broker.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

/**
 * Case 8 of issue 22: a CreateTopics of thousands of topics (each directories and an fsync) used to hold
 * the event loop until done, every other client waiting seconds. It now yields between slices: another
 * connection's request sent after it is answered before it finishes.
 */
describe('a CreateTopics of thousands of topics does not stall other connections', () => {
  it('ApiVersions and Metadata on other connections are answered while 2000 topics are being created', async () => {
    const b = await startBroker();
    try {
      const admin = await RawClient.connect(b.port);
      const other = await RawClient.connect(b.port);
      const topics = Array.from({ length: 2000 }, (_, i) => ({
        topic: `bulk-${i}`,
        numPartitions: 1,
        replicationFactor: 1,
      }));
      const create = await kafkajs('createTopics', 0, { topics, timeout: 60_000 }, 1);
      const versions = await kafkajs('apiVersions', 2, {}, 2);
      const metadata = await kafkajs('metadata', 4, { topics: [], allowAutoTopicCreation: false }, 3);
      const order: string[] = [];
      admin.send(create.frame);
      const created = admin.next().then(async (frame) => {
        order.push('CreateTopics');
        return (await create.decode(frame)).data as { topicErrors: { errorCode: number }[] };
      });
      // Sent once the broker is working on the CreateTopics (its first topics are on disk).
      while (b.broker.requestStats.get('CreateTopics') === undefined)
        await new Promise((r) => setImmediate(r));
      other.send(versions.frame);
      await other.next().then(() => order.push('ApiVersions'));
      other.send(metadata.frame);
      await other.next().then(() => order.push('Metadata'));
      const result = await created;
      expect(order).toEqual(['ApiVersions', 'Metadata', 'CreateTopics']);
      expect(result.topicErrors.filter((t) => t.errorCode === 0)).toHaveLength(2000);
      admin.close();
      other.close();
    } finally {
      await b.stop();
    }
  });
});
