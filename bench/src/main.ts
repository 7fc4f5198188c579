import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runAppendBench } from './append-bench.js';
import { parseBenchArgs, runBenchMain, UsageError } from './args.js';
import { readBrokerResults } from './broker/results.js';
import { runCodecBench } from './codec-bench.js';
import type { BenchContext } from './context.js';
import type { RoundOptions } from './harness.js';
import { machineInfo } from './machine.js';
import { runMemoryBench } from './memory-bench.js';
import { renderPerformancePage } from './page.js';
import { BENCH_DIR, BROKER_RESULTS_PATH, PAGE_PATH, RESULTS_PATH } from './paths.js';
import { runRebuildBench } from './rebuild-bench.js';
import { ratioTable, rebuildTable, targetTable } from './report.js';
import type { BenchResults, Comparison, MemoryResult } from './results.js';
import { evaluateTargets } from './targets.js';

const GROUPS = ['codec', 'append', 'rebuild', 'memory'] as const;
type Group = (typeof GROUPS)[number];

const USAGE = `usage: pnpm bench [--quick] [--only ${GROUPS.join(',')}] [--write | --no-write]

  Measures klog against KafkaJS and raw fs writes, side by side in one process, and
  prints the ratios. A full run writes bench/results.json and docs/performance.mdx.

  --quick     a short run (smaller segments, fewer rounds); writes nothing unless --write
  --only G    run only these groups (comma-separated); never writes
  --write     write results.json and the page even after --quick
  --no-write  write nothing`;

interface Args {
  readonly quick: boolean;
  readonly groups: readonly Group[];
  readonly write: boolean;
}

function parse(argv: string[]): Args {
  const values = parseBenchArgs(argv, USAGE, {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    write: { type: 'boolean' },
    'no-write': { type: 'boolean' },
  });
  let groups: Group[] = [...GROUPS];
  if (values.only !== undefined) {
    const asked = values.only.split(',').map((g) => g.trim());
    const unknown = asked.filter((g) => !(GROUPS as readonly string[]).includes(g));
    if (unknown.length > 0 || asked.length === 0) {
      throw new UsageError(`--only ${values.only}: expected some of ${GROUPS.join(', ')}`);
    }
    groups = GROUPS.filter((g) => asked.includes(g));
  }
  if (values.write && values['no-write'])
    throw new UsageError('--write and --no-write contradict each other');
  if (values.write && values.only !== undefined) {
    throw new UsageError('--write needs every group: results.json is only written from a whole run');
  }
  const quick = values.quick ?? false;
  const write = values.write ?? (!values['no-write'] && !quick && values.only === undefined);
  return { quick, groups, write };
}

function roundOptions(quick: boolean): RoundOptions {
  return quick
    ? { rounds: 2, timeMs: 60, warmupMs: 30, minSamples: 5 }
    : { rounds: 4, timeMs: 250, warmupMs: 100, minSamples: 10 };
}

function versionOf(name: string): string {
  const pkg = JSON.parse(readFileSync(join(BENCH_DIR, 'package.json'), 'utf8')) as {
    dependencies: { [key: string]: string };
  };
  return pkg.dependencies[name] ?? 'unknown';
}

async function run(args: Args): Promise<void> {
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), 'klog-bench-'));
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  const onSignal = () => {
    cleanup();
    process.stderr.write('\nklog bench: interrupted; temporary files removed\n');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const ctx: BenchContext = {
    quick: args.quick,
    rounds: roundOptions(args.quick),
    scratch,
    progress: (line) => process.stderr.write(`${line}\n`),
  };
  const machine = machineInfo();
  ctx.progress(
    `klog bench (${args.quick ? 'quick' : 'full, a few minutes'}): ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
  );
  ctx.progress(
    `  ${ctx.rounds.rounds} rounds per comparison, ${ctx.rounds.timeMs} ms per task per round; ratios are medians over rounds`,
  );
  const comparisons: Comparison[] = [];
  let memory: MemoryResult | undefined;
  try {
    for (const [i, group] of args.groups.entries()) {
      ctx.progress(`[${i + 1}/${args.groups.length}] ${group}`);
      if (group === 'codec') comparisons.push(...(await runCodecBench(ctx)));
      if (group === 'append') comparisons.push(...(await runAppendBench(ctx)));
      if (group === 'rebuild') comparisons.push(...(await runRebuildBench(ctx)));
      if (group === 'memory') memory = runMemoryBench(ctx);
    }
  } finally {
    cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const results = {
    schema: 1,
    date: new Date().toISOString(),
    quick: args.quick,
    durationSeconds: Math.round((performance.now() - started) / 1000),
    machine,
    tools: { tinybench: versionOf('tinybench'), kafkajs: versionOf('kafkajs') },
    method: {
      rounds: ctx.rounds.rounds,
      timeMsPerTaskPerRound: ctx.rounds.timeMs,
      warmupMs: ctx.rounds.warmupMs,
    },
    targets: evaluateTargets(comparisons),
    comparisons,
    memory,
  };
  const out = process.stdout;
  out.write(`\n${ratioTable(results as BenchResults)}\n`);
  if (comparisons.some((c) => c.group === 'rebuild')) {
    out.write(`\nrebuild against full decode, per second\n${rebuildTable(results as BenchResults)}\n`);
  }
  if (results.targets.length > 0) out.write(`\n${targetTable(results as BenchResults)}\n`);
  out.write(`\nabsolute times vary from machine to machine and run to run; read the ratios\n`);
  if (args.write) {
    if (memory === undefined) throw new Error('no memory figure to write');
    const complete: BenchResults = { ...results, schema: 1, memory };
    writeFileSync(RESULTS_PATH, `${JSON.stringify(complete, null, 2)}\n`);
    mkdirSync(dirname(PAGE_PATH), { recursive: true });
    writeFileSync(PAGE_PATH, renderPerformancePage(complete, readBrokerResults(BROKER_RESULTS_PATH)));
    ctx.progress(`wrote ${RESULTS_PATH} and ${PAGE_PATH}`);
  } else {
    ctx.progress('wrote nothing (a full run without --no-write writes results.json and the page)');
  }
}

await runBenchMain('klog bench', USAGE, () => run(parse(process.argv.slice(2))));
