import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { librdkafkaLibDir, SUITES, SuiteError } from '../../../../scripts/librdkafka/suite.mjs';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { bin, HANG_MS, klog } from '../run-klog.js';

/**
 * Topic ids as a client of today sees them (issue 41): `klog topics describe` and librdkafka 2.15.1's
 * Admin API DescribeTopics (`rd_kafka_DescribeTopics`, which reads the ids from Metadata, asked up to v13)
 * show the same non-zero id for each topic, and the same again after `klog serve` restarts on its data
 * directory (the id is kept in each partition's `partition.metadata`, Kafka's `PartitionMetadataFile`).
 *
 * librdkafka is the one `pnpm test:librdkafka` builds (scripts/librdkafka/suite.mjs: its source from npm,
 * built once into ~/.cache/klog), so CI builds it here when it is missing. The client is
 * test/fixtures/describe-topics.c, compiled with gcc against it. When librdkafka cannot be got or built on
 * the machine, the test is skipped and says why.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const PROGRAM = join(HERE, '..', 'fixtures', 'describe-topics.c');
/** Building librdkafka takes minutes on a busy two-core machine, once: a bound for a hang only. */
const BUILD_TIMEOUT_MS = 1_800_000;
const LONG_TIMEOUT_MS = 300_000;
/** Kafka's `Uuid.ZERO_UUID`, as `Uuid.toString` spells it: what a broker without topic ids answers. */
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const TOPICS = ['orders', 'payments'];

const scratch = mkdtempSync(join(tmpdir(), 'klog-topic-ids-'));
const dataDir = join(scratch, 'data');
const children: ChildProcess[] = [];
let describeTopics = '';
let skipped: string | undefined;

/** The test is skipped, and the run says why (as scripts/test-machine.mjs's `requireTool` does). */
function skip(reason: string): void {
  skipped = reason;
  console.warn(`skipped: ${reason}`);
}

beforeAll(() => {
  const suite = SUITES.npm;
  let lib: string;
  try {
    lib = librdkafkaLibDir(suite);
  } catch (e) {
    if (!(e instanceof SuiteError)) throw e;
    // Fails the file unless the user opted out by name (KLOG_SKIP=librdkafka-2.15), as every tool's test does.
    requireTool('librdkafka-2.15', false, e.message);
    skip(`librdkafka ${suite.version} cannot be got or built on this machine: ${e.message}`);
    return;
  }
  describeTopics = join(scratch, 'describe-topics');
  // -isystem: rdkafka.h's own warnings are not the program's; the rpath finds librdkafka.so at run time.
  const cc = spawnSync(
    'gcc',
    [
      '-std=c99',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-isystem',
      lib,
      '-o',
      describeTopics,
      PROGRAM,
      `-L${lib}`,
      `-Wl,-rpath,${lib}`,
      '-lrdkafka',
    ],
    { encoding: 'utf8' },
  );
  if (cc.error !== undefined) {
    // gcc comes with the build packages of librdkafka-2.15 (build-essential).
    requireTool('librdkafka-2.15', false, `gcc cannot be run: ${cc.error.message}`);
    skip(`gcc cannot be run (${cc.error.message}): ${PROGRAM} cannot be compiled`);
    return;
  }
  if (cc.status !== 0) throw new Error(`gcc ${PROGRAM} exited ${cc.status}:\n${cc.stderr}`);
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/** `klog serve` on loopback over the test's data directory, once it says where it listens. */
function serve(): Promise<{ bootstrap: string; stop(): Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on (127\.0\.0\.1:\d+)/.exec(line);
      if (m !== null) {
        resolve({
          bootstrap: m[1]!,
          stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

/** Each topic's id as `klog topics describe` prints it (kafka-topics.sh's `TopicId:`, `Uuid.toString`). */
function klogIds(bootstrap: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const topic of TOPICS) {
    const run = klog(['topics', 'describe', topic, '--bootstrap-server', bootstrap]);
    expect(run, run.stderr).toMatchObject({ status: 0, hung: false });
    for (const m of run.stdout.matchAll(/^Topic: (\S+)\tTopicId: (\S+)\t/gm)) ids.set(m[1]!, m[2]!);
  }
  return ids;
}

interface Described {
  /** `rd_kafka_Uuid_base64str`'s spelling. */
  readonly base64: string;
  /** The id's 128 bits, most significant first, in hex. */
  readonly hex: string;
}

/** Each topic as librdkafka's DescribeTopics describes it, run as its own process. */
function librdkafkaIds(bootstrap: string): Promise<Map<string, Described>> {
  return new Promise((resolve, reject) => {
    const child = spawn(describeTopics, [bootstrap, ...TOPICS], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    // Only a hang reaches this: the program has its own request timeout and exits with an error.
    const hang = setTimeout(() => child.kill('SIGKILL'), HANG_MS * 4);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(hang);
      if (code !== 0) {
        reject(
          new Error(`describe-topics exited ${code}:\n${stdout}${stderr.split('\n').slice(-20).join('\n')}`),
        );
        return;
      }
      const described = new Map<string, Described>();
      for (const line of stdout.trim().split('\n')) {
        const [name, base64, hex] = line.split('\t');
        described.set(name!, { base64: base64!, hex: hex! });
      }
      resolve(described);
    });
  });
}

/** Both tools see the same non-zero id for every topic; returns them. */
async function sameIds(bootstrap: string): Promise<Map<string, string>> {
  const fromKlog = klogIds(bootstrap);
  const fromLibrdkafka = await librdkafkaIds(bootstrap);
  expect([...fromKlog.keys()].sort()).toEqual([...TOPICS].sort());
  expect([...fromLibrdkafka.keys()].sort()).toEqual([...TOPICS].sort());
  for (const topic of TOPICS) {
    const id = fromKlog.get(topic)!;
    const seen = fromLibrdkafka.get(topic)!;
    expect(id, `${topic}'s id in klog topics describe`).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(id).not.toBe(ZERO_UUID);
    expect(seen.hex, `${topic}'s id from librdkafka`).not.toBe('0'.repeat(32));
    // The same 128 bits.
    expect(seen.hex, topic).toBe(Buffer.from(id, 'base64url').toString('hex'));
    // The same string but for the alphabet: Kafka's `Uuid.toString` is URL-safe base64, while librdkafka
    // 2.15.1's `rd_kafka_Uuid_base64str` encodes with the standard alphabet ('+' and '/' for '-' and '_').
    expect(seen.base64, topic).toBe(id.replace(/-/g, '+').replace(/_/g, '/'));
  }
  expect(new Set(fromKlog.values()).size, 'each topic has an id of its own').toBe(TOPICS.length);
  return fromKlog;
}

describe('topic ids: klog topics describe and librdkafka 2.15.1 DescribeTopics', () => {
  it('show the same non-zero id for each topic, before and after klog serve restarts', {
    timeout: LONG_TIMEOUT_MS,
  }, async (ctx) => {
    if (skipped !== undefined) ctx.skip(skipped);
    const first = await serve();
    for (const topic of TOPICS) {
      const created = klog([
        'topics',
        'create',
        topic,
        '--partitions',
        '3',
        '--bootstrap-server',
        first.bootstrap,
      ]);
      expect(created, created.stderr).toMatchObject({ status: 0, stdout: `Created topic ${topic}.\n` });
    }
    const before = await sameIds(first.bootstrap);
    expect(await first.stop()).toBe(0);

    const second = await serve();
    const after = await sameIds(second.bootstrap);
    expect(after).toEqual(before);
    expect(await second.stop()).toBe(0);
  });
});
