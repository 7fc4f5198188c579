// A consumer in a consumer group, as an application runs one, in its own process (so a test can kill -9
// it): `node group-consumer.mjs <kafkajs|platformatic> <bootstrap> <topic> <group>`. One JSON line on
// stdout per event: {"assigned":[partitions]} after each rebalance, {"r":[partition,offset,key]} per
// record, {"closed":true} once SIGTERM closed it (leaving the group).
import { Consumer, stringDeserializers } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';

const [kind, bootstrap, topic, group] = process.argv.slice(2);
const print = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
// Short timeouts: a killed member is evicted in seconds (the broker allows session timeouts from 1 s).
const SESSION_MS = 4000;
const HEARTBEAT_MS = 500;
const REBALANCE_MS = 10000;

async function kafkajs() {
  const kafka = new Kafka({
    clientId: 'kafkajs-group',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    requestTimeout: 2000,
    retry: { initialRetryTime: 100, retries: 50 },
  });
  const consumer = kafka.consumer({
    groupId: group,
    sessionTimeout: SESSION_MS,
    heartbeatInterval: HEARTBEAT_MS,
    rebalanceTimeout: REBALANCE_MS,
    maxWaitTimeInMs: 200,
    retry: { initialRetryTime: 100, retries: 50 },
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) =>
    print({ assigned: e.payload.memberAssignment[topic] ?? [] }),
  );
  consumer.on(consumer.events.CRASH, (e) => print({ crash: String(e.payload.error) }));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  // Offsets committed after every batch (threshold 1) and at least every 100 ms.
  await consumer.run({
    autoCommitInterval: 100,
    autoCommitThreshold: 1,
    eachMessage: async ({ partition, message }) =>
      print({ r: [partition, Number(message.offset), message.key.toString()] }),
  });
  return () => consumer.disconnect();
}

async function platformatic() {
  const consumer = new Consumer({
    clientId: 'platformatic-group',
    groupId: group,
    bootstrapBrokers: [bootstrap],
    deserializers: stringDeserializers,
    sessionTimeout: SESSION_MS,
    heartbeatInterval: HEARTBEAT_MS,
    rebalanceTimeout: REBALANCE_MS,
    requestTimeout: 2000,
    retryDelay: 100,
    retries: 50,
  });
  consumer.on('consumer:group:join', (e) =>
    print({ assigned: (e.assignments ?? []).filter((a) => a.topic === topic).flatMap((a) => a.partitions) }),
  );
  const stream = await consumer.consume({
    topics: [topic],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: 100,
    maxWaitTime: 200,
  });
  stream.on('data', (m) => print({ r: [m.partition, Number(m.offset), m.key] }));
  stream.on('error', (e) => print({ crash: String(e) }));
  return async () => {
    await stream.close();
    await consumer.close();
  };
}

const close = await (kind === 'kafkajs' ? kafkajs() : platformatic());
process.on('SIGTERM', async () => {
  await close();
  print({ closed: true });
  process.exit(0);
});
