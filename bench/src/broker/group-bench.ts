import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SUITES, treeDir } from '../../../scripts/librdkafka/suite.mjs';
import { median } from '../harness.js';
import {
  type BrokerBenchContext,
  createTopic,
  messageFile,
  pair,
  produceArgs,
  runOf,
  startKlog,
  startMock,
  WORKLOADS,
} from './broker-bench.js';
import { run, type Service } from './processes.js';
import type { GroupConsumeResult, Run } from './results.js';

/**
 * Consuming through a consumer group (kcat -G: FindCoordinator, JoinGroup, SyncGroup, OffsetFetch, then
 * Fetch) against klog serve and librdkafka's mock, which has its own group coordinator. Both wait out their
 * first rebalance's delay (Kafka's group.initial.rebalance.delay.ms, 3000 ms; the mock uses the same), so the
 * join-to-first-message figure is measured under the same rule on both sides.
 */

const PARTITIONS = 4;
/** A hang bound only: a group consumer that never gets its messages fails the run instead of stalling it. */
const CONSUME_LIMIT_MS = 600_000;

interface GroupRun {
  readonly ms: number;
  /** From kcat's start (its join) to the first message it printed. */
  readonly firstMessageMs: number;
}

/**
 * kcat on librdkafka 2.15.1 (the suite's build, through LD_LIBRARY_PATH), which speaks Kafka 4's consumer
 * group protocol as well as the classic one. Only a build already there is used (`pnpm test` makes it); a
 * bench never builds. Undefined, and the rows left out with why, without one.
 */
export interface Librdkafka215 {
  readonly libDir: string;
}

export function librdkafka215(progress: (line: string) => void): Librdkafka215 | undefined {
  const libDir = join(treeDir(SUITES.npm), 'src');
  if (existsSync(join(libDir, 'librdkafka.so.1'))) return { libDir };
  progress(
    `    group consume: no KIP-848 rows (no librdkafka ${SUITES.npm.version} build in ${libDir}; pnpm test makes one)`,
  );
  return undefined;
}

/** kcat in balanced-consumer mode, reading `count` messages of `topic` from the earliest offset, then exiting. */
function groupConsume(
  address: string,
  group: string,
  topic: string,
  count: number,
  on215?: { readonly lib: Librdkafka215; readonly protocol: 'classic' | 'consumer' },
): Promise<GroupRun> {
  const args = [
    '-b',
    address,
    '-E',
    '-q',
    '-G',
    group,
    '-X',
    'auto.offset.reset=earliest',
    ...(on215 === undefined ? [] : ['-X', `group.protocol=${on215.protocol}`]),
    '-c',
    String(count),
    topic,
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('kcat', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(on215 === undefined ? {} : { env: { ...process.env, LD_LIBRARY_PATH: on215.lib.libDir } }),
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CONSUME_LIMIT_MS);
    let first: number | undefined;
    let lines = 0;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      first ??= performance.now() - started;
      for (const byte of d) if (byte === 10) lines++;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0 && lines === count && first !== undefined) resolve({ ms, firstMessageMs: first });
      else
        reject(
          new Error(
            `kcat -G ${group} ${topic} on ${address}: exit ${code}, ${lines} of ${count} messages: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}

export async function benchGroupConsume(ctx: BrokerBenchContext): Promise<GroupConsumeResult> {
  const w = WORKLOADS[0]!;
  const messages = ctx.quick ? w.messages / 10 : w.messages;
  const perPartition = ctx.quick ? w.windowPerPartition / 5 : w.windowPerPartition;
  const windowMessages = perPartition * PARTITIONS;
  const file = join(ctx.scratch, 'group-part.txt');
  const windowFile = join(ctx.scratch, 'group-window.txt');
  // The whole count goes only into klog, a quarter per partition: the mock keeps ~5 MB per partition.
  await messageFile(file, messages / PARTITIONS, w.messageBytes);
  await messageFile(windowFile, perPartition, w.messageBytes);
  const all: Run[] = [];
  const allFirst: number[] = [];
  const klogRuns: Run[] = [];
  const mockRuns: Run[] = [];
  const afterJoin: Record<'klog' | 'mock', Run[]> = { klog: [], mock: [] };
  const first: Record<'klog' | 'mock', number[]> = { klog: [], mock: [] };
  // klog only (the mock of Debian's librdkafka 2.0.2 predates the consumer protocol), both protocols on the
  // same librdkafka 2.15.1, so that the gap is the protocol's, not the client's.
  const lib = librdkafka215(ctx.progress);
  const on215: Record<'classic' | 'consumer', { runs: Run[]; first: number[] }> = {
    classic: { runs: [], first: [] },
    consumer: { runs: [], first: [] },
  };
  let on215Failed: string | undefined;
  try {
    for (let round = 0; round < ctx.rounds; round++) {
      ctx.progress(`    group consume: round ${round + 1}/${ctx.rounds}`);
      const dataDir = mkdtempSync(join(ctx.scratch, 'klog-group-'));
      const klog = await startKlog(ctx, dataDir);
      const mock = await startMock(ctx);
      try {
        await createTopic(ctx, klog.address, 'group-all', PARTITIONS);
        await createTopic(ctx, klog.address, 'group-window', PARTITIONS);
        for (let p = 0; p < PARTITIONS; p++) await spawnProduce(klog.address, 'group-all', p, file);
        for (const broker of [klog, mock])
          for (let p = 0; p < PARTITIONS; p++)
            await spawnProduce(broker.address, 'group-window', p, windowFile);
        const r = await groupConsume(klog.address, `bench-all-${round}`, 'group-all', messages);
        all.push(runOf(r.ms, messages * w.messageBytes));
        allFirst.push(r.firstMessageMs);
        const window = async (side: 'klog' | 'mock', broker: Service) => {
          const g = await groupConsume(
            broker.address,
            `bench-window-${round}`,
            'group-window',
            windowMessages,
          );
          (side === 'klog' ? klogRuns : mockRuns).push(runOf(g.ms, windowMessages * w.messageBytes));
          first[side].push(g.firstMessageMs);
          afterJoin[side].push(runOf(g.ms - g.firstMessageMs, windowMessages * w.messageBytes));
        };
        // Who goes first changes every round.
        if (round % 2 === 0) {
          await window('klog', klog);
          await window('mock', mock);
        } else {
          await window('mock', mock);
          await window('klog', klog);
        }
        if (lib !== undefined && on215Failed === undefined) {
          // Who goes first changes every round here too; a failure drops these rows, not the bench.
          const order: ('classic' | 'consumer')[] =
            round % 2 === 0 ? ['consumer', 'classic'] : ['classic', 'consumer'];
          try {
            for (const protocol of order) {
              const g = await groupConsume(
                klog.address,
                `bench-215-${protocol}-${round}`,
                'group-window',
                windowMessages,
                { lib, protocol },
              );
              on215[protocol].runs.push(runOf(g.ms, windowMessages * w.messageBytes));
              on215[protocol].first.push(g.firstMessageMs);
            }
          } catch (e) {
            on215Failed = (e as Error).message;
            ctx.progress(`    group consume: KIP-848 rows dropped: ${on215Failed}`);
          }
        }
      } finally {
        await klog.stop();
        await mock.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(file, { force: true });
    rmSync(windowFile, { force: true });
  }
  return {
    label: `${messages.toLocaleString('en')} × ${w.messageBytes} B`,
    messages,
    messageBytes: w.messageBytes,
    partitions: PARTITIONS,
    all,
    allFirstMessageMs: median(allFirst),
    window: { ...pair(klogRuns, mockRuns), messages: windowMessages },
    firstMessageMs: { klog: median(first.klog), mock: median(first.mock) },
    afterJoin: pair(afterJoin.klog, afterJoin.mock),
    ...(lib === undefined || on215Failed !== undefined
      ? {}
      : {
          consumerProtocol: {
            window: on215.consumer.runs,
            firstMessageMs: median(on215.consumer.first),
            classicOnSameClient: { window: on215.classic.runs, firstMessageMs: median(on215.classic.first) },
          },
        }),
  };
}

async function spawnProduce(address: string, topic: string, partition: number, file: string): Promise<void> {
  await run('kcat', produceArgs(address, topic, partition, file));
}
