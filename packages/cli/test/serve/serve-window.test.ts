import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Log } from '@klog/storage';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/topics/admin-client.js';
import { bin, klog, root } from '../run-klog.js';

/**
 * `klog serve --window <file>` as a user runs it: the broker judges idempotent batches with a learner's
 * lab file on a worker thread, KafkaJS produces to it, and the segment files are read back after. A file
 * that throws or hangs gets its Produce answered with an error naming the learner's function; the broker
 * goes on serving and the log holds only what was written.
 */
const LONG_TIMEOUT_MS = 300_000;
const TOPIC = 'windowed';
const scratch = mkdtempSync(join(tmpdir(), 'klog-serve-window-'));
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});
const fixture = (name: string) => join(root, 'packages/cli/test/lab-fixtures', `${name}.ts`);

interface Served {
  readonly port: number;
  readonly lines: string[];
  /** The first log line matching `pattern`, once it is there. */
  line(pattern: RegExp): Promise<string>;
  stop(): Promise<number | null>;
}

function serve(dataDir: string, window: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--window', window],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    running.add(child);
    const lines: string[] = [];
    const waiting: { pattern: RegExp; found: (line: string) => void }[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) =>
      child.once('exit', (code) => {
        running.delete(child);
        done(code);
      }),
    );
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const w of [...waiting]) {
        if (w.pattern.test(line)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.found(line);
        }
      }
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) {
        resolve({
          port: Number(m[1]),
          lines,
          line: (pattern) =>
            new Promise((found) => {
              const there = lines.find((l) => pattern.test(l));
              if (there !== undefined) found(there);
              else waiting.push({ pattern, found });
            }),
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

async function createTopic(port: number): Promise<void> {
  const admin = await AdminClient.connect('127.0.0.1', port);
  try {
    expect((await admin.createTopic(TOPIC, 1))?.errorCode).toBe(0);
  } finally {
    admin.close();
  }
}

function producer(port: number, idempotent: boolean) {
  const kafka = new Kafka({ clientId: 'lab', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING });
  return kafka.producer(
    idempotent
      ? { idempotent: true, maxInFlightRequests: 1, retry: { retries: 1 } }
      : { retry: { retries: 0 } },
  );
}

/** Every record of the partition, read from the segment files: the keys in offset order. */
function keysOnLog(dataDir: string): string[] {
  const log = Log.open(join(dataDir, `${TOPIC}-0`));
  try {
    const keys: string[] = [];
    let offset = 0;
    while (offset < log.logEndOffset) {
      for (const batch of log.readCheckedBatches(offset)) {
        for (const r of batch.records) keys.push(Buffer.from(r.key!).toString());
        offset = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
    }
    return keys;
  } finally {
    log.close();
  }
}

const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

describe('klog serve --window', () => {
  it(
    "answers a Produce the learner's code throws on with UNKNOWN_SERVER_ERROR naming it, and goes on serving",
    async () => {
      const dataDir = join(scratch, 'throws');
      const served = await serve(dataDir, fixture('judge-throws'));
      await served.line(/window: \S+judge-throws\.ts judges every idempotent batch/);
      await createTopic(served.port);
      const idempotent = producer(served.port, true);
      await idempotent.connect();
      // The first batch is judged with an empty window: the fixture throws only once it holds one.
      const [first] = await idempotent.send({ topic: TOPIC, messages: [{ key: 'm-0', value: 'a' }] });
      expect(first?.baseOffset).toBe('0');
      const error = await idempotent.send({ topic: TOPIC, messages: [{ key: 'm-1', value: 'b' }] }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/server/i);
      await idempotent.disconnect();
      const line = lineOf(fixture('judge-throws'), 'throw new TypeError');
      expect(await served.line(/ERROR +window: /)).toMatch(
        new RegExp(
          `ERROR +window: your appendBatch threw TypeError: Cannot read properties of undefined \\(reading 'lastSeq'\\) \\(at judge, judge-throws\\.ts:${line}\\); the Produce to ${TOPIC}-0 is answered UNKNOWN_SERVER_ERROR, nothing written$`,
        ),
      );
      // Still serving: a producer without idempotence never asks the window.
      const plain = producer(served.port, false);
      await plain.connect();
      const [after] = await plain.send({ topic: TOPIC, messages: [{ key: 'p-0', value: 'c' }] });
      expect(after?.baseOffset).toBe('1');
      await plain.disconnect();
      expect(await served.stop()).toBe(0);
      expect(keysOnLog(dataDir)).toEqual(['m-0', 'p-0']);
    },
    LONG_TIMEOUT_MS,
  );

  it(
    "stops a learner's function that never returns, answers with an error, and judges the next batch with a fresh window",
    async () => {
      const dataDir = join(scratch, 'hangs');
      const served = await serve(dataDir, fixture('judge-hangs'));
      await createTopic(served.port);
      const first = producer(served.port, true);
      await first.connect();
      await first.send({ topic: TOPIC, messages: [{ key: 'a-0', value: 'a' }] });
      const error = await first.send({ topic: TOPIC, messages: [{ key: 'a-1', value: 'b' }] }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeDefined();
      await first.disconnect();
      expect(await served.line(/ERROR +window: /)).toMatch(
        /window: your ProducerStateEntry\.findDuplicateBatch did not return within 2 s; it was stopped, and the next batch starts a fresh window rebuilt from the active segment; the Produce to windowed-0 is answered UNKNOWN_SERVER_ERROR, nothing written$/,
      );
      // A new producer: the fresh worker rebuilds from the active segment (a-0, another producer's) and
      // this producer's window is empty, so the fixture's loop is not reached.
      const second = producer(served.port, true);
      await second.connect();
      const [written] = await second.send({ topic: TOPIC, messages: [{ key: 'b-0', value: 'c' }] });
      expect(written?.baseOffset).toBe('1');
      await second.disconnect();
      expect(await served.stop()).toBe(0);
      expect(keysOnLog(dataDir)).toEqual(['a-0', 'b-0']);
    },
    LONG_TIMEOUT_MS,
  );

  it('refuses a file that does not load, in one line, before it listens', () => {
    const run = klog([
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(scratch, 'none'),
      '--window',
      join(scratch, 'nope.ts'),
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `klog: serve --window: ${join(scratch, 'nope.ts')}: ไม่มี file นี้ (หาที่ ${join(scratch, 'nope.ts')}; klog lab init <folder> เขียน lab.ts ให้)\n`,
    );
  });
});
