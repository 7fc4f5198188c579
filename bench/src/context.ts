import type { RoundOptions } from './harness.js';
import type { Comparison } from './results.js';
import { formatMs, formatRatio } from './stats.js';

/** What every benchmark group gets: the round settings, a scratch directory, and a progress line. */
export interface BenchContext {
  readonly quick: boolean;
  readonly rounds: RoundOptions;
  /** A temporary directory of this run, removed at the end. */
  readonly scratch: string;
  progress(line: string): void;
}

/** Print one finished comparison as a progress line. */
export function reportComparison(ctx: BenchContext, c: Comparison): void {
  const target = c.met === undefined ? '' : c.met ? '  (target met)' : '  (TARGET MISSED)';
  ctx.progress(
    `    ${c.label}: ${c.subject.name} ${formatMs(c.subject.meanMs)}, ${c.baseline.name} ${formatMs(
      c.baseline.meanMs,
    )} → ${formatRatio(c.ratio, c.ratioFormat)} ${c.ratioUnit}${target}`,
  );
}
