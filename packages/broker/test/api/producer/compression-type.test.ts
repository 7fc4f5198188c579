import { compressionOf, LogManager } from '@klog/storage';
import { CompressionTypes, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker, tempDir } from '../../support/broker.js';

/**
 * `compression.type` as Kafka's broker has it: a broker default (`compression.type`, the same name), a
 * topic value set at CreateTopics and AlterConfigs, DescribeConfigs naming where the value comes from; and
 * what it does: an idempotent KafkaJS producer's gzip batches stored in the topic's codec, its producer
 * fields kept.
 */
const LONG = 120_000;
const data = tempDir('klog-compression-');
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ logSettings: { 'compression.type': 'snappy' } }, data.dir);
});
afterAll(async () => {
  await b?.stop();
  data.remove();
});

function kafka() {
  return new Kafka({
    clientId: 'compression-test',
    brokers: [`127.0.0.1:${b.port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 5000,
    retry: { initialRetryTime: 100, retries: 3 },
  });
}

describe('compression.type through KafkaJS 2.2.4 (CreateTopics, DescribeConfigs, AlterConfigs, Produce)', () => {
  it(
    'lz4 at create, gzip after AlterConfigs, the broker default (snappy) for a topic without one',
    async () => {
      const admin = kafka().admin();
      await admin.connect();
      const describe = async (topic: string) => {
        const { resources } = await admin.describeConfigs({
          resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['compression.type'] }],
          includeSynonyms: true,
        });
        return resources[0]!.configEntries[0]!;
      };
      try {
        await admin.createTopics({
          topics: [
            { topic: 'cz', numPartitions: 1, configEntries: [{ name: 'compression.type', value: 'lz4' }] },
            { topic: 'dflt', numPartitions: 1 },
          ],
        });
        expect(await describe('cz')).toMatchObject({
          configName: 'compression.type',
          configValue: 'lz4',
          configSource: 1,
          readOnly: false,
          configSynonyms: [
            { configName: 'compression.type', configValue: 'lz4', configSource: 1 },
            { configName: 'compression.type', configValue: 'snappy', configSource: 4 },
            { configName: 'compression.type', configValue: 'producer', configSource: 5 },
          ],
        });
        expect(await describe('dflt')).toMatchObject({ configValue: 'snappy', configSource: 4 });

        const producer = kafka().producer({ idempotent: true });
        await producer.connect();
        try {
          const send = (topic: string, tag: string) =>
            producer.send({
              topic,
              acks: -1,
              compression: CompressionTypes.GZIP,
              messages: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `${tag}-${i}` })),
            });
          await send('cz', 'a');
          await admin.alterConfigs({
            validateOnly: false,
            resources: [
              {
                type: ConfigResourceTypes.TOPIC,
                name: 'cz',
                configEntries: [{ name: 'compression.type', value: 'uncompressed' }],
              },
            ],
          });
          expect(await describe('cz')).toMatchObject({ configValue: 'uncompressed', configSource: 1 });
          await send('cz', 'b');
          await send('dflt', 'a');
        } finally {
          await producer.disconnect();
        }
        await expect(
          admin.alterConfigs({
            validateOnly: false,
            resources: [
              {
                type: ConfigResourceTypes.TOPIC,
                name: 'cz',
                configEntries: [{ name: 'compression.type', value: 'deflate' }],
              },
            ],
          }),
        ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });
      } finally {
        await admin.disconnect();
      }
      await b.broker.close();

      // What is on disk, read by storage: each batch in the codec its topic had when it was appended.
      const manager = LogManager.open(data.dir, { ownEntries: ['.broker'] });
      try {
        const stored = (topic: string) =>
          [...manager.partition(topic, 0)!.log.batches()].map(({ batch }) => ({
            codec: compressionOf(batch.attributes),
            producerId: batch.producerId,
            baseSequence: batch.baseSequence,
            values: batch.records.map((r) => Buffer.from(r.value!).toString()),
          }));
        const cz = stored('cz');
        expect(cz.map((x) => x.codec)).toEqual(['lz4', 'none']);
        expect(cz.map((x) => x.baseSequence)).toEqual([0, 5]);
        expect(cz[0]!.producerId).toBeGreaterThanOrEqual(0);
        expect(cz[1]!.producerId).toBe(cz[0]!.producerId);
        expect(cz.flatMap((x) => x.values)).toEqual([
          ...Array.from({ length: 5 }, (_, i) => `a-${i}`),
          ...Array.from({ length: 5 }, (_, i) => `b-${i}`),
        ]);
        expect(stored('dflt').map((x) => x.codec)).toEqual(['snappy']);
      } finally {
        manager.close();
      }
      b = await startBroker({ logSettings: { 'compression.type': 'snappy' } }, data.dir);
    },
    LONG,
  );
});
