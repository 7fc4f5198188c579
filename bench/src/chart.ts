import type { BenchResults, Comparison, Target } from './results.js';
import { formatRatio } from './stats.js';
import { rowLabel } from './words.js';

/**
 * One small inline SVG bar chart per target: each row that counts towards it is a bar on a log
 * scale, the target a vertical line, green when met and red when not. Plain SVG written as
 * MDX/JSX (no client script, nothing fetched); text uses `currentColor` so it follows the site's
 * light or dark theme.
 *
 * Sized for a phone first: 340 units wide with 14-unit text, so a phone's column (about 358 px at
 * 390) draws the text at 14 px or more; on a wide screen the site caps each chart at 26rem
 * (klog.css, `.klog-chart`) so the text stays near the page's own. Rows are labelled in the page's
 * words, short, on their own line above the bar.
 */

const WIDTH = 340;
const LEFT = 4;
/** Where the axis starts: far enough in that the first tick's label is not cut at the edge. */
const PLOT_LEFT = 18;
const VALUE_WIDTH = 52;
const ROW = 40;
const TOP = 30;
const BOTTOM = 26;
const FONT = 14;
const MIN_RATIO = 0.1;
const TICKS = [0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000];
const MET = '#2f9e44';
const MISSED = '#e03131';

/** What each target's chart says on top (the targets' ids are the JSON's). */
const TITLES: { readonly [id: string]: string } = {
  codec: 'encode/decode เร็วกว่า KafkaJS กี่เท่า',
  append: 'append ได้กี่ % ของ raw write',
  rebuild: 'rebuild เร็วกว่า full decode กี่เท่า',
};

const px = (n: number) => n.toFixed(1);

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[{}]/g, '');
}

function tickLabel(t: number, format: Target['ratioFormat']): string {
  return format === 'percent' ? `${Math.round(t * 100)}%` : `${t}×`;
}

/** A row's label in its target's chart: the part that tells it from the others there. */
function shortLabel(c: Comparison): string {
  return rowLabel(c.label)
    .replace(/^append /, '')
    .replace(/^rebuild /, '')
    .replace(/ ไม่ flush$/, '');
}

function renderChart(target: Target, rows: readonly Comparison[]): string {
  const highest = Math.max(...rows.map((c) => Math.max(c.ratio, target.min)));
  const maxRatio = TICKS.find((t) => t >= highest * 1.1) ?? TICKS.at(-1)!;
  const lowest = Math.min(...rows.map((c) => Math.min(c.ratio, target.min)));
  // Three or four ticks at most: the axis starts at the tick below the lowest value.
  const floor = [...TICKS].reverse().find((t) => t <= lowest / 1.1) ?? MIN_RATIO;
  const ticks = TICKS.filter((t) => t >= floor && t <= maxRatio);
  const at = (ratio: number) => {
    const clamped = Math.min(maxRatio, Math.max(floor, ratio));
    const span = Math.log10(maxRatio) - Math.log10(floor);
    return PLOT_LEFT + ((Math.log10(clamped) - Math.log10(floor)) / span) * (WIDTH - PLOT_LEFT - VALUE_WIDTH);
  };
  const height = TOP + rows.length * ROW + BOTTOM;
  const plotBottom = TOP + rows.length * ROW;
  const id = `perf-chart-${target.id}`;
  const title = `${TITLES[target.id] ?? target.label} (เป้า ≥ ${tickLabel(target.min, target.ratioFormat)})`;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" class="klog-chart" role="img" aria-labelledby="${id}" font-family="sans-serif" font-size="${FONT}">`,
  );
  out.push(`  <title id="${id}">${escapeText(title)}: แกน log แท่งเขียวถึงเป้า แดงไม่ถึง</title>`);
  out.push(`  <text x="${LEFT}" y="16" fill="currentColor" font-weight="700">${escapeText(title)}</text>`);
  for (const t of ticks) {
    const tx = px(at(t));
    out.push(
      `  <line x1="${tx}" y1="${TOP - 4}" x2="${tx}" y2="${plotBottom}" stroke="currentColor" stroke-opacity="0.15" />`,
    );
    out.push(
      `  <text x="${tx}" y="${plotBottom + 18}" text-anchor="middle" fill="currentColor">${tickLabel(t, target.ratioFormat)}</text>`,
    );
  }
  const xt = px(at(target.min));
  out.push(
    `  <line x1="${xt}" y1="${TOP - 4}" x2="${xt}" y2="${plotBottom}" stroke="currentColor" stroke-width="2" />`,
  );
  rows.forEach((c, i) => {
    const y = TOP + i * ROW;
    const x0 = at(floor);
    const x1 = at(c.ratio);
    out.push(`  <text x="${LEFT}" y="${px(y + 14)}" fill="currentColor">${escapeText(shortLabel(c))}</text>`);
    out.push(
      `  <rect x="${px(x0)}" y="${px(y + 20)}" width="${px(Math.max(1, x1 - x0))}" height="14" fill="${c.met ? MET : MISSED}" />`,
    );
    out.push(
      `  <text x="${px(Math.max(x1, at(target.min)) + 5)}" y="${px(y + 32)}" fill="currentColor">${escapeText(formatRatio(c.ratio, c.ratioFormat))}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}

/** One chart per target, in the JSON's order of targets, each followed by a blank line. */
export function renderCharts(results: BenchResults): string[] {
  return results.targets.flatMap((t) => {
    const rows = results.comparisons.filter((c) => c.targetId === t.id);
    return rows.length === 0 ? [] : [renderChart(t, rows), ''];
  });
}
