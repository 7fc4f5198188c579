import type { Measurement, PairMeasurement } from './harness.js';
import type { Comparison, GroupId, RatioFormat, TaskStats } from './results.js';

/** What one operation of a task moves, to turn its latency into throughput. */
export interface PerOp {
  readonly batches?: number;
  readonly records?: number;
  readonly bytes?: number;
}

export function taskStats(m: Measurement, perOp: PerOp = {}): TaskStats {
  const opsPerSec = 1000 / m.mean;
  return {
    name: m.name,
    meanMs: m.mean,
    p50Ms: m.p50,
    p99Ms: m.p99,
    samples: m.samples,
    opsPerSample: m.opsPerSample,
    opsPerSec,
    ...(perOp.batches === undefined ? {} : { batchesPerSec: opsPerSec * perOp.batches }),
    ...(perOp.records === undefined ? {} : { recordsPerSec: opsPerSec * perOp.records }),
    ...(perOp.bytes === undefined ? {} : { bytesPerSec: opsPerSec * perOp.bytes }),
  };
}

export interface ComparisonSpec {
  readonly id: string;
  readonly group: GroupId;
  readonly label: string;
  readonly ratioUnit: string;
  readonly ratioFormat?: RatioFormat;
  readonly subjectPerOp?: PerOp;
  readonly baselinePerOp?: PerOp;
  readonly target?: { readonly id: string; readonly min: number };
  readonly note?: string;
}

export function comparison(spec: ComparisonSpec, pair: PairMeasurement): Comparison {
  return {
    id: spec.id,
    group: spec.group,
    label: spec.label,
    subject: taskStats(pair.subject, spec.subjectPerOp),
    baseline: taskStats(pair.baseline, spec.baselinePerOp),
    ratio: pair.ratio,
    roundRatios: pair.roundRatios,
    ratioUnit: spec.ratioUnit,
    ratioFormat: spec.ratioFormat ?? 'times',
    ...(spec.target ? { targetId: spec.target.id, met: pair.ratio >= spec.target.min } : {}),
    ...(spec.note ? { note: spec.note } : {}),
  };
}

/** `12.3 µs`, `4.56 ms`: a latency in milliseconds, for progress lines and tables. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0.001) return `${(ms * 1e6).toFixed(0)} ns`;
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

/** `1.23 GB/s`, `456 MB/s`. */
export function formatRate(bytesPerSec: number): string {
  if (bytesPerSec >= 1e9) return `${(bytesPerSec / 1e9).toPrecision(3)} GB/s`;
  if (bytesPerSec >= 1e6) return `${(bytesPerSec / 1e6).toPrecision(3)} MB/s`;
  return `${(bytesPerSec / 1e3).toPrecision(3)} kB/s`;
}

/** `123k/s`, `4.56M/s`: operations, batches or records per second. */
export function formatCount(perSec: number): string {
  if (perSec >= 1e6) return `${(perSec / 1e6).toPrecision(3)}M/s`;
  if (perSec >= 1e3) return `${(perSec / 1e3).toPrecision(3)}k/s`;
  return `${perSec.toPrecision(3)}/s`;
}

export function formatRatio(ratio: number, format: RatioFormat = 'times'): string {
  if (format === 'percent') return `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)} %`;
  if (ratio >= 100) return `${ratio.toFixed(0)}×`;
  if (ratio >= 10) return `${ratio.toFixed(1)}×`;
  return `${ratio.toFixed(2)}×`;
}
