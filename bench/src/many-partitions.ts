import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
import { parseBenchArgs, runBenchMain, UsageError } from './args.js';
import { BENCH_DIR } from './paths.js';

const USAGE = `usage: pnpm bench:partitions [--partitions N] [--compacted N] [--klog BIN] [--cpu-prof DIR]

  Issue 40's two availability figures for klog serve over many partitions (printed, nothing written):
  1. restart: a data directory of N partition directories (default 100,000, as CreateTopics leaves them,
     a few of them with records): seconds from "listening" to the first ApiVersions answered, and to the
     end of the start-up check. Goal: the first answer within a second of "listening".
  2. cleaner: a topic of N compacted partitions (default 20,000, a few with segments to clean) and
     log.cleaner.backoff.ms=200: the longest wait between two ApiVersions answers over ten seconds of
     passes. Goal: under 100 ms.

  --klog BIN      another build's CLI (its packages/cli/dist/bin.js), for a before and after
  --cpu-prof DIR  run klog serve under node --cpu-prof, its profiles written to DIR`;

/** ApiVersions v0 (no client software fields): the probe, as a health check sends it. */
function apiVersionsFrame(correlationId: number): Buffer {
  const clientId = Buffer.from('probe');
  const frame = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
  frame.writeInt32BE(frame.length - 4, 0);
  frame.writeInt16BE(18, 4);
  frame.writeInt16BE(0, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(clientId.length, 12);
  clientId.copy(frame, 14);
  return frame;
}

/** One connection sending ApiVersions one at a time; `ask` resolves when its answer is read whole. */
class Prober {
  #buffered = Buffer.alloc(0);
  #waiting: (() => void) | undefined;
  #next = 1;
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffered = Buffer.concat([this.#buffered, chunk]);
      while (this.#buffered.length >= 4 && this.#buffered.length >= 4 + this.#buffered.readInt32BE(0)) {
        this.#buffered = this.#buffered.subarray(4 + this.#buffered.readInt32BE(0));
        const done = this.#waiting;
        this.#waiting = undefined;
        done?.();
      }
    });
  }

  static open(port: number): Promise<Prober> {
    return new Promise((done, fail) => {
      const socket = connect({ host: '127.0.0.1', port }, () => done(new Prober(socket)));
      socket.once('error', fail);
    });
  }

  ask(): Promise<void> {
    return new Promise((done) => {
      this.#waiting = done;
      this.socket.write(apiVersionsFrame(this.#next++));
    });
  }
}

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  /** Milliseconds (performance.now) at which each line was read, with the line. */
  readonly lines: { at: number; line: string }[];
  waitFor(pattern: RegExp): Promise<number>;
  stop(): Promise<void>;
}

function serve(klog: string, dataDir: string, extra: string[], cpuProf: string | undefined): Promise<Served> {
  const node = cpuProf === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProf];
  const child = spawn(
    process.execPath,
    [...node, klog, 'serve', '--data-dir', dataDir, '--port', '0', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: { at: number; line: string }[] = [];
  const watchers: { pattern: RegExp; done: (at: number) => void }[] = [];
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      const at = performance.now();
      lines.push({ at, line });
      for (const w of watchers.splice(0)) {
        if (w.pattern.test(line)) w.done(at);
        else watchers.push(w);
      }
    });
  }
  const waitFor = (pattern: RegExp) =>
    new Promise<number>((done, fail) => {
      const seen = lines.find((l) => pattern.test(l.line));
      if (seen !== undefined) return done(seen.at);
      watchers.push({ pattern, done });
      child.once('exit', (code) => fail(new Error(`klog serve exited ${code} before ${pattern}`)));
    });
  return waitFor(/listening on [^:]+:(\d+)/).then(() => {
    const listening = lines.find((l) => /listening on/.test(l.line))!.line;
    const port = Number(/listening on [^:]+:(\d+)/.exec(listening)![1]);
    return {
      child,
      port,
      lines,
      waitFor,
      async stop() {
        child.kill('SIGTERM');
        await exited;
      },
    };
  });
}

/** Figure 1: a restart over `partitions` partition directories. */
async function restartFigure(klog: string, partitions: number, cpuProf: string | undefined): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'klog-bench-restart-'));
  try {
    const dataDir = join(scratch, 'data');
    // A few partitions with records first, written by klog itself (so the check has logs to load).
    let s = await serve(klog, dataDir, [], undefined);
    const kafka = new Kafka({ brokers: [`127.0.0.1:${s.port}`], logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'written', messages: [{ key: 'k', value: 'v' }] });
    await producer.disconnect();
    await s.stop();
    // The rest as CreateTopics leaves them: an empty directory per partition.
    const made = performance.now();
    for (let p = 0; p < partitions; p++) mkdirSync(join(dataDir, `many-${p}`));
    process.stderr.write(
      `restart: ${partitions} partition directories made in ${((performance.now() - made) / 1000).toFixed(1)} s\n`,
    );
    s = await serve(klog, dataDir, [], cpuProf);
    const listening = s.lines.find((l) => /listening on/.test(l.line))!.at;
    const probe = await Prober.open(s.port);
    await probe.ask();
    const answered = performance.now();
    probe.socket.destroy();
    const checked = await s.waitFor(/start-up check done/);
    const stopping = performance.now();
    await s.stop();
    const stopped = performance.now();
    const sec = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
    process.stdout.write(
      `restart over ${partitions + 1} partitions: first ApiVersions answered ${sec(answered - listening)} after "listening" (goal < 1 s); ` +
        `start-up check done ${sec(checked - listening)} after it; SIGTERM to exit ${sec(stopped - stopping)}\n`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Figure 2: ApiVersions answered while cleaner passes run over `partitions` compacted partitions. */
async function cleanerFigure(klog: string, partitions: number, cpuProf: string | undefined): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'klog-bench-cleaner-'));
  try {
    const s = await serve(
      klog,
      join(scratch, 'data'),
      ['--log-cleaner-backoff-ms', '200', '--log-level', 'debug'],
      cpuProf,
    );
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${s.port}`],
      logLevel: logLevel.NOTHING,
      requestTimeout: 120_000,
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      timeout: 120_000,
      topics: [
        {
          topic: 'compacted',
          numPartitions: partitions,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: '200' },
          ],
        },
      ],
    });
    await admin.disconnect();
    // Ten partitions with segments to clean: one batch per segment, the same keys again and again.
    const producer = kafka.producer();
    await producer.connect();
    for (let round = 0; round < 10; round++) {
      await producer.send({
        topic: 'compacted',
        messages: Array.from({ length: 10 }, (_, i) => ({ partition: i, key: `k${round % 3}`, value: 'v' })),
      });
    }
    await producer.disconnect();
    const passesBefore = s.lines.filter((l) => /cleaner pass done/.test(l.line)).length;
    const probe = await Prober.open(s.port);
    const answers: number[] = [performance.now()];
    const until = answers[0]! + 10_000;
    while (performance.now() < until) {
      await probe.ask();
      answers.push(performance.now());
    }
    probe.socket.destroy();
    let maxGap = 0;
    for (let i = 1; i < answers.length; i++) maxGap = Math.max(maxGap, answers[i]! - answers[i - 1]!);
    const passes = s.lines.filter((l) => /cleaner pass done/.test(l.line)).length - passesBefore;
    const compactions = s.lines.filter((l) => /compacted \d+ segment/.test(l.line)).length;
    const stopping = performance.now();
    await s.stop();
    process.stdout.write(
      `cleaner over ${partitions} compacted partitions: ${answers.length - 1} ApiVersions answered in 10 s over ${passes} pass(es) ` +
        `(${compactions} compaction(s) in all), longest wait between answers ${maxGap.toFixed(1)} ms (goal < 100 ms); ` +
        `SIGTERM to exit ${((performance.now() - stopping) / 1000).toFixed(3)} s\n`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const values = parseBenchArgs(process.argv.slice(2), USAGE, {
    partitions: { type: 'string' },
    compacted: { type: 'string' },
    klog: { type: 'string' },
    'cpu-prof': { type: 'string' },
  });
  const count = (value: string | undefined, fallback: number, name: string) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new UsageError(`--${name} must be 1..100000`);
    return n;
  };
  const klog = resolve(values.klog ?? join(BENCH_DIR, '..', 'packages', 'cli', 'dist', 'bin.js'));
  const cpuProf = values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']);
  await restartFigure(klog, count(values.partitions, 100_000, 'partitions'), cpuProf);
  await cleanerFigure(klog, count(values.compacted, 20_000, 'compacted'), cpuProf);
}

await runBenchMain('bench:partitions', USAGE, main);
