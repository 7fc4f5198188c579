import type { BenchResults, Comparison } from './results.js';
import { formatCount, formatMs, formatRate, formatRatio } from './stats.js';

/** Plain-text tables for the terminal: the ratios, then the rebuild's throughput. */

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const GROUP_TITLES: { [K in Comparison['group']]: string } = {
  codec: 'codec vs KafkaJS',
  append: 'append vs raw fs',
  rebuild: 'rebuild vs full decode',
  judge: 'judge vs append',
};

export function ratioTable(results: BenchResults): string {
  const rows = results.comparisons.map((c) => [
    GROUP_TITLES[c.group],
    c.label,
    `${c.subject.name} ${formatMs(c.subject.meanMs)}`,
    `${c.baseline.name} ${formatMs(c.baseline.meanMs)}`,
    `${formatRatio(c.ratio, c.ratioFormat)} ${c.ratioUnit}`,
    c.met === undefined ? '' : c.met ? 'met' : 'MISSED',
  ]);
  return table(['group', 'comparison', 'klog (mean)', 'baseline (mean)', 'ratio', 'target'], rows);
}

export function rebuildTable(results: BenchResults): string {
  const rows = results.comparisons
    .filter((c) => c.group === 'rebuild')
    .map((c) => [
      c.label.replace(/^rebuild /, ''),
      '',
      formatMs(c.subject.meanMs),
      formatCount(c.subject.batchesPerSec ?? Number.NaN),
      formatRate(c.subject.bytesPerSec ?? Number.NaN),
      formatMs(c.baseline.meanMs),
      formatCount(c.baseline.batchesPerSec ?? Number.NaN),
      formatRate(c.baseline.bytesPerSec ?? Number.NaN),
    ]);
  return table(['segment', '', 'rebuild', 'batches', 'bytes', 'full decode', 'batches', 'bytes'], rows);
}

export function targetTable(results: BenchResults): string {
  const rows = results.targets.map((t) => [
    t.label,
    '',
    `worst ${formatRatio(t.worst, t.ratioFormat)}`,
    t.met ? 'met' : 'MISSED',
  ]);
  return table(['target', '', 'measured', ''], rows);
}
