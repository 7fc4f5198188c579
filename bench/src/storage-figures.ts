import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildPlainBatch, Partition, segmentFileName } from '@klog/storage';
import { BENCH_NOW_MS, recordInputs } from './data.js';
import { machineInfo } from './machine.js';

/**
 * Storage figures that are whole operations on large files (opening a log,
 * recovering a segment), each printed as a time and as a ratio to a baseline
 * measured in the same run on the same files: the ratio is the figure to read.
 * Each case runs `rounds` times, subject and baseline alternating which goes first;
 * the median of the per-round ratios is printed. No assertion: a script with figures.
 *
 *   pnpm bench:storage [--quick] [--only recovery]
 */

export interface Figure {
  readonly label: string;
  readonly subjectMs: number;
  readonly baselineMs: number;
  /** subject time / baseline time, median over rounds. */
  readonly ratio: number;
  readonly note: string;
}

const time = (fn: () => void): number => {
  const started = performance.now();
  fn();
  return performance.now() - started;
};

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Run `subject` and `baseline` `rounds` times, alternating; medians of the times and of the per-round ratios. */
export function compare(
  rounds: number,
  subject: () => void,
  baseline: () => void,
): Pick<Figure, 'subjectMs' | 'baselineMs' | 'ratio'> {
  const s: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let ts: number;
    let tb: number;
    if (round % 2 === 0) {
      ts = time(subject);
      tb = time(baseline);
    } else {
      tb = time(baseline);
      ts = time(subject);
    }
    s.push(ts);
    b.push(tb);
    ratios.push(ts / tb);
  }
  return { subjectMs: median(s), baselineMs: median(b), ratio: median(ratios) };
}

/** Read a whole file in 1 MiB reads: the least any open that looks at every byte can cost. */
export function readWhole(path: string): void {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(1024 * 1024);
  try {
    let pos = 0;
    for (let n = readSync(fd, buf, 0, buf.length, pos); n > 0; n = readSync(fd, buf, 0, buf.length, pos)) {
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A crafted active segment: a header every 64 bytes that decodes and claims a batch
 * reaching far into the file, with a wrong CRC. Before the linear search, recovery
 * checksummed each claimed batch: 34 s to open 3 MiB. Then one real batch at the end.
 */
function craftedSegment(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let p = 0; p + 61 <= size; p += 64) {
    bytes.writeInt32BE(Math.min(1024 * 1024, size - p) - 12, p + 8);
    bytes[p + 16] = 2;
    bytes.writeUInt32BE(p, p + 17);
    bytes.writeBigInt64BE(-1n, p + 43);
  }
  const real = buildPlainBatch(recordInputs(1, 100), 0, BENCH_NOW_MS);
  real.copy(bytes, size - real.length);
  return bytes;
}

function recoveryFigures(scratch: string, quick: boolean): Figure[] {
  const size = quick ? 16 * 1024 * 1024 : 64 * 1024 * 1024;
  const rounds = quick ? 3 : 5;
  const bytes = craftedSegment(size);
  const dataDir = join(scratch, 'crafted');
  const dir = join(dataDir, 'crafted-0');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, segmentFileName(0));
  let report = '';
  const fig = compare(
    rounds,
    () => {
      // Outside nothing: recovery cuts the file, so each round starts from the crafted bytes again.
      writeFileSync(path, bytes);
      const p = Partition.open(dataDir, 'crafted', 0);
      report = `${p.recovery?.kind}, ${p.recovery?.batchesAfter} whole batch found in the cut bytes`;
      p.close();
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    },
    () => {
      writeFileSync(path, bytes);
      readWhole(path);
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    },
  );
  return [
    {
      label: `open a partition whose ${size / 1024 / 1024} MiB active segment is crafted (a plausible header every 64 bytes)`,
      ...fig,
      note: `both sides write the file first; recovery: ${report}; baseline: write + one read of the file`,
    },
  ];
}

const GROUPS = ['recovery'] as const;

function main(): void {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, only: { type: 'string' } },
    strict: true,
  });
  const quick = values.quick ?? false;
  const only = values.only?.split(',') ?? [...GROUPS];
  const unknown = only.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) {
    process.stderr.write(
      `klog bench:storage: unknown group ${unknown.join(', ')}; groups: ${GROUPS.join(', ')}\n`,
    );
    process.exit(2);
  }
  const machine = machineInfo();
  process.stderr.write(
    `klog storage figures: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}\n`,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'klog-storage-bench-'));
  const figures: Figure[] = [];
  try {
    if (only.includes('recovery')) figures.push(...recoveryFigures(scratch, quick));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  for (const f of figures) {
    process.stdout.write(
      `${f.label}\n  ${f.subjectMs.toFixed(0)} ms against ${f.baselineMs.toFixed(0)} ms: ${f.ratio.toFixed(2)}× the baseline\n  (${f.note})\n`,
    );
  }
}

main();
