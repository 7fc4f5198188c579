import { APPEND_TARGET } from './append-bench.js';
import { CODEC_TARGET } from './codec-bench.js';
import { REBUILD_TARGET } from './rebuild-bench.js';
import type { Comparison, Target } from './results.js';

/** The targets, as ratios measured in the same run. */
const TARGETS = [
  { id: CODEC_TARGET.id, label: 'encode and decode ≥ 3× KafkaJS', min: CODEC_TARGET.min },
  { id: APPEND_TARGET.id, label: 'append ≥ 80 % of raw write throughput, no flush', min: APPEND_TARGET.min },
  {
    id: REBUILD_TARGET.id,
    label: 'rebuild ≥ 10× faster than a full decode, 1 KiB records',
    min: REBUILD_TARGET.min,
  },
] as const;

/** Each target with its worst row: a target is met only when every row counting towards it is. */
export function evaluateTargets(comparisons: readonly Comparison[]): Target[] {
  return TARGETS.flatMap((t) => {
    const rows = comparisons.filter((c) => c.targetId === t.id);
    if (rows.length === 0) return [];
    const worst = Math.min(...rows.map((r) => r.ratio));
    return [
      {
        id: t.id,
        label: t.label,
        min: t.min,
        worst,
        met: worst >= t.min,
        ratioFormat: rows[0]!.ratioFormat,
        rows: rows.map((r) => r.id),
      },
    ];
  });
}
