import { once } from 'node:events';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { median } from '../harness.js';
import { crcCpuRun, storedBatches } from './cpu-floor.js';
import { breakdownOf, cpuParts, readCpuProfile } from './cpu-profile.js';
import {
  cpuSeconds,
  kernelCpuSeconds,
  rssBytes,
  run,
  type Service,
  startService,
  threadCpuSeconds,
} from './processes.js';
import type { Pair, ProduceProfile, Run, SettledIdleConnections, WorkloadResult } from './results.js';
import { apiVersionsV0, listeningAddress } from './startup-bench.js';

export interface BrokerBenchContext {
  readonly quick: boolean;
  readonly rounds: number;
  readonly scratch: string;
  /** `node <klog bin>`. */
  readonly klog: readonly string[];
  readonly python: string;
  readonly mockHost: string;
  /** bench/python/file_floor.py: the kernel floor's receiver. */
  readonly fileFloor: string;
  /** Where each workload's CPU profile is kept (a run that writes its results); undefined: not kept. */
  readonly profilesDir?: string | undefined;
  progress(line: string): void;
}

export interface Workload {
  readonly id: string;
  readonly label: string;
  readonly messages: number;
  readonly messageBytes: number;
  /** Messages per partition of the fetch window: what the mock keeps of a partition (~5 MB), with room. */
  readonly windowPerPartition: number;
}

export const WORKLOADS: readonly Workload[] = [
  { id: '100B', label: '1 M × 100 B', messages: 1_000_000, messageBytes: 100, windowPerPartition: 35_000 },
  { id: '1KiB', label: '100 k × 1 KiB', messages: 100_000, messageBytes: 1024, windowPerPartition: 3_500 },
];

const WINDOW_PARTITIONS = 4;
/**
 * Before each timed produce, both brokers take this share of the workload's messages on a topic of their
 * own: the timed produce is then of a broker in service, not of one compiling its produce path (V8 compiles
 * klog's hot functions during its first megabytes, on the main thread and beside it).
 */
const WARM_UP_SHARE = 0.1;
/**
 * Reads of the fetch window per broker per round, klog's and the mock's taking turns: one read of the
 * window is 20–50 ms, where one slow start of kcat decides the ratio; eight reads a round add up to a
 * time the ratio can be read off.
 */
export const FETCH_READS = 8;
const MB = 1e6;

/** kcat as an idempotent producer with acks=all, the same flags against either broker. */
export function produceArgs(address: string, topic: string, partition: number, file: string): string[] {
  return [
    '-P',
    '-b',
    address,
    '-t',
    topic,
    '-p',
    String(partition),
    '-X',
    'enable.idempotence=true',
    '-X',
    'acks=all',
    '-l',
    file,
  ];
}

function consumeArgs(address: string, topic: string, count: number, partition?: number): string[] {
  const p = partition === undefined ? [] : ['-p', String(partition)];
  return ['-C', '-b', address, '-t', topic, ...p, '-o', 'beginning', '-e', '-q', '-c', String(count)];
}

/** A file of `count` lines, each a message of `bytes` printable characters (kcat -l sends one per line). */
export async function messageFile(path: string, count: number, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let seed = 12345;
  const chunk: string[] = [];
  for (let i = 0; i < count; i++) {
    let line = '';
    for (let j = 0; j < bytes; j++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      line += alphabet[seed % alphabet.length];
    }
    chunk.push(line);
    if (chunk.length === 1000 || i === count - 1) {
      if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
      chunk.length = 0;
    }
  }
  out.end();
  await once(out, 'finish');
}

export async function startKlog(
  ctx: BrokerBenchContext,
  dataDir: string,
  extra: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<Service> {
  return startService(
    process.execPath,
    [
      ...nodeFlags,
      ...ctx.klog.slice(1),
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--log-level',
      'info',
      ...extra,
    ],
    listeningAddress,
    'sigterm',
  );
}

export function startMock(ctx: BrokerBenchContext): Promise<Service> {
  return startService(
    ctx.python,
    [ctx.mockHost],
    (line) => (/^[\w.-]+:\d+$/.test(line.trim()) ? line.trim() : undefined),
    'stdin',
  );
}

export async function createTopic(
  ctx: BrokerBenchContext,
  address: string,
  topic: string,
  partitions: number,
): Promise<void> {
  await run(process.execPath, [
    ...ctx.klog.slice(1),
    'topics',
    'create',
    topic,
    '--partitions',
    String(partitions),
    '--bootstrap-server',
    address,
  ]);
}

/**
 * Moves `bytes` through a loopback TCP connection into a Node process that discards them; wall ms and the
 * receiver's CPU seconds.
 */
async function loopback(bytes: number): Promise<{ ms: number; cpu: number }> {
  // The receiver runs in a child process, as a broker would: one process sending, another reading.
  const child = await startService(
    process.execPath,
    [
      '-e',
      `const s=require('node:net').createServer(c=>{let n=0;c.on('data',d=>{n+=d.length;if(n>=${bytes})c.end('done')})});s.listen(0,'127.0.0.1',()=>console.log('127.0.0.1:'+s.address().port))`,
    ],
    (line) => (/^127\.0\.0\.1:\d+$/.test(line) ? line : undefined),
    'sigterm',
  );
  return sendThrough(child, bytes);
}

/**
 * Moves `bytes` through a loopback TCP connection into file_floor.py, which reads them into one reused
 * 1 MiB buffer and writes each read to `file` (the least a broker that keeps its log in files can do, with
 * no interpreter work per byte); wall ms and the receiver's CPU seconds: the kernel's, nearly all. The
 * file is left for the caller.
 */
export async function kernelFloor(
  ctx: Pick<BrokerBenchContext, 'python' | 'fileFloor'>,
  bytes: number,
  file: string,
): Promise<{ ms: number; cpu: number }> {
  const child = await startService(
    ctx.python,
    [ctx.fileFloor, String(bytes), file],
    (line) => (/^127\.0\.0\.1:\d+$/.test(line.trim()) ? line.trim() : undefined),
    'sigterm',
  );
  return sendThrough(child, bytes);
}

/**
 * Writes `bytes` in 1 MiB writes to a receiver that answers "done" once it has them all, then stops it; ms
 * and its CPU seconds. A receiver that stops early (its "done" missing) fails the run rather than time a
 * part of it.
 */
async function sendThrough(child: Service, bytes: number): Promise<{ ms: number; cpu: number }> {
  try {
    return await timedSend(child, bytes);
  } finally {
    await child.stop();
  }
}

async function timedSend(child: Service, bytes: number): Promise<{ ms: number; cpu: number }> {
  const [host, p] = child.address.split(':') as [string, string];
  const socket = createConnection({ host, port: Number(p) });
  await once(socket, 'connect');
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const cpu = cpuSeconds(child.pid);
  const started = performance.now();
  let answer = '';
  socket.on('data', (d: Buffer) => {
    answer += d.toString();
  });
  const done = once(socket, 'end');
  // Awaited below; a receiver gone early fails a write first, and that is the error thrown.
  done.catch(() => undefined);
  let sent = 0;
  let ms: number;
  let used: number;
  try {
    while (sent < bytes) {
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      if (!socket.write(n === chunk.length ? chunk : chunk.subarray(0, n))) await once(socket, 'drain');
    }
    await done;
    ms = performance.now() - started;
    used = cpuSeconds(child.pid) - cpu;
  } finally {
    socket.destroy();
  }
  if (answer !== 'done') throw new Error(`the receiver closed without taking all ${bytes} bytes`);
  return { ms, cpu: used };
}

/** klog's runs against the baseline's of the same rounds: each round's ratio and their median. */
export function pair(klog: Run[], baseline: Run[]): Pair {
  const roundRatios = klog.map((k, i) => k.mbPerSec / baseline[i]!.mbPerSec);
  return { klog, baseline, roundRatios, ratio: median(roundRatios) };
}

/** CPU seconds a broker used over a run: all threads, and where measured its main thread and the kernel's part. */
export interface CpuUse {
  readonly all: number;
  readonly mainThread?: number;
  readonly kernel?: number;
}

export function runOf(ms: number, payloadBytes: number, cpu?: number | CpuUse): Run {
  const mb = payloadBytes / MB;
  const use = typeof cpu === 'number' ? { all: cpu } : cpu;
  return {
    ms,
    mbPerSec: mb / (ms / 1000),
    ...(use === undefined ? {} : { cpuSecondsPerMb: use.all / mb }),
    ...(use?.mainThread === undefined ? {} : { mainThreadCpuSecondsPerMb: use.mainThread / mb }),
    ...(use?.kernel === undefined ? {} : { kernelCpuSecondsPerMb: use.kernel / mb }),
  };
}

/** A broker's CPU counters now: all threads, the main thread, the kernel's part. */
function cpuNow(pid: number): Required<CpuUse> {
  return { ...threadCpuSeconds(pid), kernel: kernelCpuSeconds(pid) };
}

function cpuSince(pid: number, before: Required<CpuUse>): Required<CpuUse> {
  const now = cpuNow(pid);
  return {
    all: now.all - before.all,
    mainThread: now.mainThread - before.mainThread,
    kernel: now.kernel - before.kernel,
  };
}

export async function benchWorkload(ctx: BrokerBenchContext, w: Workload): Promise<WorkloadResult> {
  const messages = ctx.quick ? w.messages / 10 : w.messages;
  const perPartition = ctx.quick ? w.windowPerPartition / 5 : w.windowPerPartition;
  const file = join(ctx.scratch, `${w.id}.txt`);
  const windowFile = join(ctx.scratch, `${w.id}-window.txt`);
  const warmUpFile = join(ctx.scratch, `${w.id}-warm-up.txt`);
  const warmUpMessages = Math.round(messages * WARM_UP_SHARE);
  await messageFile(warmUpFile, warmUpMessages, w.messageBytes);
  await messageFile(file, messages, w.messageBytes);
  await messageFile(windowFile, perPartition, w.messageBytes);
  const payload = messages * w.messageBytes;
  const windowMessages = perPartition * WINDOW_PARTITIONS;
  const produceKlog: Run[] = [];
  const produceMock: Run[] = [];
  const fetchKlog: Run[] = [];
  const fetchMock: Run[] = [];
  const readBack: Run[] = [];
  const loop: Run[] = [];
  const floor: Run[] = [];
  const crc: Run[] = [];
  let producedBatches: WorkloadResult['producedBatches'];
  let rssPeak = 0;
  for (let round = 0; round < ctx.rounds; round++) {
    ctx.progress(`    ${w.label}: round ${round + 1}/${ctx.rounds}`);
    const dataDir = mkdtempSync(join(ctx.scratch, 'klog-data-'));
    const klog = await startKlog(ctx, dataDir);
    const mock = await startMock(ctx);
    try {
      await createTopic(ctx, klog.address, 'bench', 1);
      await createTopic(ctx, klog.address, 'window', WINDOW_PARTITIONS);
      await createTopic(ctx, klog.address, 'warm-up', 1);
      const produce = async (broker: Service) => {
        await run('kcat', produceArgs(broker.address, 'warm-up', 0, warmUpFile));
        const cpu = cpuNow(broker.pid);
        // klog's resident memory while it takes the load (the mock's is not klog's to answer for).
        const sampler =
          broker === klog
            ? setInterval(() => {
                rssPeak = Math.max(rssPeak, rssBytes(broker.pid));
              }, 50)
            : undefined;
        try {
          const { ms } = await run('kcat', produceArgs(broker.address, 'bench', 0, file));
          return runOf(ms, payload, cpuSince(broker.pid, cpu));
        } finally {
          clearInterval(sampler);
          if (broker === klog) rssPeak = Math.max(rssPeak, rssBytes(broker.pid));
        }
      };
      // Who goes first changes every round.
      if (round % 2 === 0) {
        produceKlog.push(await produce(klog));
        produceMock.push(await produce(mock));
      } else {
        produceMock.push(await produce(mock));
        produceKlog.push(await produce(klog));
      }
      const back = await run('kcat', consumeArgs(klog.address, 'bench', messages, 0), {
        stdout: 'count-lines',
      });
      if (back.lines !== messages)
        throw new Error(`read back ${back.lines} of ${messages} messages from klog`);
      readBack.push(runOf(back.ms, payload));
      for (const broker of [klog, mock]) {
        for (let p = 0; p < WINDOW_PARTITIONS; p++)
          await run('kcat', produceArgs(broker.address, 'window', p, windowFile));
      }
      const fetch = async (broker: Service) => {
        const r = await run('kcat', consumeArgs(broker.address, 'window', windowMessages), {
          stdout: 'count-lines',
        });
        if (r.lines !== windowMessages)
          throw new Error(`fetched ${r.lines} of ${windowMessages} messages from ${broker.address}`);
        return runOf(r.ms, windowMessages * w.messageBytes);
      };
      // Each broker's time for every read of the round, who reads first changing at every read.
      const reads = ctx.quick ? 2 : FETCH_READS;
      const fetchMs = { klog: 0, mock: 0 };
      for (let i = 0; i < reads; i++) {
        const order = (round + i) % 2 === 0 ? (['klog', 'mock'] as const) : (['mock', 'klog'] as const);
        for (const who of order) fetchMs[who] += (await fetch(who === 'klog' ? klog : mock)).ms;
      }
      const windowBytes = reads * windowMessages * w.messageBytes;
      fetchKlog.push(runOf(fetchMs.klog, windowBytes));
      fetchMock.push(runOf(fetchMs.mock, windowBytes));
      const wire = messages * (w.messageBytes + 1);
      loop.push(runOf((await loopback(wire)).ms, payload));
      const floorFile = join(dataDir, 'floor.log');
      const f = await kernelFloor(ctx, wire, floorFile);
      rmSync(floorFile, { force: true });
      floor.push(runOf(f.ms, payload, f.cpu));
      // The floor's other part: CRC-32C over the very batches kcat sent this round (their sizes are
      // librdkafka's batching, which no synthetic buffer would match), read back from klog's segment.
      const batches = storedBatches(dataDir, 'bench', 0);
      const batchBytes = batches.reduce((s, b) => s + b.length, 0);
      producedBatches = { count: batches.length, meanBytes: batchBytes / batches.length };
      crc.push(crcCpuRun(batches, payload));
    } finally {
      await klog.stop();
      await mock.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  ctx.progress(`    ${w.label}: one more produce, klog under node --cpu-prof`);
  const meanMs = (of: (r: Run) => number | undefined) =>
    (produceKlog.reduce((s, r) => s + (of(r) ?? 0), 0) / produceKlog.length) * 1000;
  const profile = await profiledProduce(ctx, w, file, warmUpFile, payload, {
    allMsPerMb: meanMs((r) => r.cpuSecondsPerMb),
    mainThreadMsPerMb: meanMs((r) => r.mainThreadCpuSecondsPerMb),
  });
  rmSync(file, { force: true });
  rmSync(windowFile, { force: true });
  rmSync(warmUpFile, { force: true });
  return {
    id: w.id,
    label: ctx.quick ? `${messages.toLocaleString('en')} × ${w.messageBytes} B` : w.label,
    messages,
    messageBytes: w.messageBytes,
    warmUpMessages,
    produce: pair(produceKlog, produceMock),
    fetch: { ...pair(fetchKlog, fetchMock), messages: windowMessages, reads: ctx.quick ? 2 : FETCH_READS },
    produceVsLoopback: pair(produceKlog, loop),
    readBackVsLoopback: pair(readBack, loop),
    kernelFloor: floor,
    crc32cFloor: crc,
    ...(producedBatches === undefined ? {} : { producedBatches }),
    rssUnderLoadBytes: rssPeak,
    profile,
  };
}

/**
 * The workload's produce once more (after the same warm-up), klog serve under `node --cpu-prof`: the profile
 * (kept in `ctx.profilesDir` when the run writes its results) and where its CPU went while kcat produced, in
 * parts of the CPU per MB the unprofiled rounds measured (the profiler costs some of its own).
 */
async function profiledProduce(
  ctx: BrokerBenchContext,
  w: Workload,
  file: string,
  warmUpFile: string,
  payload: number,
  /** The unprofiled rounds' CPU per MB: all threads, the main thread. */
  unprofiled: { allMsPerMb: number; mainThreadMsPerMb: number },
): Promise<ProduceProfile> {
  const dir = mkdtempSync(join(ctx.scratch, 'klog-prof-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const name = `broker-produce-${w.id}.cpuprofile`;
  const klog = await startKlog(
    ctx,
    dataDir,
    [],
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`],
  );
  let fromUs: number;
  let toUs: number;
  let cpu: Required<CpuUse>;
  try {
    await createTopic(ctx, klog.address, 'bench', 1);
    await createTopic(ctx, klog.address, 'warm-up', 1);
    await run('kcat', produceArgs(klog.address, 'warm-up', 0, warmUpFile));
    cpu = cpuNow(klog.pid);
    fromUs = Number(process.hrtime.bigint() / 1000n);
    await run('kcat', produceArgs(klog.address, 'bench', 0, file));
    toUs = Number(process.hrtime.bigint() / 1000n);
    cpu = cpuSince(klog.pid, cpu);
  } finally {
    // The profile is written as the process exits.
    await klog.stop();
  }
  const path = join(dir, name);
  const profile = readCpuProfile(path);
  let breakdown = breakdownOf(profile, { fromUs, toUs });
  // Clocks that do not agree (no sample inside the window): the whole profile, startup and all.
  const windowed = breakdown.sampledMs > 0;
  if (!windowed) breakdown = breakdownOf(profile);
  if (ctx.profilesDir !== undefined) {
    mkdirSync(ctx.profilesDir, { recursive: true });
    copyFileSync(path, join(ctx.profilesDir, name));
  }
  rmSync(dir, { recursive: true, force: true });
  const mb = payload / MB;
  const profiledMainThreadMsPerMb = (cpu.mainThread * 1000) / mb;
  return {
    file: name,
    windowed,
    profiledCpuMsPerMb: (cpu.all * 1000) / mb,
    profiledMainThreadMsPerMb,
    sampledMsPerMb: breakdown.sampledMs / mb,
    parts: cpuParts(breakdown, mb, { ...unprofiled, profiledMainThreadMsPerMb }),
  };
}

/**
 * A Node process that accepts connections and answers each request with one fixed frame, printing the line
 * klog serve prints: what the same sockets cost Node itself, the idle connections' baseline.
 */
const ACCEPT_ONLY = `const reply = Buffer.alloc(400); require('node:net').createServer({ noDelay: true }, (s) => { s.on('data', () => s.write(reply)); s.on('error', () => {}); }).listen(0, '127.0.0.1', function () { console.log('listening on 127.0.0.1:' + this.address().port); });`;

/** Reads RSS this often while waiting for a process to settle. */
const SETTLE_POLL_MS = 500;
/**
 * Settled: at least this long after the last connection (past klog's QUIET_MS of 5 s, when quiet
 * connections let their frame buffers go, and V8's memory reducer's first pass) …
 */
const SETTLE_MIN_MS = 12_000;
/** … with every reading of the last SETTLE_STEADY_MS within SETTLE_SLACK_BYTES of each other; */
const SETTLE_STEADY_MS = 8_000;
const SETTLE_SLACK_BYTES = 64 * 1024;
/** read anyway after this long, and said. */
const SETTLE_MAX_MS = 45_000;

/** What `settledRss` reads and waits with: the process's RSS and the clock, or a test's. */
export interface SettleClock {
  rss(): number;
  now(): number;
  sleep(ms: number): Promise<void>;
}

const processClock = (pid: number): SettleClock => ({
  rss: () => rssBytes(pid),
  now: () => performance.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
});

/**
 * RSS once a process has stopped changing: right after a burst of connections RSS holds V8's grown young
 * generation and garbage not yet collected, which an idle process gives back within seconds (issue 44:
 * read 0.5 s after the burst, one process's figure swung between 7 and 16 KiB a connection). `settled` is
 * false when SETTLE_MAX_MS ran out first.
 */
export async function settledRss(clock: SettleClock): Promise<{ rss: number; settled: boolean }> {
  const t0 = clock.now();
  const readings: { at: number; rss: number }[] = [{ at: t0, rss: clock.rss() }];
  for (;;) {
    await clock.sleep(SETTLE_POLL_MS);
    const now = clock.now();
    const rss = clock.rss();
    readings.push({ at: now, rss });
    while ((readings[0] as { at: number }).at < now - SETTLE_STEADY_MS) readings.shift();
    const values = readings.map((r) => r.rss);
    const steady = Math.max(...values) - Math.min(...values) <= SETTLE_SLACK_BYTES;
    if (now - t0 >= Math.max(SETTLE_MIN_MS, SETTLE_STEADY_MS) && steady) return { rss, settled: true };
    if (now - t0 >= SETTLE_MAX_MS) return { rss, settled: false };
  }
}

/**
 * klog serve's resident memory with `count` idle connections open, each having asked ApiVersions once,
 * against a Node process holding the same connections: fresh processes each round, the two alternating,
 * the median round reported.
 */
export async function benchIdleConnections(
  ctx: BrokerBenchContext,
  count: number,
): Promise<SettledIdleConnections> {
  const runs: IdleRound[] = [];
  const nodeRuns: IdleRound[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const dataDir = mkdtempSync(join(ctx.scratch, 'klog-idle-'));
    try {
      runs.push(await idleConnectionsOnce(await startKlog(ctx, dataDir), count));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    nodeRuns.push(await idleConnectionsOnce(await startAcceptOnly(), count));
  }
  const unsettled = [...runs, ...nodeRuns].reduce((n, r) => n + r.unsettledReadings, 0);
  if (unsettled > 0)
    ctx.progress(
      `    ${unsettled} RSS reading(s) taken after ${SETTLE_MAX_MS / 1000} s without the process settling`,
    );
  const { unsettledReadings: _, ...mid } = medianRound(runs);
  return {
    ...mid,
    roundBytesPerConnection: runs.map((r) => r.bytesPerConnection),
    measure: 'settled',
    nodeBytesPerConnection: medianRound(nodeRuns).bytesPerConnection,
    roundNodeBytesPerConnection: nodeRuns.map((r) => r.bytesPerConnection),
    unsettledReadings: unsettled,
  };
}

export interface IdleRound {
  readonly connections: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly bytesPerConnection: number;
  /** Of its two readings, those SETTLE_MAX_MS ran out on. */
  readonly unsettledReadings: number;
}

function medianRound(runs: readonly IdleRound[]): IdleRound {
  const sorted = [...runs].sort((a, b) => a.bytesPerConnection - b.bytesPerConnection);
  return sorted[Math.floor((sorted.length - 1) / 2)] as IdleRound;
}

/** The idle connections' baseline (ACCEPT_ONLY), started. */
export function startAcceptOnly(): Promise<Service> {
  return startService(process.execPath, ['-e', ACCEPT_ONLY], listeningAddress, 'sigterm');
}

/** Opens `count` connections to `server` (stopped at the end), RSS settled before the first and after the last. */
export async function idleConnectionsOnce(server: Service, count: number): Promise<IdleRound> {
  const sockets: Socket[] = [];
  try {
    const [host, port] = server.address.split(':') as [string, string];
    const request = apiVersionsV0();
    const connect = async () => {
      const s = createConnection({ host, port: Number(port) });
      await once(s, 'connect');
      s.write(request);
      await once(s, 'data');
      sockets.push(s);
    };
    await connect();
    const before = await settledRss(processClock(server.pid));
    for (let i = 1; i < count; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, count - i) }, connect));
    const after = await settledRss(processClock(server.pid));
    return {
      connections: sockets.length,
      rssBeforeBytes: before.rss,
      rssAfterBytes: after.rss,
      bytesPerConnection: Math.round((after.rss - before.rss) / (sockets.length - 1)),
      unsettledReadings: [before, after].filter((r) => !r.settled).length,
    };
  } finally {
    for (const s of sockets) s.destroy();
    await server.stop();
  }
}
