import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../harness.js';
import {
  type BrokerBenchContext,
  createTopic,
  messageFile,
  produceArgs,
  runOf,
  startKlog,
} from './broker-bench.js';
import { rssBytes, run } from './processes.js';
import type { FlushCostResult, StalledConsumersResult } from './results.js';

/**
 * Issue 22's rows: what hostile or careless clients cost klog serve, and what durability costs.
 * - RSS with consumers that never read their Fetch responses (kcat stopped with SIGSTOP once it fetches):
 *   bounded by `--queued-max-request-bytes`, not by their number × fetch.max.bytes.
 * - Produce throughput with `--flush every-append` (an fsync per batch) against the default `os`.
 */

const MIB = 1024 * 1024;

/** klog's RSS with `count` consumers stalled mid-fetch, under each budget. */
export async function benchStalledConsumers(
  ctx: BrokerBenchContext,
  count: number,
  budgets: readonly (number | undefined)[],
): Promise<StalledConsumersResult[]> {
  const messages = ctx.quick ? 30_000 : 100_000;
  const file = join(ctx.scratch, 'stall.txt');
  await messageFile(file, messages, 1024);
  const out: StalledConsumersResult[] = [];
  try {
    for (const budget of budgets) {
      const dataDir = mkdtempSync(join(ctx.scratch, 'klog-stall-'));
      const klog = await startKlog(
        ctx,
        dataDir,
        budget === undefined ? [] : ['--queued-max-request-bytes', String(budget)],
      );
      const consumers: ReturnType<typeof spawn>[] = [];
      try {
        await createTopic(ctx, klog.address, 'stall', 1);
        await run('kcat', produceArgs(klog.address, 'stall', 0, file));
        const before = rssBytes(klog.pid);
        for (let i = 0; i < count; i++) {
          consumers.push(
            spawn(
              'kcat',
              [
                '-C',
                '-b',
                klog.address,
                '-t',
                'stall',
                '-o',
                'beginning',
                '-q',
                '-X',
                'fetch.max.bytes=52428800',
                '-X',
                'max.partition.fetch.bytes=52428800',
              ],
              { stdio: 'ignore' },
            ),
          );
        }
        // Long enough for each to connect and ask; then frozen: their sockets are read no more.
        await sleep(1500);
        for (const c of consumers) c.kill('SIGSTOP');
        let peak = 0;
        for (let i = 0; i < 10; i++) {
          await sleep(300);
          peak = Math.max(peak, rssBytes(klog.pid));
        }
        out.push({
          consumers: count,
          budgetBytes: budget ?? 256 * MIB,
          rssBeforeBytes: before,
          rssPeakBytes: peak,
        });
      } finally {
        for (const c of consumers) {
          c.kill('SIGCONT');
          c.kill('SIGKILL');
        }
        await klog.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(file, { force: true });
  }
  return out;
}

/** kcat's idempotent produce into klog with `--flush every-append`, against the default, alternating. */
export async function benchFlushCost(ctx: BrokerBenchContext): Promise<FlushCostResult> {
  const messages = ctx.quick ? 20_000 : 100_000;
  const file = join(ctx.scratch, 'flush.txt');
  await messageFile(file, messages, 1024);
  const ratios: number[] = [];
  const rates: Record<'os' | 'everyAppend', number[]> = { os: [], everyAppend: [] };
  try {
    for (let round = 0; round < ctx.rounds; round++) {
      const order = round % 2 === 0 ? (['os', 'everyAppend'] as const) : (['everyAppend', 'os'] as const);
      const got: Partial<Record<'os' | 'everyAppend', number>> = {};
      for (const policy of order) {
        const dataDir = mkdtempSync(join(ctx.scratch, 'klog-flush-'));
        const klog = await startKlog(ctx, dataDir, policy === 'os' ? [] : ['--flush', 'every-append']);
        try {
          await createTopic(ctx, klog.address, 'flush', 1);
          const { ms } = await run('kcat', produceArgs(klog.address, 'flush', 0, file));
          got[policy] = runOf(ms, messages * 1024).mbPerSec;
          rates[policy].push(got[policy]!);
        } finally {
          await klog.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
      ratios.push(got.everyAppend! / got.os!);
    }
  } finally {
    rmSync(file, { force: true });
  }
  return {
    messages,
    messageBytes: 1024,
    osMbPerSec: median(rates.os),
    everyAppendMbPerSec: median(rates.everyAppend),
    ratio: median(ratios),
  };
}
