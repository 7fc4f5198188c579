import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Found, KafkaClient, Produced, ProduceRun, Told } from './client.js';
import { keysOf, messageValue } from './client.js';
import { chunks, inPool } from './pool.js';

const require = createRequire(import.meta.url);

/** @platformatic/kafka, loaded only when the demo runs it (a dependency of @klog/cli; skipped if it was removed). */
function load(): Promise<typeof import('@platformatic/kafka')> {
  return import('@platformatic/kafka');
}

/** Its version, from the package.json beside its entry point (the package exports nothing else). */
function version(): string {
  const entry = require.resolve('@platformatic/kafka');
  let dir = dirname(entry);
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === '@platformatic/kafka' && pkg.version !== undefined) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return 'unknown';
}

/** How often the application sends a message again after the library reported it failed. */
const APPLICATION_RESENDS = 5;

/**
 * @platformatic/kafka 1.35, in this process: `producer.send()` of at most `batch` messages each. A closed
 * connection is reconnected and the request sent again by the library; a request with no answer after
 * `requestTimeout` is not (its TimeoutError says `canRetry: false`): the application is told the send
 * failed, though the broker may well have written it — the chapter's dilemma, handed to the application.
 * The demo answers it as an application that must not lose a message does: it sends the same messages again
 * at once, before any other. (That matters with idempotence on: the library moves a partition's sequence
 * number on only when an answer comes, so the resend carries the same sequence numbers and the broker
 * answers it as a duplicate, with the original offset. Had another message been sent first, it would have
 * taken those numbers, been answered as that duplicate, and never been written.)
 *
 * Its idempotent producer sends one request at a time (it sets `maxInflights` to 1, and takes a sequence
 * number when it builds a request), so its sends are made one after the other then.
 */
export const platformatic: KafkaClient = {
  name: '@platformatic/kafka',
  resendNote:
    'หมดเวลารอแล้ว @platformatic/kafka 1.35 ไม่ส่งซ้ำเอง มันแจ้ง application ว่าส่งไม่สำเร็จ ทั้งที่ batch อยู่บน log แล้ว application จึงส่งข้อความนั้นใหม่ทันที',

  async find(): Promise<Found> {
    try {
      await load();
      return { found: true, version: `@platformatic/kafka ${version()}` };
    } catch (error) {
      return {
        found: false,
        why: (error as Error).message.split('\n')[0]!,
        install: 'npm install @platformatic/kafka@1.35.0',
      };
    }
  },

  async produce(_children, run: ProduceRun): Promise<Produced> {
    const { Producer, stringSerializers } = await load();
    const producer = new Producer({
      clientId: 'klog-ack-loss-platformatic',
      bootstrapBrokers: [`127.0.0.1:${run.port}`],
      idempotent: run.idempotence,
      serializers: stringSerializers,
      maxInflights: run.inFlight,
      requestTimeout: run.requestTimeoutMs,
      // Connecting is not what is measured: a generous margin on a loaded machine.
      connectTimeout: 10_000,
      retryDelay: 100,
      retries: 20,
    });
    const told: Told[] = [];
    let resentByApplication = 0;
    try {
      const sends = chunks(keysOf(run), run.batch).map((keys) => async () => {
        const messages = keys.map((key) => ({
          topic: run.topic,
          key,
          value: messageValue(key),
          partition: 0,
        }));
        let failure: Error | undefined;
        for (let attempt = 0; attempt <= APPLICATION_RESENDS; attempt++) {
          if (attempt > 0) resentByApplication++;
          try {
            const result = await producer.send({ acks: -1, messages });
            const base = Number(result.offsets?.[0]?.offset ?? Number.NaN);
            for (const [i, key] of keys.entries()) told.push({ key, offset: base + i });
            return;
          } catch (error) {
            failure = error as Error;
          }
        }
        for (const key of keys) told.push({ key, error: failure!.message });
      });
      await inPool(run.idempotence ? 1 : run.inFlight, sends);
    } finally {
      await producer.close();
    }
    return { told, resentByApplication };
  },

  inFlightNote: (run) =>
    run.idempotence && run.inFlight > 1
      ? 'producer แบบ idempotent ของ @platformatic/kafka ตั้ง maxInflights เป็น 1 จึงมี request ค้างได้ทีละหนึ่ง'
      : undefined,
};
