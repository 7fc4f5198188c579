// A Node project's test with node:test and @confluentinc/kafka-javascript (librdkafka underneath), against a
// broker started in the test's own process. Run it as a project would: `node --test node-test-confluent.mjs`
// with both packages installed (klog's tests run it so, in a project folder of their own).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import confluent from '@confluentinc/kafka-javascript';
import { startKafka } from '@klog/broker';

const { Kafka, logLevel } = confluent.KafkaJS;
const { ConsumerGroupTypes } = confluent;

let kafka;
let client;
before(async () => {
  kafka = await startKafka(); // 127.0.0.1, a free port, a temporary data directory
  client = new Kafka({ kafkaJS: { brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING } });
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'greetings', numPartitions: 2 }] });
  await admin.disconnect();
});
after(() => kafka.close()); // the directory is removed with it

/** The first value a new consumer with `config` reads from the start of `greetings`. */
async function firstValue(config) {
  const consumer = client.consumer({ kafkaJS: { fromBeginning: true }, ...config });
  await consumer.connect();
  await consumer.subscribe({ topics: ['greetings'] });
  const value = await new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) });
  });
  await consumer.disconnect();
  return value;
}

test('what is produced is consumed, in a classic group and in a KIP-848 consumer group', async () => {
  const producer = client.producer({ kafkaJS: { idempotent: true } });
  await producer.connect();
  await producer.send({ topic: 'greetings', messages: [{ key: 'k', value: 'hello' }] });
  await producer.disconnect();

  assert.equal(await firstValue({ 'group.id': 'classic-readers' }), 'hello');
  // Kafka 4's consumer group protocol: the broker assigns the partitions (librdkafka 2.15 speaks it).
  assert.equal(await firstValue({ 'group.id': 'new-readers', 'group.protocol': 'consumer' }), 'hello');

  const admin = client.admin();
  await admin.connect();
  const { groups } = await admin.listGroups();
  await admin.disconnect();
  const types = Object.fromEntries(groups.map((g) => [g.groupId, g.type]));
  assert.deepEqual(types, {
    'classic-readers': ConsumerGroupTypes.CLASSIC,
    'new-readers': ConsumerGroupTypes.CONSUMER,
  });
});
