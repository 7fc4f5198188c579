import type { WorkloadResult } from './results.js';

/**
 * Where a megabyte's produce CPU goes, as an inline SVG bar chart per workload (the same plain SVG as the
 * page's other charts, chart.ts: no script, `currentColor` text, phone-sized): one bar per part of klog's
 * produce path in ms of CPU per MB, on a linear scale, with a line at the mock's whole CPU per MB and one
 * at the goal (3× the mock's).
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
export function renderCpuChart(w: WorkloadResult, mockMsPerMb: number, bound: number): string | undefined {
  const p = w.profile;
  if (p === undefined) return undefined;
  const rows = p.parts.filter((r) => r.msPerMb >= 0.005);
  const goal = mockMsPerMb * bound;
  const highest = Math.max(goal, ...rows.map((r) => r.msPerMb)) * 1.05;
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
    `  <title id="${id}">${escapeText(title)}: ms ต่อ MB แต่ละส่วน เส้นบางคือ mock ทั้ง process เส้นหนาคือเป้า ${bound}× ของ mock</title>`,
  );
  out.push(`  <text x="${LEFT}" y="16" fill="currentColor" font-weight="700">${escapeText(title)}</text>`);
  const mockX = px(at(mockMsPerMb));
  const goalX = px(at(goal));
  out.push(
    `  <line x1="${mockX}" y1="${TOP - 4}" x2="${mockX}" y2="${plotBottom}" stroke="currentColor" stroke-dasharray="3 3" />`,
  );
  out.push(
    `  <line x1="${goalX}" y1="${TOP - 4}" x2="${goalX}" y2="${plotBottom}" stroke="currentColor" stroke-width="2" />`,
  );
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
    `  <text x="${LEFT}" y="${plotBottom + 18}" fill="currentColor">- - mock ทั้ง process ${mockMsPerMb.toFixed(2)} ms/MB</text>`,
  );
  out.push(
    `  <text x="${LEFT}" y="${plotBottom + 36}" fill="currentColor">── เป้า ${bound}× ของ mock ${goal.toFixed(2)} ms/MB</text>`,
  );
  out.push('</svg>');
  return out.join('\n');
}
