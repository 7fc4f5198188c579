import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Consumer as PltConsumer,
  Producer as PltProducer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';

/** Debian's Python, which has confluent_kafka (the image may put another python3 first on PATH). */
export const PYTHON = '/usr/bin/python3';
const HERE = dirname(fileURLToPath(import.meta.url));

/** One record as read back: partition, offset, key, value, headers. */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/** Where a producer's client said each key landed. */
export type Reports = Map<string, { partition: number; offset: number }>;

/**
 * Runs a client program to its end: its output, and its exit code. `hangMs` is a hang bound only: a client
 * stuck in a retry loop is killed, and fails its test with what it printed.
 */
export function exec(
  command: string,
  args: readonly string[],
  options: { input?: string; hangMs?: number } = {},
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer =
      options.hangMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.hangMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.end(options.input ?? '');
  });
}

async function python(args: string[]): Promise<Record<string, unknown>> {
  const r = await exec(PYTHON, [join(HERE, 'clients.py'), ...args]);
  if (r.code !== 0) throw new Error(`clients.py ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

export const keyFor = (prefix: string, i: number) => `${prefix}-${i}`;
export const valueFor = (key: string) => `value of ${key}`;

export async function pythonProduce(
  port: number,
  topic: string,
  count: number,
  prefix: string,
): Promise<Reports> {
  const out = await python(['produce', `127.0.0.1:${port}`, topic, String(count), prefix]);
  const errors = out.errors as string[];
  if (errors.length > 0 || out.undelivered !== 0)
    throw new Error(
      `confluent-kafka: ${errors.length} errors (${errors[0]}), ${out.undelivered} undelivered`,
    );
  return new Map(
    (out.reports as [string, number, number][]).map(([key, partition, offset]) => [
      key,
      { partition, offset },
    ]),
  );
}

export async function pythonConsume(port: number, topic: string, partitions: number): Promise<ReadRecord[]> {
  const out = await python(['consume', `127.0.0.1:${port}`, topic, String(partitions)]);
  return (out.records as [number, number, string, string, Record<string, string>][]).map(
    ([partition, offset, key, value, headers]) => ({
      partition,
      offset,
      key,
      value,
      headers,
    }),
  );
}

export async function pythonTransactional(port: number): Promise<Record<string, unknown>> {
  return python(['transactional', `127.0.0.1:${port}`]);
}

export async function pythonSubscribe(port: number, topic: string): Promise<Record<string, unknown>> {
  return python(['subscribe', `127.0.0.1:${port}`, topic]);
}

/** kcat as an idempotent producer (acks=all), keys after `:`, one header on every message. */
export async function kcatProduce(
  port: number,
  topic: string,
  count: number,
  prefix: string,
  dir: string,
  extra: readonly string[] = [],
  value: (key: string) => string = valueFor,
): Promise<void> {
  const file = join(dir, `${prefix}.txt`);
  writeFileSync(
    file,
    Array.from({ length: count }, (_, i) => `${keyFor(prefix, i)}:${value(keyFor(prefix, i))}\n`).join(''),
  );
  const r = await exec('kcat', [
    '-P',
    '-b',
    `127.0.0.1:${port}`,
    '-t',
    topic,
    '-K',
    ':',
    '-H',
    'source=kcat',
    '-X',
    'enable.idempotence=true',
    '-X',
    'acks=all',
    '-X',
    'linger.ms=20',
    '-X',
    'batch.num.messages=50',
    '-X',
    'socket.timeout.ms=1000',
    '-X',
    'message.timeout.ms=60000',
    ...extra,
    '-l',
    file,
  ]);
  if (r.code !== 0) throw new Error(`kcat -P exited ${r.code}: ${r.stderr}`);
}

/** kcat -C -e: every partition from the beginning to its end, without consumer groups. */
export async function kcatConsume(port: number, topic: string): Promise<ReadRecord[]> {
  const r = await exec('kcat', [
    '-C',
    '-b',
    `127.0.0.1:${port}`,
    '-t',
    topic,
    '-o',
    'beginning',
    '-e',
    '-q',
    '-X',
    'socket.timeout.ms=1000',
    '-f',
    '%p\\t%o\\t%k\\t%s\\t%h\\n',
  ]);
  if (r.code !== 0) throw new Error(`kcat -C exited ${r.code}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const [partition, offset, key, value, headers] = line.split('\t') as [
        string,
        string,
        string,
        string,
        string,
      ];
      return {
        partition: Number(partition),
        offset: Number(offset),
        key,
        value,
        headers: Object.fromEntries(
          headers
            .split(',')
            .filter((h) => h !== '')
            .map((h) => h.split('=', 2) as [string, string]),
        ),
      };
    });
}

export function kafkajs(port: number, clientId = 'klog-test') {
  return new Kafka({
    clientId,
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 1000,
    retry: { initialRetryTime: 100, retries: 20 },
  });
}

/** KafkaJS's idempotent producer: batches of 50 sent without waiting, so several requests are in flight. */
export async function kafkajsProduce(
  port: number,
  topic: string,
  count: number,
  prefix: string,
): Promise<Reports> {
  const producer = kafkajs(port).producer({ idempotent: true, maxInFlightRequests: 5 });
  await producer.connect();
  const reports: Reports = new Map();
  try {
    const sends = [];
    for (let from = 0; from < count; from += 50) {
      const messages = Array.from({ length: Math.min(50, count - from) }, (_, j) => {
        const key = keyFor(prefix, from + j);
        return {
          key,
          value: valueFor(key),
          partition: (from + j) % PARTITIONS,
          headers: { source: 'kafkajs', n: String(from + j) },
        };
      });
      sends.push(
        producer.send({ topic, acks: -1, messages }).then((meta) => {
          // One record metadata per partition: the base offset of this send's messages in it, in order.
          const next = new Map(meta.map((m) => [m.partition, Number(m.baseOffset)]));
          for (const m of messages) {
            const partition = m.partition;
            const offset = next.get(partition)!;
            next.set(partition, offset + 1);
            reports.set(m.key, { partition, offset });
          }
        }),
      );
    }
    await Promise.all(sends);
  } finally {
    await producer.disconnect();
  }
  return reports;
}

/** Messages go to partition i % 3 (the topics in these tests have 3 partitions), set by the test, not a partitioner. */
export const PARTITIONS = 3;

/**
 * @platformatic/kafka's idempotent producer: sends of 50 messages, one after the other. It takes a
 * partition's sequence number when it builds a request and moves it on only when the answer comes, so two
 * sends at once to a partition carry the same sequence: the broker then answers the second as a duplicate
 * of the first (if its range matches exactly: its messages are dropped, answered with the first's offset)
 * or OUT_OF_ORDER_SEQUENCE_NUMBER — as Kafka would.
 */
export async function platformaticProduce(
  port: number,
  topic: string,
  count: number,
  prefix: string,
): Promise<Reports> {
  const producer = new PltProducer({
    clientId: 'klog-test-plt',
    bootstrapBrokers: [`127.0.0.1:${port}`],
    idempotent: true,
    serializers: stringSerializers,
    requestTimeout: 1000,
    retryDelay: 100,
    retries: 20,
  });
  const reports: Reports = new Map();
  try {
    for (let from = 0; from < count; from += 50) {
      const messages = Array.from({ length: Math.min(50, count - from) }, (_, j) => {
        const key = keyFor(prefix, from + j);
        const partition = (from + j) % PARTITIONS;
        return {
          topic,
          key,
          value: valueFor(key),
          partition,
          headers: new Map([['source', 'platformatic']]),
        };
      });
      const result = await producer.send({ messages, acks: -1 });
      const next = new Map((result.offsets ?? []).map((o) => [o.partition, Number(o.offset)]));
      for (const m of messages) {
        const offset = next.get(m.partition)!;
        next.set(m.partition, offset + 1);
        reports.set(m.key, { partition: m.partition, offset });
      }
    }
  } finally {
    await producer.close();
  }
  return reports;
}

/** @platformatic/kafka's fetch API (no consumer group): every partition from 0 to its high watermark. */
export async function platformaticFetchAll(
  port: number,
  topic: string,
  partitions: number,
): Promise<ReadRecord[]> {
  const consumer = new PltConsumer({
    clientId: 'klog-test-plt-fetch',
    groupId: 'unused-no-group-api',
    bootstrapBrokers: [`127.0.0.1:${port}`],
    deserializers: stringDeserializers,
    requestTimeout: 1000,
    retryDelay: 100,
    retries: 20,
  });
  const out: ReadRecord[] = [];
  try {
    const ends = await consumer.listOffsets({ topics: [topic] });
    // Fetch 13+ names a topic by the id Metadata 10+ gave (platformatic picks Fetch 17 against klog).
    const topicId = (await consumer.metadata({ topics: [topic] })).topics.get(topic)!.id;
    for (let partition = 0; partition < partitions; partition++) {
      const end = Number(ends.get(topic)?.[partition] ?? 0n);
      let offset = 0;
      while (offset < end) {
        const res = await consumer.fetch({
          node: 0,
          topics: [
            {
              topicId,
              partitions: [
                {
                  partition,
                  currentLeaderEpoch: -1,
                  fetchOffset: BigInt(offset),
                  lastFetchedEpoch: -1,
                  partitionMaxBytes: 1_048_576,
                },
              ],
            },
          ],
        });
        const data = res.responses[0]!.partitions[0]!;
        let advanced = false;
        for (const batch of data.records ?? []) {
          for (const r of batch.records) {
            const at = Number(batch.firstOffset) + r.offsetDelta;
            if (at < offset) continue;
            const headers: Record<string, string> = {};
            for (const [k, v] of r.headers) headers[String(k)] = String(v);
            out.push({ partition, offset: at, key: String(r.key), value: String(r.value), headers });
            offset = at + 1;
            advanced = true;
          }
        }
        if (!advanced)
          throw new Error(
            `platformatic fetch of ${topic}-${partition} at ${offset} returned nothing before ${end}`,
          );
      }
    }
  } finally {
    await consumer.close();
  }
  return out;
}
