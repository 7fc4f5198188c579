import { createRequire } from 'node:module';
import type { Found, KafkaClient, Produced, ProduceRun, Told } from './client.js';
import { keysOf, messageValue } from './client.js';
import { chunks, inPool } from './pool.js';

const require = createRequire(import.meta.url);

/** KafkaJS, loaded only when the demo runs it (a dependency of @klog/cli; skipped if it was removed). */
async function load(): Promise<typeof import('kafkajs')> {
  const mod = (await import('kafkajs')) as typeof import('kafkajs') & { default?: typeof import('kafkajs') };
  return mod.default ?? mod;
}

/**
 * KafkaJS 2.2, in this process: `producer.send()` of at most `batch` messages each, at most `inFlight`
 * sends going at once (one, idempotent: see below). A request with no answer after `requestTimeout` is retried on the same connection; a
 * closed connection is reconnected and the request sent again (its idempotent producer keeps the sequence
 * numbers of a failed request for the retry).
 */
export const kafkajs: KafkaClient = {
  name: 'KafkaJS',

  async find(): Promise<Found> {
    try {
      const { version } = require('kafkajs/package.json') as { version: string };
      await load();
      return { found: true, version: `kafkajs ${version}` };
    } catch (error) {
      return {
        found: false,
        why: (error as Error).message.split('\n')[0]!,
        install: 'npm install kafkajs@2.2.4',
      };
    }
  },

  async produce(_children, run: ProduceRun): Promise<Produced> {
    const { Kafka, logLevel } = await load();
    const kafka = new Kafka({
      clientId: 'klog-ack-loss-kafkajs',
      brokers: [`127.0.0.1:${run.port}`],
      logLevel: logLevel.NOTHING,
      requestTimeout: run.requestTimeoutMs,
      // Connecting is not what is measured: a generous margin on a loaded machine.
      connectionTimeout: 10_000,
      retry: { initialRetryTime: 100, retries: 20 },
    });
    const producer = kafka.producer({
      idempotent: run.idempotence,
      maxInFlightRequests: run.inFlight,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    const told: Told[] = [];
    try {
      const sends = chunks(keysOf(run), run.batch).map((keys) => async () => {
        try {
          const meta = await producer.send({
            topic: run.topic,
            acks: -1,
            messages: keys.map((key) => ({ key, value: messageValue(key), partition: 0 })),
          });
          const base = Number(meta[0]!.baseOffset);
          for (const [i, key] of keys.entries()) told.push({ key, offset: base + i });
        } catch (error) {
          for (const key of keys) told.push({ key, error: (error as Error).message });
        }
      });
      // Idempotent, KafkaJS holds a lock per broker while a request is out, so sends queue behind it anyway;
      // and a send queued there while its connection closes fails with a plain "Broker not connected", which
      // KafkaJS does not retry. So they are made one after the other, as its lock would have them go.
      await inPool(run.idempotence ? 1 : run.inFlight, sends);
    } finally {
      await producer.disconnect();
    }
    return { told, resentByApplication: 0 };
  },

  inFlightNote: (run) =>
    run.idempotence && run.inFlight > 1
      ? 'producer แบบ idempotent ของ KafkaJS ถือกุญแจต่อ broker ตลอดเวลาที่ request ยังค้าง จึงมีค้างได้ทีละหนึ่ง'
      : undefined,
};
