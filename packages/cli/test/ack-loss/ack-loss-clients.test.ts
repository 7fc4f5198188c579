import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker } from '@klog/broker';
import { Log } from '@klog/storage';
import { afterAll, describe, expect, it } from 'vitest';
import type { KafkaClient, Produced } from '../../src/ack-loss/clients/client.js';
import { confluentKafka } from '../../src/ack-loss/clients/confluent-kafka.js';
import { kafkajs } from '../../src/ack-loss/clients/kafkajs.js';
import { kcat } from '../../src/ack-loss/clients/kcat.js';
import { platformatic } from '../../src/ack-loss/clients/platformatic.js';
import { Children } from '../../src/ack-loss/processes.js';
import { AdminClient } from '../../src/topics/admin-client.js';

/**
 * Each real client against a broker that loses N = 3 acks (two responses dropped, one connection closed,
 * after the append): with idempotence off the log ends up with exactly N duplicates; with it on, none, and
 * every offset the client was told holds that message. Counted here from the segment files, apart from the
 * demo's own counting. One message per request, one request in flight, so the numbers are exact.
 */
const LONG_TIMEOUT_MS = 300_000;
const DROP = 2;
const CLOSE = 1;
const N = DROP + CLOSE;
const MESSAGES = 6;
const TOPIC = 'lost-acks';

const scratch = mkdtempSync(join(tmpdir(), 'klog-ack-loss-clients-'));
const children = new Children();
afterAll(() => {
  children.killAll();
  rmSync(scratch, { recursive: true, force: true });
});

/** Every record of the partition, read from the segment files: [offset, key]. */
function logOf(dataDir: string): [number, string][] {
  const log = Log.open(join(dataDir, `${TOPIC}-0`));
  try {
    const out: [number, string][] = [];
    let offset = 0;
    while (offset < log.logEndOffset) {
      for (const batch of log.readCheckedBatches(offset)) {
        for (const r of batch.records)
          out.push([batch.baseOffset + r.offsetDelta, Buffer.from(r.key!).toString()]);
        offset = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
    }
    return out;
  } finally {
    log.close();
  }
}

/** The test's topic, one partition, created through the broker's own CreateTopics (as a client would). */
async function createTopic(port: number): Promise<void> {
  const admin = await AdminClient.connect('127.0.0.1', port);
  try {
    const created = await admin.createTopic(TOPIC, 1);
    if (created?.errorCode !== 0)
      throw new Error(`CreateTopics ${TOPIC}: error ${String(created?.errorCode)}`);
  } finally {
    admin.close();
  }
}

async function run(
  client: KafkaClient,
  idempotence: boolean,
): Promise<{ produced: Produced; log: [number, string][]; faults: { dropped: number; closed: number } }> {
  const dataDir = join(scratch, `${client.name.replace(/\W+/g, '-')}-${idempotence ? 'on' : 'off'}`);
  mkdirSync(dataDir);
  const broker = await Broker.start({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    dropAcks: DROP,
    closeAfterAppend: CLOSE,
  });
  let produced: Produced;
  try {
    await createTopic(broker.address.port);
    produced = await client.produce(children, {
      port: broker.address.port,
      topic: TOPIC,
      prefix: 'msg',
      count: MESSAGES,
      idempotence,
      inFlight: 1,
      batch: 1,
      requestTimeoutMs: 1000,
      scratch: dataDir,
      hangMs: LONG_TIMEOUT_MS,
    });
  } finally {
    await broker.close();
  }
  return { produced, log: logOf(dataDir), faults: broker.faults };
}

const keys = Array.from({ length: MESSAGES }, (_, i) => `msg-${i}`);

/** The key each told entry is about: named, or (kcat) the message sent in that place. */
const toldKeys = (p: Produced) => p.told.map((t, i) => t.key ?? keys[i]!);

describe.each([kcat, confluentKafka, kafkajs, platformatic])(
  '$name against a broker that loses 3 acks',
  (client) => {
    let present: boolean | undefined;
    // kcat and confluent-kafka are installed by `pnpm test` (scripts/test-machine.mjs) and cannot be
    // opted out of; KafkaJS and @platformatic/kafka come with the workspace: a missing one is a failure.
    const requireClient = async () => {
      if (present === undefined) {
        const found = await client.find(children);
        present = found.found;
        if (!found.found) throw new Error(`${client.name} is not installed: ${found.why} (${found.install})`);
      }
    };

    it(
      'idempotence off: every message acked, and exactly 3 duplicates on the log — the records the lost acks left',
      async () => {
        await requireClient();
        const { produced, log, faults } = await run(client, false);
        expect(faults).toEqual({ dropped: DROP, closed: CLOSE });
        expect(produced.told.every((t) => 'offset' in t)).toBe(true);
        expect(toldKeys(produced).sort()).toEqual([...keys].sort());
        expect(log).toHaveLength(MESSAGES + N);
        const counts = new Map<string, number>();
        for (const [, key] of log) counts.set(key, (counts.get(key) ?? 0) + 1);
        expect([...counts.keys()].sort()).toEqual([...keys].sort());
        expect([...counts.values()].reduce((a, c) => a + c - 1, 0)).toBe(N);
        // Each offset told holds its message (the last copy: the earlier ones the client never heard of).
        const at = new Map(log);
        produced.told.forEach((t, i) => {
          if ('offset' in t) expect(at.get(t.offset)).toBe(toldKeys(produced)[i]);
        });
      },
      LONG_TIMEOUT_MS,
    );

    it(
      'idempotence on: every message acked, no duplicate, none missing, and every offset told is where the log holds it',
      async () => {
        await requireClient();
        const { produced, log, faults } = await run(client, true);
        expect(faults).toEqual({ dropped: DROP, closed: CLOSE });
        expect(log.map(([, key]) => key)).toEqual(keys);
        expect(log.map(([offset]) => offset)).toEqual(keys.map((_, i) => i));
        const told = new Map(
          produced.told.map((t, i) => [toldKeys(produced)[i]!, 'offset' in t ? t.offset : t.error]),
        );
        expect(Object.fromEntries(told)).toEqual(
          Object.fromEntries(log.map(([offset, key]) => [key, offset])),
        );
      },
      LONG_TIMEOUT_MS,
    );
  },
);

describe('@platformatic/kafka 1.35 after a request that timed out, idempotence on', () => {
  it(
    'it tells the application the send failed though it was written; if another message goes before the resend, that one takes the sequence number, is answered as the duplicate, and is never written',
    async () => {
      const found = await platformatic.find(children);
      if (!found.found) throw new Error(`@platformatic/kafka is missing: ${found.why}`);
      // Why the demo's application sends a failed message again at once (src/ack-loss/clients/platformatic.ts).
      const { Producer, stringSerializers } = await import('@platformatic/kafka');
      const dataDir = join(scratch, 'platformatic-no-resend');
      mkdirSync(dataDir);
      const broker = await Broker.start({ dataDir, host: '127.0.0.1', port: 0, dropAcks: 1 });
      const outcomes: string[] = [];
      try {
        await createTopic(broker.address.port);
        const producer = new Producer({
          clientId: 'klog-test-no-resend',
          bootstrapBrokers: [`127.0.0.1:${broker.address.port}`],
          idempotent: true,
          serializers: stringSerializers,
          requestTimeout: 1000,
          retryDelay: 100,
          retries: 20,
        });
        try {
          for (const key of ['first', 'second']) {
            try {
              const r = await producer.send({
                acks: -1,
                messages: [{ topic: TOPIC, key, value: key, partition: 0 }],
              });
              outcomes.push(`${key}: offset ${r.offsets?.[0]?.offset}`);
            } catch (error) {
              outcomes.push(`${key}: ${(error as Error).message}`);
            }
          }
        } finally {
          await producer.close();
        }
      } finally {
        await broker.close();
      }
      expect(outcomes).toEqual(['first: Producing messages failed.', 'second: offset 0']);
      // The log: the "failed" message, written; the "written" one, nowhere.
      expect(logOf(dataDir)).toEqual([[0, 'first']]);
    },
    LONG_TIMEOUT_MS,
  );
});
