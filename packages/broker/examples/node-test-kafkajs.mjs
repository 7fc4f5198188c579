// A Node project's test with node:test and KafkaJS, against a broker started in the test's own process.
// Run it as a project would: `node --test examples/node-test-kafkajs.mjs` (klog's tests run it so).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startKafka } from '@klog/broker';
import { Kafka, logLevel } from 'kafkajs';

let kafka;
before(async () => {
  kafka = await startKafka(); // 127.0.0.1, a free port, a temporary data directory
});
after(() => kafka.close()); // the directory is removed with it

test('what is produced is consumed', async () => {
  const client = new Kafka({ brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING });
  const producer = client.producer({ idempotent: true, allowAutoTopicCreation: true });
  await producer.connect();
  await producer.send({ topic: 'greetings', messages: [{ value: 'hello' }] });
  await producer.disconnect();

  const consumer = client.consumer({ groupId: 'test' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'greetings', fromBeginning: true });
  const value = await new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) });
  });
  await consumer.disconnect();
  assert.equal(value, 'hello');
});
