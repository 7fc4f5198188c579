import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../harness.js';

/** Issue 44's goals: first ApiVersions answered within 2× `node -e 0`; idle RSS within 1.3× a listening Node. */
export const STARTUP_RATIO_GOAL = 2;
export const IDLE_RSS_RATIO_GOAL = 1.3;

export interface StartupResult {
  rounds: number;
  nodeMs: number;
  klogMs: number;
  nodeListenRssMiB: number;
  klogIdleRssMiB: number;
}

/** A Node process that only listens on a port, printing the line klog serve prints: RSS's baseline. */
const LISTEN_ONLY = `require('node:net').createServer().listen(0, '127.0.0.1', function () { console.log('listening on 127.0.0.1:' + this.address().port); });`;

/** The address in klog serve's "listening on" line (and the line its baselines print), else undefined. */
export const listeningAddress = (line: string): string | undefined =>
  /listening on (127\.0\.0\.1:\d+)/.exec(line)?.[1];

/** ApiVersions v0 (key 18), correlation id 1, null client id: the first request every Kafka client sends. */
export function apiVersionsV0(): Buffer {
  const b = Buffer.alloc(14);
  b.writeInt32BE(10, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(0, 6);
  b.writeInt32BE(1, 8);
  b.writeInt16BE(-1, 12);
  return b;
}

function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

/**
 * Spawns `args`, waits for its "listening on" line, sends ApiVersions if `ask` and waits for the answer;
 * resolves to the time from spawn to that point and the process's RSS then. `node -e 0`'s time is to its exit.
 */
function once(args: string[], mode: 'exit' | 'listen' | 'ask'): Promise<{ ms: number; rssMiB: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    if (mode === 'exit') {
      child.once('exit', () => resolve({ ms: performance.now() - t0, rssMiB: 0 }));
      return;
    }
    let seen = '';
    const finish = (ms: number) => {
      const rss = rssMiB(child.pid ?? 0);
      child.once('exit', () => resolve({ ms, rssMiB: rss }));
      child.kill();
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', function onData(chunk: string) {
      seen += chunk;
      const address = listeningAddress(seen);
      if (address === undefined) return;
      const port = address.slice(address.lastIndexOf(':') + 1);
      child.stdout.off('data', onData);
      child.stdout.resume();
      if (mode === 'listen') return finish(performance.now() - t0);
      const socket = createConnection({ port: Number(port), host: '127.0.0.1' }, () =>
        socket.write(apiVersionsV0()),
      );
      socket.once('error', reject);
      socket.once('data', () => {
        const ms = performance.now() - t0;
        socket.destroy();
        finish(ms);
      });
    });
    child.once('exit', (code) => {
      if (listeningAddress(seen) === undefined)
        reject(new Error(`${args.join(' ')} exited (${code}) before listening`));
    });
  });
}

/**
 * `klog serve` from spawn to its first answered ApiVersions against `node -e 0`, and its idle RSS against a
 * Node process that only listens, each pair run back to back in every round so both see the same machine.
 */
export async function benchStartup(klogBin: string, rounds: number): Promise<StartupResult> {
  const node: number[] = [];
  const klog: number[] = [];
  const listenRss: number[] = [];
  const klogRss: number[] = [];
  for (let i = 0; i < rounds; i++) {
    node.push((await once(['-e', '0'], 'exit')).ms);
    listenRss.push((await once(['-e', LISTEN_ONLY], 'listen')).rssMiB);
    const dataDir = mkdtempSync(join(tmpdir(), 'klog-bench-startup-'));
    try {
      const r = await once([klogBin, 'serve', '--port', '0', '--data-dir', dataDir], 'ask');
      klog.push(r.ms);
      klogRss.push(r.rssMiB);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    rounds,
    nodeMs: median(node),
    klogMs: median(klog),
    nodeListenRssMiB: median(listenRss),
    klogIdleRssMiB: median(klogRss),
  };
}

/** The two lines `pnpm bench:broker` prints: each ratio, its goal, and whether it is met. */
export function formatStartup(r: StartupResult): string[] {
  const startup = r.klogMs / r.nodeMs;
  const rss = r.klogIdleRssMiB / r.nodeListenRssMiB;
  const verdict = (ratio: number, goal: number) => (ratio <= goal ? 'met' : 'NOT met');
  return [
    `start-up: klog serve answers ApiVersions in ${r.klogMs.toFixed(0)} ms, node -e 0 exits in ${r.nodeMs.toFixed(0)} ms: ${startup.toFixed(2)}× (goal ≤ ${STARTUP_RATIO_GOAL}×, ${verdict(startup, STARTUP_RATIO_GOAL)}; medians of ${r.rounds})`,
    `idle RSS: klog serve ${r.klogIdleRssMiB.toFixed(1)} MiB, a listening node ${r.nodeListenRssMiB.toFixed(1)} MiB: ${rss.toFixed(2)}× (goal ≤ ${IDLE_RSS_RATIO_GOAL}×, ${verdict(rss, IDLE_RSS_RATIO_GOAL)}; medians of ${r.rounds})`,
  ];
}

/**
 * Other brokers' start-up and memory as their authors published them (issue 44), shown on the Performance
 * page beside klog's measured figures: theirs, measured on their machines in their way, never here.
 * KIP-974 times the broker's start and reports its maximum memory. Tansu's figures come from a talk as InfoQ
 * reported it: Tansu's own README gives none.
 */
export interface PublishedFootprint {
  readonly name: string;
  readonly startup: string;
  readonly memory: string;
  readonly source: { readonly title: string; readonly url: string };
}

const KIP_974 = {
  title: 'KIP-974',
  url: 'https://cwiki.apache.org/confluence/display/KAFKA/KIP-974%3A+Docker+Image+for+GraalVM+based+Native+Kafka+Broker',
};

export const PUBLISHED_FOOTPRINTS: readonly PublishedFootprint[] = [
  { name: 'Kafka broker บน JVM', startup: '≈ 1.15–1.2 s', memory: '≈ 1 GB', source: KIP_974 },
  {
    name: 'Kafka native image (GraalVM, serial GC)',
    startup: '≈ 110–130 ms',
    memory: '≈ 230–250 MB',
    source: KIP_974,
  },
  {
    name: 'Tansu',
    startup: '≈ 10 ms',
    memory: '≈ 20 MB',
    source: {
      title: 'รายงานของ InfoQ จากการบรรยายของผู้สร้าง Tansu',
      url: 'https://www.infoq.com/news/2026/03/tansu-stateless-kafka-compatible',
    },
  },
];
