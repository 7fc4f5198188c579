import { Bench } from 'tinybench';

/**
 * Side-by-side measurement with tinybench. Absolute times on a shared machine move
 * from second to second, so two tasks are only ever compared within one round of
 * one process: each round runs both tasks back to back (the order swapped every
 * round, so neither always runs on a warmer or quieter machine), takes the ratio of
 * their means, and the figure reported is the median ratio over the rounds.
 */

/** A task: one call does `ops` operations (a batch encoded, a batch appended, a segment scanned). */
export interface TaskSpec {
  readonly name: string;
  readonly ops: number;
  readonly fn: () => unknown;
  /** Async tasks are awaited inside the timed window; declared, so tinybench makes no exploratory call. */
  readonly async: boolean;
  /** Run outside the timed window before / after each call (e.g. a fresh file per call). */
  readonly beforeEach?: () => void;
  readonly afterEach?: () => void;
}

/** Per-operation latency statistics, pooled over every round's samples. */
export interface Measurement {
  readonly name: string;
  /** Milliseconds per operation. */
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  /** Timed calls, over all rounds. */
  readonly samples: number;
  readonly opsPerSample: number;
}

export interface PairMeasurement {
  readonly subject: Measurement;
  readonly baseline: Measurement;
  /** baseline mean / subject mean, one per round. */
  readonly roundRatios: readonly number[];
  /** Median of `roundRatios`: how many times faster the subject is (below 1: slower). */
  readonly ratio: number;
}

export interface RoundOptions {
  readonly rounds: number;
  /** Time budget per task per round, ms. */
  readonly timeMs: number;
  readonly warmupMs: number;
  /** Minimum timed calls per task per round. */
  readonly minSamples: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function summarize(spec: TaskSpec, samples: number[]): Measurement {
  const perOp = samples.map((s) => s / spec.ops).sort((a, b) => a - b);
  const mean = perOp.reduce((a, b) => a + b, 0) / perOp.length;
  return {
    name: spec.name,
    mean,
    p50: quantile(perOp, 0.5),
    p99: quantile(perOp, 0.99),
    samples: perOp.length,
    opsPerSample: spec.ops,
  };
}

async function runRound(specs: readonly TaskSpec[], options: RoundOptions): Promise<number[][]> {
  const bench = new Bench({
    time: options.timeMs,
    iterations: options.minSamples,
    warmupTime: options.warmupMs,
    warmupIterations: Math.max(2, Math.min(16, options.minSamples)),
    retainSamples: true,
    throws: true,
  });
  for (const spec of specs) {
    bench.add(spec.name, spec.fn as () => void, {
      async: spec.async,
      ...(spec.beforeEach ? { beforeEach: spec.beforeEach } : {}),
      ...(spec.afterEach ? { afterEach: spec.afterEach } : {}),
    });
  }
  await bench.run();
  return specs.map((spec) => {
    const task = bench.getTask(spec.name);
    const result = task?.result;
    if (result === undefined || !('latency' in result) || result.latency.samples === undefined) {
      throw new Error(`benchmark task "${spec.name}" produced no samples`);
    }
    return [...result.latency.samples];
  });
}

/** Measure `subject` against `baseline` over `options.rounds` rounds, alternating which runs first. */
export async function measurePair(
  subject: TaskSpec,
  baseline: TaskSpec,
  options: RoundOptions,
): Promise<PairMeasurement> {
  const subjectSamples: number[] = [];
  const baselineSamples: number[] = [];
  const roundRatios: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const subjectFirst = round % 2 === 0;
    const order = subjectFirst ? [subject, baseline] : [baseline, subject];
    const [first, second] = await runRound(order, options);
    const s = subjectFirst ? first! : second!;
    const b = subjectFirst ? second! : first!;
    subjectSamples.push(...s);
    baselineSamples.push(...b);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    roundRatios.push(mean(b) / baseline.ops / (mean(s) / subject.ops));
  }
  return {
    subject: summarize(subject, subjectSamples),
    baseline: summarize(baseline, baselineSamples),
    roundRatios,
    ratio: median(roundRatios),
  };
}
