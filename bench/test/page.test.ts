import { readFileSync } from 'node:fs';
import { compile } from '@mdx-js/mdx';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { readBrokerResults } from '../src/broker/results.js';
import { PUBLISHED_FOOTPRINTS } from '../src/broker/startup-bench.js';
import { median } from '../src/harness.js';
import { renderPerformancePage } from '../src/page.js';
import { BROKER_RESULTS_PATH, PAGE_PATH, RESULTS_PATH } from '../src/paths.js';
import type { BenchResults } from '../src/results.js';
import { baselineWords, rowLabel, unitWords } from '../src/words.js';

const committedJson = readFileSync(RESULTS_PATH, 'utf8');
const results = JSON.parse(committedJson) as BenchResults;
const committedPage = readFileSync(PAGE_PATH, 'utf8');

describe('docs/performance.mdx is bench/results.json rendered', () => {
  it('regenerating the page from the committed JSON gives the committed bytes', () => {
    // If this fails: run `pnpm bench:page` (or a full `pnpm bench`) and commit both files.
    expect(renderPerformancePage(results, readBrokerResults(BROKER_RESULTS_PATH))).toBe(committedPage);
  });

  it('compiles as MDX with GFM tables, as the site renders it', async () => {
    const compiled = String(await compile(committedPage, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
    expect(compiled).toContain('"svg"');
    expect(compiled).toContain('"rect"');
  });

  it('has Starlight frontmatter, the machine, the date and the note on ratios', () => {
    expect(committedPage.startsWith('---\ntitle: ผลวัดประสิทธิภาพ (Performance)\n')).toBe(true);
    expect(committedPage).toMatch(/\nsidebar:\n {2}order: \d+\n---\n/);
    expect(committedPage).toContain(results.machine.cpu);
    expect(committedPage).toContain(results.machine.node);
    expect(committedPage).toContain(results.date.slice(0, 10));
    expect(committedPage).toContain('อ่าน ratio ไม่ใช่เวลา');
    expect(committedPage).not.toMatch(/<script/);
    // No URL but the SVG namespace and the sources of other brokers' published figures (issue 44), as links.
    const sources = new Set(PUBLISHED_FOOTPRINTS.map((p) => p.source.url));
    for (const [url] of committedPage.matchAll(/https?:\/\/[^\s)"]+/g)) {
      if (url !== 'http://www.w3.org/2000/svg') expect(sources).toContain(url);
    }
  });

  it("shows every measured row (in the page's words)", () => {
    for (const c of results.comparisons) expect(committedPage).toContain(rowLabel(c.label));
  });

  it('says every row, baseline and unit in Thai: no English phrase of the JSON is left on the page', () => {
    for (const c of results.comparisons) {
      for (const [name, said] of [
        [c.label, rowLabel(c.label)],
        [c.baseline.name, baselineWords(c.baseline.name)],
        [c.ratioUnit, unitWords(c.ratioUnit)],
      ]) {
        // Names that are code (raw writeSync, LogSegment.batches) may stay; phrases may not.
        if (/\b(per|of|than|both|every|vs|the|its|no|reads|update|computed)\b/.test(name!)) {
          expect(said, name).not.toBe(name);
          expect(committedPage, name).not.toContain(name);
        }
      }
    }
  });

  it('draws one chart per target and per profiled broker workload, each narrow enough that a phone shows its text at 14 px or more', () => {
    const charts = [...committedPage.matchAll(/<svg [^>]*viewBox="0 0 (\d+) \d+"[^>]*font-size="(\d+)"/g)];
    const profiled = readBrokerResults(BROKER_RESULTS_PATH)?.workloads.filter((w) => w.profile !== undefined);
    expect(charts).toHaveLength(results.targets.length + (profiled?.length ?? 0));
    // A phone's content column is about 358 px at 390: the text is drawn at font × 358 / width.
    for (const [, width, font] of charts)
      expect((Number(font) * 358) / Number(width)).toBeGreaterThanOrEqual(14);
  });
});

describe('bench/results.json holds what the page claims', () => {
  it('records the machine and a full run', () => {
    expect(results.schema).toBe(1);
    expect(results.quick).toBe(false);
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.memoryBytes).toBeGreaterThan(0);
    expect(results.machine.node).toMatch(/^v\d+\./);
    expect(Number.isNaN(Date.parse(results.date))).toBe(false);
  });

  it('every row has samples on both sides and its ratio is the median of its rounds', () => {
    expect(results.comparisons.length).toBeGreaterThan(0);
    for (const c of results.comparisons) {
      for (const s of [c.subject, c.baseline]) {
        expect(s.samples).toBeGreaterThanOrEqual(results.method.rounds);
        expect(s.meanMs).toBeGreaterThan(0);
        expect(s.p99Ms).toBeGreaterThanOrEqual(s.p50Ms);
      }
      expect(c.roundRatios).toHaveLength(results.method.rounds);
      expect(c.ratio).toBeCloseTo(median(c.roundRatios), 12);
    }
  });

  it('a target is met exactly when its worst row reaches it', () => {
    expect(results.targets.map((t) => t.id).sort()).toEqual(['append', 'codec', 'rebuild']);
    for (const t of results.targets) {
      const rows = results.comparisons.filter((c) => c.targetId === t.id);
      expect(rows.map((r) => r.id)).toEqual(t.rows);
      expect(t.worst).toBe(Math.min(...rows.map((r) => r.ratio)));
      expect(t.met).toBe(t.worst >= t.min);
      for (const r of rows) expect(r.met).toBe(r.ratio >= t.min);
    }
  });
});

describe('the page follows the data', () => {
  it('a missed target is shown as missed, with a red bar and a reason', () => {
    const codecRow = results.comparisons.find((c) => c.targetId === 'codec')!;
    const missed: BenchResults = {
      ...results,
      comparisons: results.comparisons.map((c) =>
        c.id === codecRow.id ? { ...c, ratio: 1.5, met: false } : c,
      ),
      targets: results.targets.map((t) => (t.id === 'codec' ? { ...t, worst: 1.5, met: false } : t)),
    };
    const page = renderPerformancePage(missed);
    expect(page).toContain('ทำไมบางเป้าไม่ถึง');
    expect(page).toContain(`**codec** ไม่ถึง 3× ในแถว: ${rowLabel(codecRow.label)}`);
    expect(page).toMatch(/\| encode และ decode เร็วกว่า KafkaJS อย่างน้อย 3× \| 1\.50× \| ไม่ถึงเป้า \|/);
    expect(page).toContain('fill="#e03131"');
  });

  it('the date and machine come from the JSON', () => {
    const other: BenchResults = {
      ...results,
      date: '2031-02-03T04:05:06.789Z',
      machine: { ...results.machine, cpu: 'Test CPU 9000' },
    };
    const page = renderPerformancePage(other);
    expect(page).toContain('2031-02-03 04:05:06Z');
    expect(page).toContain('| CPU | Test CPU 9000 |');
  });
});
