import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaJavascriptDir } from '../../../../scripts/librdkafka/kafka-javascript.mjs';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { startKafka } from '../../src/index.js';

/**
 * `startKafka()`, as a Node project's own tests use it (packages/broker/README.md, "In your tests"): one line,
 * real clients against it, and closing that leaves nothing behind — no directory, no port, no descriptor.
 */

/** packages/broker: where the examples are, and what a project's node_modules/@klog/broker points at. */
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** `node --test file` run from `cwd`, as a project runs its tests: its one test passes. */
function expectNodeTestPasses(cwd: string, file: string): void {
  const run = spawnSync(process.execPath, ['--test', file], { cwd, encoding: 'utf8', timeout: 120_000 });
  expect(run.stdout).toMatch(/^# pass 1$/m);
  expect(run.status).toBe(0);
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe('startKafka', () => {
  it('`await using`: the broker listens in the scope, and after it the port is closed and the directory gone', async () => {
    let port = 0;
    let dataDir = '';
    {
      await using kafka = await startKafka();
      ({ port, dataDir } = kafka);
      expect(kafka.bootstrap).toBe(`127.0.0.1:${port}`);
      expect(await listening(port)).toBe(true);
      expect(existsSync(dataDir)).toBe(true);
    }
    expect(await listening(port)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('KafkaJS: create a topic, produce idempotently, read it back in a consumer group', async () => {
    await using kafka = await startKafka();
    const client = new Kafka({ brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING });
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }] });
    await admin.disconnect();
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    await producer.send({
      topic: 'orders',
      messages: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    });
    await producer.disconnect();
    const consumer = client.consumer({ groupId: 'readers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((done) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString());
          if (seen.length === 10) done();
        },
      });
    });
    await consumer.disconnect();
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`).sort());
  });

  it('@platformatic/kafka: produce, then consume from the earliest in a group', async () => {
    await using kafka = await startKafka({ numPartitions: 1 });
    const producer = new Producer({
      clientId: 'embedded-test',
      bootstrapBrokers: [kafka.bootstrap],
      idempotent: true,
      serializers: stringSerializers,
      autocreateTopics: true,
    });
    await producer.send({
      messages: [
        { topic: 'events', key: 'a', value: 'first' },
        { topic: 'events', key: 'b', value: 'second' },
      ],
    });
    await producer.close();
    const consumer = new Consumer({
      clientId: 'embedded-test',
      groupId: 'g',
      bootstrapBrokers: [kafka.bootstrap],
      deserializers: stringDeserializers,
    });
    const stream = await consumer.consume({ topics: ['events'], mode: 'earliest', maxWaitTime: 200 });
    const seen: string[] = [];
    for await (const message of stream) {
      seen.push(message.value as string);
      if (seen.length === 2) break;
    }
    await stream.close();
    await consumer.close();
    expect(seen).toEqual(['first', 'second']);
  });

  it('a data directory given is kept on close; a port in use is an error and leaves no directory', async () => {
    await using first = await startKafka();
    const tmp = dirname(first.dataDir);
    const ours = () => readdirSync(tmp).filter((n) => n.startsWith('klog-embedded-')).length;
    const count = ours();
    await expect(startKafka({ port: first.port })).rejects.toThrow(/EADDRINUSE/);
    expect(ours()).toBe(count);
    const kept = mkdtempSync(join(tmp, 'klog-kept-'));
    try {
      const second = await startKafka({ dataDir: kept });
      await second.close();
      expect(readdirSync(join(kept, '.broker'))).toContain('meta.properties');
    } finally {
      rmSync(kept, { recursive: true, force: true });
    }
  });

  it('100 brokers started and closed in one process: no descriptor left open, the heap does not grow with them', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const fds = () => readdirSync('/proc/self/fd').length;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const cycle = async () => {
      const kafka = await startKafka();
      // One request answered, so a connection was accepted and closed.
      expect(await listening(kafka.port)).toBe(true);
      await kafka.close();
    };
    // Warm-up: modules loaded and caches filled once.
    for (let i = 0; i < 5; i++) await cycle();
    const fdsBefore = fds();
    const heapBefore = heap();
    for (let i = 0; i < 100; i++) await cycle();
    expect(fds()).toBeLessThanOrEqual(fdsBefore);
    // A broker that stayed reachable would hold its log, groups and buffers: far more than 20 KiB each.
    expect(heap() - heapBefore).toBeLessThan(100 * 20 * 1024);
  });

  it('examples/node-test-kafkajs.mjs passes under `node --test`, as a project runs it', () => {
    expectNodeTestPasses(packageRoot, 'examples/node-test-kafkajs.mjs');
  });

  it('examples/node-test-confluent.mjs passes under `node --test` in a project with @confluentinc/kafka-javascript and @klog/broker installed', {
    timeout: 180_000,
  }, (ctx) => {
    // The package as `npm install` would leave it, its binding built against librdkafka 2.15.1 by the test
    // command's first step (scripts/test-machine.mjs), since its own install script downloads one.
    const built = kafkaJavascriptDir();
    if (requireTool('kafka-javascript', existsSync(join(built, '.klog-built')), `no build in ${built}`))
      return ctx.skip('@confluentinc/kafka-javascript skipped by name (KLOG_SKIP=kafka-javascript)');
    const project = mkdtempSync(join(tmpdir(), 'klog-confluent-project-'));
    try {
      mkdirSync(join(project, 'node_modules', '@confluentinc'), { recursive: true });
      mkdirSync(join(project, 'node_modules', '@klog'), { recursive: true });
      symlinkSync(built, join(project, 'node_modules', '@confluentinc', 'kafka-javascript'));
      symlinkSync(packageRoot, join(project, 'node_modules', '@klog', 'broker'));
      copyFileSync(
        join(packageRoot, 'examples', 'node-test-confluent.mjs'),
        join(project, 'broker.test.mjs'),
      );
      expectNodeTestPasses(project, 'broker.test.mjs');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
