import type { BenchResults, Comparison, Target } from './results.js';
import { formatRatio } from './stats.js';

/**
 * An inline SVG bar chart of every row that counts towards a target: its ratio as
 * a bar on a log scale, its target as a tick. Plain SVG written as MDX/JSX (no
 * client script, nothing fetched); text uses `currentColor` so it follows the
 * site's light or dark theme.
 *
 * Narrow on purpose: each row's label sits on its own line above its bar, so the
 * chart is 440 units wide and a phone (about 350 px of column) draws its 14-unit
 * text at 11 px or more; on a wide screen the site caps it at 36rem (klog.css,
 * `.klog-chart`) so the text does not grow past the page's own.
 */

const WIDTH = 440;
const LEFT = 4;
const VALUE_WIDTH = 56;
const ROW = 40;
const TOP = 30;
const BOTTOM = 26;
const FONT = 14;
const MIN_RATIO = 0.1;
const TICKS = [0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000];
const MET = '#2f9e44';
const MISSED = '#e03131';

function x(ratio: number, maxRatio: number): number {
  const clamped = Math.min(maxRatio, Math.max(MIN_RATIO, ratio));
  const span = Math.log10(maxRatio) - Math.log10(MIN_RATIO);
  const plot = WIDTH - LEFT - VALUE_WIDTH;
  return LEFT + ((Math.log10(clamped) - Math.log10(MIN_RATIO)) / span) * plot;
}

const px = (n: number) => n.toFixed(1);

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[{}]/g, '');
}

function tickLabel(t: number): string {
  return `${t}×`;
}

export function renderChart(results: BenchResults): string {
  const targets = new Map<string, Target>(results.targets.map((t) => [t.id, t]));
  const rows = results.comparisons.filter(
    (c): c is Comparison & { targetId: string } => c.targetId !== undefined && targets.has(c.targetId),
  );
  // The axis ends at the first tick past every ratio and target, so bars use the width.
  const highest = Math.max(...rows.map((c) => Math.max(c.ratio, targets.get(c.targetId)!.min)));
  const maxRatio = TICKS.find((t) => t >= highest * 1.1) ?? TICKS.at(-1)!;
  const ticks = TICKS.filter((t) => t <= maxRatio);
  const at = (ratio: number) => x(ratio, maxRatio);
  const height = TOP + rows.length * ROW + BOTTOM;
  const plotBottom = TOP + rows.length * ROW;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" class="klog-chart" role="img" aria-labelledby="perf-chart-title" font-family="sans-serif" font-size="${FONT}">`,
  );
  out.push(`  <title id="perf-chart-title">ratio ของแต่ละแถวเทียบกับเป้า (แกน log): เขียวถึงเป้า แดงไม่ถึง</title>`);
  out.push(`  <text x="${LEFT}" y="16" fill="currentColor">ratio (แกน log) · ขีดตั้ง = เป้าของแถวนั้น</text>`);
  for (const t of ticks) {
    const tx = px(at(t));
    out.push(
      `  <line x1="${tx}" y1="${TOP - 4}" x2="${tx}" y2="${plotBottom}" stroke="currentColor" stroke-opacity="${t === 1 ? 0.5 : 0.15}" />`,
    );
    out.push(
      `  <text x="${tx}" y="${plotBottom + 18}" text-anchor="middle" fill="currentColor">${tickLabel(t)}</text>`,
    );
  }
  rows.forEach((c, i) => {
    const target = targets.get(c.targetId)!;
    const y = TOP + i * ROW;
    const barY = px(y + 20);
    const color = c.met ? MET : MISSED;
    const x0 = at(MIN_RATIO);
    const x1 = at(c.ratio);
    const xt = at(target.min);
    out.push(`  <text x="${LEFT}" y="${px(y + 14)}" fill="currentColor">${escapeText(c.label)}</text>`);
    out.push(
      `  <rect x="${px(x0)}" y="${barY}" width="${px(Math.max(1, x1 - x0))}" height="14" fill="${color}" />`,
    );
    const tx = px(xt);
    out.push(
      `  <line x1="${tx}" y1="${px(y + 17)}" x2="${tx}" y2="${px(y + 37)}" stroke="currentColor" stroke-width="2" />`,
    );
    out.push(
      `  <text x="${px(Math.max(x1, xt) + 5)}" y="${px(y + 32)}" fill="currentColor">${escapeText(formatRatio(c.ratio, c.ratioFormat))}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}
