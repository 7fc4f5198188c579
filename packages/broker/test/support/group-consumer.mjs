// A consumer in a consumer group, as an application runs one, in its own process (so a test can kill -9
// it): `node group-consumer.mjs <kafkajs|platformatic|platformatic-consumer> <bootstrap> <topic> <group>`
// (platformatic-consumer: @platformatic/kafka under Kafka 4's consumer group protocol). One JSON line on
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

async function platformatic(groupProtocol) {
  const consumer = new Consumer({
    clientId: 'platformatic-group',
    groupId: group,
    bootstrapBrokers: [bootstrap],
    deserializers: stringDeserializers,
    // Under the consumer protocol (KIP-848) the broker sets the session and heartbeat timeouts; 1.35
    // still checks rebalanceTimeout against its own default sessionTimeout, so that one stays default too.
    ...(groupProtocol === 'consumer'
      ? { groupProtocol }
      : { sessionTimeout: SESSION_MS, heartbeatInterval: HEARTBEAT_MS, rebalanceTimeout: REBALANCE_MS }),
    requestTimeout: 2000,
    retryDelay: 100,
    retries: 50,
  });
  const mine = (assignments) =>
    (assignments ?? []).filter((a) => a.topic === topic).flatMap((a) => a.partitions);
  if (groupProtocol === 'consumer') {
    // 1.35 emits consumer:group:join once, without assignments, under this protocol; each heartbeat's
    // assignment only updates `consumer.assignments`: print it when it changes.
    let last = '';
    setInterval(() => {
      const now = JSON.stringify(mine(consumer.assignments).sort((a, b) => a - b));
      if (now !== last) {
        last = now;
        print({ assigned: JSON.parse(now) });
      }
    }, 100).unref();
  } else {
    consumer.on('consumer:group:join', (e) => print({ assigned: mine(e.assignments) }));
  }
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

const close = await (kind === 'kafkajs'
  ? kafkajs()
  : platformatic(kind === 'platformatic-consumer' ? 'consumer' : 'classic'));
process.on('SIGTERM', async () => {
  await close();
  print({ closed: true });
  process.exit(0);
});
