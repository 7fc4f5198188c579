import type { Comparison, RatioFormat, Target } from './results.js';

/** A threshold as a reader writes it: `3×`, `80 %` (formatRatio is for measured ratios: `3.20×`). */
function threshold(min: number, format: RatioFormat): string {
  return format === 'percent' ? `${min * 100} %` : `${min}×`;
}

/**
 * The targets, as ratios measured in the same run: each threshold is written once, as `min`,
 * and its label is made from it, so the two cannot disagree.
 */
function target<const Id extends string>(
  id: Id,
  min: number,
  format: RatioFormat,
  what: string,
  against: string,
) {
  return { id, min, format, label: `${what} ≥ ${threshold(min, format)} ${against}` } as const;
}

export const CODEC_TARGET = target('codec', 3, 'times', 'encode and decode', 'KafkaJS');
export const APPEND_TARGET = target('append', 0.8, 'percent', 'append', 'of raw write throughput, no flush');
export const REBUILD_TARGET = target(
  'rebuild',
  10,
  'times',
  'rebuild',
  'faster than a full decode, 1 KiB records',
);
const TARGETS = [CODEC_TARGET, APPEND_TARGET, REBUILD_TARGET];

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
