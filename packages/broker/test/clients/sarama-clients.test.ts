import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeProducers, decodeResponse, encodeRequest } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { startBroker, type TestBroker } from '../support/broker.js';
import { exec, kafkajs, kcatConsume } from '../support/clients.js';
import { RawClient } from '../support/raw-client.js';

/**
 * Go's Sarama 1.22.1 (Debian's golang-github-shopify-sarama-dev, built by Debian's Go 1.19 in GOPATH mode,
 * nothing downloaded) against `klog serve`, as an ordinary Sarama user drives it: `config.Version =
 * V2_1_0_0` and Sarama's defaults otherwise. Sarama does not ask ApiVersions; the version picks what it
 * sends: Metadata v5 (v0 from ListTopics), Produce v3, Fetch v4, ListOffsets v1, InitProducerId v0,
 * FindCoordinator v0, JoinGroup v1, SyncGroup / Heartbeat / LeaveGroup v0, OffsetFetch v1, OffsetCommit
 * v1 (v2 only when Consumer.Offsets.Retention is set; Kafka 4.0 removed v1, klog serves it),
 * CreateTopics v2, DeleteTopics v1, DescribeConfigs / AlterConfigs / CreatePartitions / DeleteRecords v0.
 * `test/support/sarama/main.go` is the program; each command prints JSON lines, the last its result.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(HERE, '..', 'support', 'sarama');
/** Real client processes on a busy 2-core machine: time out only on a hang. */
const LONG = 300_000;
const COUNT = 300;
const PARTITIONS = 3;

const goFound = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
// Missing, the file fails, unless the user opted out (KLOG_SKIP=sarama): scripts/test-machine.mjs.
const skip = requireTool('sarama', goFound, '`go version` failed');

type Json = Record<string, unknown>;
const scratch = mkdtempSync(join(tmpdir(), 'klog-sarama-'));
const binary = join(scratch, 'sarama');

/** GOPATH mode over Debian's Go sources: no module, no proxy, nothing from the network. */
const goEnv = {
  ...process.env,
  GO111MODULE: 'off',
  GOPATH: '/usr/share/gocode',
  GOCACHE: join(scratch, 'gocache'),
  GOPROXY: 'off',
  GOFLAGS: '',
};

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return exec(binary, args);
}

/** Runs one command; every JSON line it printed, the command's failure (with its last step) thrown. */
async function sarama(...args: string[]): Promise<Json[]> {
  const r = await run(args);
  const lines = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
  if (r.code !== 0) throw new Error(`sarama ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return lines;
}

const step = (lines: Json[], name: string): Json => {
  const found = lines.find((l) => l.step === name);
  if (found === undefined) throw new Error(`no step ${name} in ${JSON.stringify(lines)}`);
  return found;
};

describe.skipIf(skip)('Sarama 1.22.1 (Go) against klog serve', { timeout: LONG }, () => {
  let b: TestBroker;
  let dataDir: string;

  beforeAll(async () => {
    const build = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('go', ['build', '-o', binary, '.'], { cwd: SOURCE, env: goEnv });
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, output }));
    });
    if (build.code !== 0) throw new Error(`go build of ${SOURCE} failed (${build.code}):\n${build.output}`);
    dataDir = mkdtempSync(join(tmpdir(), 'klog-sarama-data-'));
    b = await startBroker({}, dataDir);
  }, LONG);
  afterAll(async () => {
    await b?.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('ClusterAdmin: create with configs → ListTopics → describe → alter → add partitions → delete records → delete → gone after a restart', async () => {
    const topic = 'sarama-life';
    const lines = await sarama('admin', `127.0.0.1:${b.port}`, topic);
    expect(step(lines, 'create-again').error).toMatch(/already exists/);
    // ListTopics sends DescribeConfigs for every topic (what used to end in EOF); Sarama keeps the
    // configs that are not the default: the two the topic was created with.
    expect(step(lines, 'list')).toMatchObject({
      found: true,
      partitions: 1,
      replicationFactor: 1,
      configs: { 'cleanup.policy': 'compact', 'retention.ms': '3600000' },
    });
    expect(step(lines, 'describe').configs).toEqual({
      'cleanup.policy': { value: 'compact', default: false, readOnly: false },
      'retention.ms': { value: '3600000', default: false, readOnly: false },
      'segment.bytes': { value: '1073741824', default: true, readOnly: false },
    });
    // AlterConfigs replaces the whole set: cleanup.policy is the default again.
    expect(step(lines, 'alter').configs).toEqual({
      'cleanup.policy': { value: 'delete', default: true, readOnly: false },
      'retention.ms': { value: '7200000', default: false, readOnly: false },
    });
    expect(step(lines, 'alter-unknown').error).toMatch(/Unknown topic config name: no\.such\.topic\.config/);
    expect(step(lines, 'create-partitions').partitions).toBe(3);
    // DeleteRecords below 3 of 5: ListOffsets earliest follows the log start offset.
    expect(step(lines, 'delete-records')).toMatchObject({ earliest: 3, latest: 5 });
    expect(step(lines, 'delete').listed).toBe(false);
    expect(step(lines, 'delete-again').error).toMatch(/does not exist/);

    // The broker's data: no directory of the topic, no configs kept for it, and none after a restart.
    const partitionDirs = () => readdirSync(b.dataDir).filter((d) => d.startsWith(`${topic}-`));
    expect(partitionDirs()).toEqual([]);
    const configsFile = join(b.dataDir, '.broker', 'topic-configs.json');
    if (existsSync(configsFile)) expect(readFileSync(configsFile, 'utf8')).not.toContain(topic);
    b = await b.restart();
    const admin = kafkajs(b.port).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).not.toContain(topic);
    } finally {
      await admin.disconnect();
    }
    expect(partitionDirs()).toEqual([]);
  });

  it('config.Version left unset (Sarama 1.22: 0.8.2): Produce v0 and Fetch v0 answered UNSUPPORTED_VERSION, which Sarama reports, not EOF', async () => {
    const topic = 'sarama-unset-version';
    const admin = kafkajs(b.port).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic }] });
    await admin.disconnect();
    const lines = await sarama('unset-version', `127.0.0.1:${b.port}`, topic);
    expect(step(lines, 'version').version).toBe('0.8.2.0');
    expect(step(lines, 'produce').error).toBe('kafka server: The version of API is not supported.');
    // Fetch v0's error response has empty records, not null, which Sarama cannot decode.
    expect(step(lines, 'consume').error).toBe('kafka server: The version of API is not supported.');
    // The broker's WARN line says what it serves instead; nothing was written.
    const warned = b.lines.filter((l) => l.startsWith('warn:') && l.includes('client "sarama-test"'));
    expect(warned.some((l) => /Produce v0 .*serves v3–v8/.test(l))).toBe(true);
    expect(warned.some((l) => /Fetch v0 .*serves v4–v18/.test(l))).toBe(true);
    const offsets = kafkajs(b.port).admin();
    await offsets.connect();
    try {
      expect(await offsets.fetchTopicOffsets(topic)).toMatchObject([{ partition: 0, high: '0' }]);
    } finally {
      await offsets.disconnect();
    }
  });

  describe('an idempotent SyncProducer, then a consumer group in two runs', () => {
    const topic = 'sarama-records';
    const group = 'sarama-group';
    type Read = [partition: number, offset: number, key: string, value: string, headers: Json];
    let produced: Map<string, { partition: number; offset: number }>;
    const ends: number[] = [];

    it(`SyncProducer (Idempotent, WaitForAll, MaxOpenRequests 1): ${COUNT} messages, each once at the offset it was told`, async () => {
      const admin = kafkajs(b.port).admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }] });
      await admin.disconnect();

      const out = step(await sarama('produce', `127.0.0.1:${b.port}`, topic, String(COUNT), 'go'), 'produce');
      const reports = out.reports as [string, number, number][];
      produced = new Map(reports.map(([key, partition, offset]) => [key, { partition, offset }]));
      expect(produced.size).toBe(COUNT);
      for (let p = 0; p < PARTITIONS; p++) {
        const offsets = reports.filter((r) => r[1] === p).map((r) => r[2]);
        // Sarama's hash partitioner spread the keys; each partition's offsets 0, 1, 2 … in send order.
        expect(offsets.length).toBeGreaterThan(0);
        expect(offsets).toEqual(offsets.map((_, i) => i));
        ends.push(offsets.length);
      }

      // What the log holds, read by another client: each message once, where Sarama was told.
      const read = await kcatConsume(b.port, topic);
      expect(read).toHaveLength(COUNT);
      for (const r of read) {
        expect(produced.get(r.key)).toEqual({ partition: r.partition, offset: r.offset });
        expect(r.value).toBe(`value of ${r.key}`);
        expect(r.headers.i).toBe(r.key.slice('go-'.length));
      }

      // It was an idempotent producer: one producer id, epoch 0, whose last sequence on each partition is
      // its last record there (DescribeProducers, the chapter's window seen from outside).
      const c = await RawClient.connect(b.port);
      c.send(
        encodeRequest(DescribeProducers, 0, 1, 'test', {
          topics: [{ name: topic, partitionIndexes: [0, 1, 2] }],
        }),
      );
      const partitions = decodeResponse(DescribeProducers, 0, await c.next()).body.topics[0]!.partitions;
      c.close();
      const ids = new Set<number>();
      for (const p of partitions) {
        expect(p.errorCode).toBe(0);
        expect(p.activeProducers).toHaveLength(1);
        const producer = p.activeProducers[0]!;
        expect(producer.producerId).toBeGreaterThanOrEqual(0);
        expect(producer.producerEpoch).toBe(0);
        expect(producer.lastSequence).toBe(ends[p.partitionIndex]! - 1);
        ids.add(producer.producerId);
      }
      expect(ids.size).toBe(1);
    });

    const committed = async (): Promise<Map<number, number>> => {
      const admin = kafkajs(b.port).admin();
      await admin.connect();
      try {
        const [t] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        return new Map(t!.partitions.map((p) => [p.partition, Number(p.offset)]));
      } finally {
        await admin.disconnect();
      }
    };

    let first: Read[] = [];
    const FIRST = 120;

    it(`sarama.NewConsumerGroup reads ${FIRST}, marks each, commits at Close`, async () => {
      const out = step(
        await sarama('consume', `127.0.0.1:${b.port}`, topic, group, String(FIRST)),
        'consume',
      );
      expect(out.errors).toEqual([]);
      // The one member was given every partition.
      expect(out.claims).toEqual({ [topic]: [0, 1, 2] });
      first = out.records as Read[];
      expect(first).toHaveLength(FIRST);
      expect(new Set(first.map((r) => r[2])).size).toBe(FIRST);
      const offsets = await committed();
      for (let p = 0; p < PARTITIONS; p++) {
        const read = first.filter((r) => r[0] === p).map((r) => r[1]);
        // From the start (nothing committed: OffsetOldest), in order, no gap.
        expect(read).toEqual(read.map((_, i) => i));
        // The group's offset is the next one to read: what Sarama marked (OffsetCommit v1).
        expect(offsets.get(p)).toBe(read.length > 0 ? read.length : -1);
      }
      for (const [partition, offset, key, value] of first) {
        expect(produced.get(key)).toEqual({ partition, offset });
        expect(value).toBe(`value of ${key}`);
      }
    });

    it('a second run of the group resumes at the committed offsets: the rest, each once; then the group is at the end', async () => {
      const start = await committed();
      const rest = COUNT - FIRST;
      const out = step(await sarama('consume', `127.0.0.1:${b.port}`, topic, group, String(rest)), 'consume');
      expect(out.errors).toEqual([]);
      const second = out.records as Read[];
      expect(second).toHaveLength(rest);
      for (let p = 0; p < PARTITIONS; p++) {
        const from = Math.max(start.get(p) ?? -1, 0);
        const read = second.filter((r) => r[0] === p).map((r) => r[1]);
        expect(read).toEqual(read.map((_, i) => from + i));
      }
      // Both runs together: every message exactly once.
      const keys = [...first, ...second].map((r) => r[2]).sort();
      expect(keys).toEqual([...produced.keys()].sort());
      const offsets = await committed();
      expect([0, 1, 2].map((p) => offsets.get(p))).toEqual(ends);

      // Sarama's Close left the group (LeaveGroup v0): the group is empty, its offsets kept.
      const admin = kafkajs(b.port).admin();
      await admin.connect();
      try {
        const { groups } = await admin.describeGroups([group]);
        expect(groups[0]).toMatchObject({ groupId: group, state: 'Empty', members: [] });
      } finally {
        await admin.disconnect();
      }
    });
  });
});
