import type { WorkloadResult } from './results.js';

/**
 * Where a megabyte's produce CPU goes, as an inline SVG bar chart per workload (the same plain SVG as the
 * page's other charts, chart.ts: no script, `currentColor` text, phone-sized): one bar per part of klog's
 * produce path in ms of CPU per MB, on a linear scale, with a line at the floor (kernel floor + CRC-32C)
 * and one at issue 44's goal (1.5× the floor). Results from before the CRC-32C was measured have no floor:
 * their chart has a line at the mock's whole CPU per MB and no goal (issue 25's 3× the mock's is retired).
 */

const WIDTH = 340;
const LEFT = 4;
const PLOT_LEFT = 4;
const VALUE_WIDTH = 70;
const ROW = 38;
const TOP = 30;
const BOTTOM = 44;
const FONT = 14;
const BAR = '#1971c2';

const px = (n: number) => n.toFixed(1);

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[{}]/g, '');
}

/** The chart of one workload's breakdown, or undefined when its results hold no profile. */
export function renderCpuChart(
  w: WorkloadResult,
  mockMsPerMb: number,
  floor: { readonly floorMsPerMb: number; readonly bound: number } | undefined,
): string | undefined {
  const p = w.profile;
  if (p === undefined) return undefined;
  const rows = p.parts.filter((r) => r.msPerMb >= 0.005);
  const reference =
    floor === undefined
      ? { ms: mockMsPerMb, words: 'mock ทั้ง process' }
      : { ms: floor.floorMsPerMb, words: 'floor (kernel + CRC-32C)' };
  const goal = floor === undefined ? undefined : floor.floorMsPerMb * floor.bound;
  const highest = Math.max(goal ?? reference.ms, reference.ms, ...rows.map((r) => r.msPerMb)) * 1.05;
  const at = (ms: number) =>
    PLOT_LEFT + (Math.min(ms, highest) / highest) * (WIDTH - PLOT_LEFT - VALUE_WIDTH);
  const plotBottom = TOP + rows.length * ROW;
  const height = plotBottom + BOTTOM;
  const id = `perf-cpu-${w.id}`;
  const title = `CPU ต่อ MB ของ klog ไปที่ไหน: ${w.label}`;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" class="klog-chart" role="img" aria-labelledby="${id}" font-family="sans-serif" font-size="${FONT}">`,
  );
  out.push(
    `  <title id="${id}">${escapeText(title)}: ms ต่อ MB แต่ละส่วน เส้นบางคือ ${escapeText(reference.words)}${floor === undefined ? '' : ` เส้นหนาคือเป้า ${floor.bound}× ของ floor`}</title>`,
  );
  out.push(`  <text x="${LEFT}" y="16" fill="currentColor" font-weight="700">${escapeText(title)}</text>`);
  const referenceX = px(at(reference.ms));
  out.push(
    `  <line x1="${referenceX}" y1="${TOP - 4}" x2="${referenceX}" y2="${plotBottom}" stroke="currentColor" stroke-dasharray="3 3" />`,
  );
  if (goal !== undefined) {
    const goalX = px(at(goal));
    out.push(
      `  <line x1="${goalX}" y1="${TOP - 4}" x2="${goalX}" y2="${plotBottom}" stroke="currentColor" stroke-width="2" />`,
    );
  }
  rows.forEach((r, i) => {
    const y = TOP + i * ROW;
    const x1 = at(r.msPerMb);
    out.push(`  <text x="${LEFT}" y="${px(y + 13)}" fill="currentColor">${escapeText(r.part)}</text>`);
    out.push(
      `  <rect x="${px(PLOT_LEFT)}" y="${px(y + 18)}" width="${px(Math.max(1, x1 - PLOT_LEFT))}" height="13" fill="${BAR}" />`,
    );
    out.push(
      `  <text x="${px(x1 + 5)}" y="${px(y + 30)}" fill="currentColor">${r.msPerMb.toFixed(2)} ms</text>`,
    );
  });
  out.push(
    `  <text x="${LEFT}" y="${plotBottom + 18}" fill="currentColor">- - ${escapeText(reference.words)} ${reference.ms.toFixed(2)} ms/MB</text>`,
  );
  if (floor !== undefined && goal !== undefined)
    out.push(
      `  <text x="${LEFT}" y="${plotBottom + 36}" fill="currentColor">── เป้า ${floor.bound}× ของ floor ${goal.toFixed(2)} ms/MB</text>`,
    );
  out.push('</svg>');
  return out.join('\n');
}
