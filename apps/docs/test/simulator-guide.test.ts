// The simulator's guided path, walked in Chromium exactly as the page words it, at 390×844 and
// 1280×800, light and dark, on both pages that carry it. At every step the test checks three
// things: the words on the page are the words it acts on (a reworded step fails here until the
// walk is reworded with it); what the step says "ควรเห็น" shows in the simulator; and that answer
// is the chapter's, read from the golden files the chapter prints (core's judge decides it in the
// page). Also: every row a step names is in sight (no hidden scroll box), the keyboard never
// drops to <body>, and progress survives a reload until "เริ่มใหม่". Screenshots go to
// artifacts/site/ named by page, viewport and theme.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { cutSection } from '../excerpts/source.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the guided path cannot run'); // throws when CI is set

const ARTIFACTS = join(realRoot, 'artifacts', 'site');
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;
const THEMES = ['light', 'dark'] as const;
const PAGES = ['/simulator/', '/07-idem/'] as const;

/** A section of a golden file the chapter prints, as bytes. */
const golden = (file: string, title: string) => cutSection(realRoot, file, title).text;
const IDEM = 'expected/07-idem.txt';

interface Sim {
  readonly page: Page;
  readonly sim: Locator;
}

const button = (sim: Locator, name: string) => sim.getByRole('button', { name, exact: true });
const lastEvent = async (sim: Locator) =>
  (await sim.locator('[data-sim-events] li').last().textContent()) ?? '';
const events = async (sim: Locator) => sim.locator('[data-sim-events] li').allTextContents();
const text = async (sim: Locator, selector: string) => (await sim.locator(selector).textContent()) ?? '';
const times = async (n: number, f: () => Promise<void>) => {
  for (let i = 0; i < n; i++) await f();
};

/**
 * A row of the sent list, seen as a reader sees it: scrolled to by the page (as a reader scrolls),
 * then wholly inside the list's box — a list that clips its rows in a scroll box fails here — and
 * inside the viewport.
 */
async function rowInSight({ sim }: Sim, range: string): Promise<Locator> {
  const row = sim.locator(`[data-sim-sent] li[data-sim-batch="${range}"]`);
  await expect(row.count()).resolves.toBe(1);
  await row.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const clipped = await row.evaluate((el) => {
    const list = el.closest('[data-sim-sent]')!;
    const r = el.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    return {
      inList: r.top >= l.top - 0.5 && r.bottom <= l.bottom + 0.5,
      hiddenInList: list.scrollHeight > list.clientHeight + 1,
      inViewport: r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth + 0.5,
    };
  });
  expect(clipped, `row ${range}`).toEqual({ inList: true, hiddenInList: false, inViewport: true });
  return row;
}

async function resend(s: Sim, range: string): Promise<void> {
  const row = await rowInSight(s, range);
  await row.getByRole('button', { name: `ส่ง ${range} ซ้ำ`, exact: true }).click();
}

/**
 * A refused batch that the log holds (written, its ack lost, then evicted) is labelled so, with the
 * offsets the log table beside it shows for that producer and range; its earlier answers stay in the row.
 */
async function refusedYetOnLog(s: Sim, range: string, history: RegExp): Promise<void> {
  const row = await rowInSight(s, range);
  const label = (await row.textContent()) ?? '';
  expect(label).toMatch(history);
  expect(label).not.toContain('ยังไม่ลง log');
  const said = /ถูกปฏิเสธ แต่อยู่บน log แล้วที่ offset (\d+\.\.\d+)/.exec(label)?.[1];
  const pid = (await text(s.sim, '[data-sim-window-pid]')).replace('pid ', '');
  const table = await s.sim
    .locator('[data-sim-log] tr')
    .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));
  // Columns: offsets, pid, seq, segment.
  const onLog = table.filter((cells) => cells[1] === pid && cells[2] === range).map((cells) => cells[0]);
  expect(onLog).toHaveLength(1);
  expect(said, `row ${range}: ${label}`).toBe(onLog[0]);
}

/** The guide exactly as the page words it, each with what the walk does and checks. */
const STEPS: { act: string; see: string; walk: (s: Sim) => Promise<void> }[] = [
  {
    act: 'กด ส่ง batch ถัดไป สี่ครั้ง แล้วกด ส่ง แต่ ack หาย หนึ่งครั้ง',
    see: 'หน้าต่าง [0..1 2..3 4..5 6..6 7..9] เต็มห้าช่อง log end offset 10 และแถว 7..9 ยังรอคำตอบ',
    async walk({ sim }) {
      await times(4, () => button(sim, 'ส่ง batch ถัดไป').click());
      await button(sim, 'ส่ง แต่ ack หาย').click();
      const fill = golden(IDEM, 'เติมหน้าต่างกันซ้ำ: จำ 5 batch ต่อ producer ต่อ partition');
      expect(fill).toContain('[0..1 2..3 4..5 6..6 7..9]\nlog end offset 10');
      await expect(text(sim, '[data-sim-window]')).resolves.toBe('[0..1 2..3 4..5 6..6 7..9]');
      await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
      await expect(text(sim, '[data-sim-sent] li[data-sim-batch="7..9"]')).resolves.toContain('รอคำตอบ');
    },
  },
  {
    act: 'กด ส่งซ้ำ ที่แถว 7..9',
    see: 'DUPLICATE · offset เดิม 7..9 และ log end offset ยังเป็น 10',
    async walk(s) {
      await resend(s, '7..9');
      const chapter = golden(IDEM, 'ack หายระหว่างทาง: producer ส่ง 7..9 ซ้ำ');
      expect(chapter).toMatch(/DUPLICATE → ตอบด้วย offset ครั้งแรก 7\.\.9/);
      expect(chapter).toContain('log end offset   10 (เท่าเดิม)');
      await expect(lastEvent(s.sim)).resolves.toBe('pid 1000 ส่ง 7..9 ซ้ำ → DUPLICATE · offset เดิม 7..9');
      await expect(text(s.sim, '[data-sim-leo]')).resolves.toBe('10');
    },
  },
  {
    act: 'ใส่ 13 ในช่อง seq ที่เลือกเอง แล้วกด ส่ง seq นี้',
    see: 'OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 13 เพราะ 10..12 ไม่เคยมา log end offset ยังเป็น 10',
    async walk({ sim }) {
      await sim.getByLabel('seq ที่เลือกเอง').fill('13');
      await button(sim, 'ส่ง seq นี้').click();
      const chapter = golden(IDEM, 'seq กระโดด: ส่ง 13 ทั้งที่ broker รอ 10');
      expect(chapter).toContain('OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 13\nlog end offset   10 (เท่าเดิม)');
      await expect(lastEvent(sim)).resolves.toBe(
        'pid 1000 ส่ง 13..13 ที่ประกอบเอง → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 13',
      );
      await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
    },
  },
  {
    act: 'กด ส่ง แต่ request หาย แล้วกด ส่ง batch ถัดไป',
    see: '11..11 ถูกปฏิเสธ รอ 10 ได้ 11 เพราะ 10..10 ไม่ถึง broker',
    async walk({ sim }) {
      await button(sim, 'ส่ง แต่ request หาย').click();
      await button(sim, 'ส่ง batch ถัดไป').click();
      await expect(lastEvent(sim)).resolves.toBe(
        'pid 1000 ส่ง 11..11 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 11',
      );
      // Refused is not done: the row says so, as the next step's words need.
      await expect(text(sim, '[data-sim-sent] li[data-sim-batch="11..11"]')).resolves.toContain('ยังไม่ลง log');
      await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
    },
  },
  {
    act: 'กด ส่งซ้ำ ที่แถว 10..10 แล้วที่แถว 11..11 (สองแถวที่บอกว่าต้องส่งซ้ำ)',
    see: 'ทั้งสองก้อนได้ APPEND และ log end offset เป็น 12',
    async walk(s) {
      const pending = await s.sim
        .locator('[data-sim-sent] li')
        .evaluateAll((rows) =>
          rows.filter((r) => r.textContent?.includes('ต้องส่งซ้ำ')).map((r) => r.getAttribute('data-sim-batch')),
        );
      expect(pending).toEqual(['10..10', '11..11']);
      await resend(s, '10..10');
      await expect(lastEvent(s.sim)).resolves.toMatch(/^pid 1000 ส่ง 10\.\.10 ซ้ำ → APPEND · offset 10\.\.10/);
      await resend(s, '11..11');
      await expect(lastEvent(s.sim)).resolves.toMatch(/^pid 1000 ส่ง 11\.\.11 ซ้ำ → APPEND · offset 11\.\.11/);
      await expect(text(s.sim, '[data-sim-leo]')).resolves.toBe('12');
    },
  },
  {
    act: 'กด ส่ง batch ถัดไป สามครั้ง แล้วกด ส่งซ้ำ ที่แถว 7..9',
    see: 'หน้าต่าง [10..10 11..11 12..12 13..13 14..14] และ 7..9 ได้ OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7',
    async walk(s) {
      await times(3, () => button(s.sim, 'ส่ง batch ถัดไป').click());
      const chapter = golden(IDEM, 'หน้าต่างล้น: batch ที่ถูกดันออกไปแล้วถูกลืม');
      expect(chapter).toContain('[10..10 11..11 12..12 13..13 14..14]');
      expect(chapter).toContain('7..9 ถูกส่งมาอีกรอบ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7');
      await expect(text(s.sim, '[data-sim-window]')).resolves.toBe('[10..10 11..11 12..12 13..13 14..14]');
      await resend(s, '7..9');
      await expect(lastEvent(s.sim)).resolves.toBe(
        'pid 1000 ส่ง 7..9 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7',
      );
      await refusedYetOnLog(
        s,
        '7..9',
        /ack หาย → DUPLICATE · offset เดิม 7\.\.9 → OUT_OF_ORDER_SEQUENCE_NUMBER/,
      );
    },
  },
  {
    act: 'กด restart broker แล้วกด ส่งซ้ำ ที่แถว 14..14',
    see: 'หน้าต่างที่สร้างใหม่ครบห้าช่องเท่าเดิม และ 14..14 ยังได้ DUPLICATE · offset เดิม 14..14',
    async walk(s) {
      await button(s.sim, 'restart broker').click();
      const chapter = golden(IDEM, 'restart broker: เปิด partition ใหม่ แล้วสร้างสถานะจาก segment ที่ active');
      expect(chapter).toContain('[10..10 11..11 12..12 13..13 14..14] ตรงกับก่อน restart');
      expect(chapter).toContain('DUPLICATE · ได้ offset 14..14 ของครั้งแรก');
      await expect(text(s.sim, '[data-sim-window]')).resolves.toBe('[10..10 11..11 12..12 13..13 14..14]');
      await resend(s, '14..14');
      await expect(lastEvent(s.sim)).resolves.toBe('pid 1000 ส่ง 14..14 ซ้ำ → DUPLICATE · offset เดิม 14..14');
    },
  },
  {
    act: 'กด process ใหม่ (pid ใหม่) แล้วกด ส่ง batch ถัดไป',
    see: 'pid 1001 นับจาก 0..1 และได้ APPEND · offset 15..16 record ชุดเดิมจึงอยู่บน log สองที่',
    async walk({ sim }) {
      await button(sim, 'process ใหม่ (pid ใหม่)').click();
      await button(sim, 'ส่ง batch ถัดไป').click();
      // The chapter's edge ก.: a new id starts at 0 and is written again from offset 15.
      expect(golden(IDEM, 'ขอบของการกันซ้ำ')).toMatch(/ส่งด้วย pid 1001 seq 0\.\.\d+ → APPEND · base_offset 15/);
      await expect(lastEvent(sim)).resolves.toBe('pid 1001 ส่ง 0..1 → APPEND · offset 15..16');
    },
  },
  {
    act: 'ตั้ง max.in.flight.requests.per.connection เป็น 6 กด เริ่มใหม่ กด ส่ง แต่ ack หาย หกครั้ง แล้วกด ส่งซ้ำ ที่แถว 0..1',
    see: 'ก้อนที่หกดัน 0..1 ออกจากหน้าต่าง และ 0..1 ได้ OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0',
    async walk(s) {
      await s.sim.getByLabel('max.in.flight.requests.per.connection').selectOption('6');
      await button(s.sim, 'เริ่มใหม่').click();
      await times(6, () => button(s.sim, 'ส่ง แต่ ack หาย').click());
      await expect(lastEvent(s.sim)).resolves.toContain('0..1 หลุดจากหน้าต่าง');
      await resend(s, '0..1');
      const model = readFileSync(join(realRoot, 'expected/07-model-6.txt'), 'utf8');
      expect(model).toContain('รับ 0..1 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0');
      await expect(lastEvent(s.sim)).resolves.toBe(
        'pid 1000 ส่ง 0..1 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0',
      );
      await refusedYetOnLog(s, '0..1', /ack หาย → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0/);
    },
  },
  {
    act: 'ตั้ง segment.bytes เป็น 256 กด เริ่มใหม่ กด ส่ง batch ถัดไป แปดครั้ง แล้วกด restart broker',
    see: 'batch ละ segment และหน้าต่างหดจาก 5 เหลือ 1 คือ [12..12]',
    async walk({ sim }) {
      await sim.getByLabel('segment.bytes').selectOption('256');
      await button(sim, 'เริ่มใหม่').click();
      await times(8, () => button(sim, 'ส่ง batch ถัดไป').click());
      await expect(text(sim, '[data-sim-segment]')).resolves.toBe('7');
      await expect(text(sim, '[data-sim-window]')).resolves.toBe('[6..6 7..9 10..10 11..11 12..12]');
      await button(sim, 'restart broker').click();
      expect(golden(IDEM, 'ขอบของการกันซ้ำ')).toContain('จาก 5 เหลือ 1');
      await expect(text(sim, '[data-sim-window]')).resolves.toBe('[12..12]');
      await expect(lastEvent(sim)).resolves.toBe(
        'restart broker · สร้างหน้าต่างจาก segment ที่ active: pid 1000 [12..12] (จาก 5 เหลือ 1)',
      );
    },
  },
];

describe.skipIf(!haveChromium)('the guided path in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const offsite: string[] = [];

  beforeAll(async () => {
    requireBuiltSite();
    mkdirSync(ARTIFACTS, { recursive: true });
    server = createServer(sirv(realDist, { dev: false, etag: true }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function open(
    path: string,
    viewport: { width: number; height: number },
    theme: 'light' | 'dark',
  ): Promise<Sim & { errors: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'th-TH', hasTouch: viewport.width < 600 });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    await context.addInitScript((t) => localStorage.setItem('starlight-theme', t), theme);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    const sim = page.locator('[data-klog-sim]').first();
    await expect(sim.locator('[data-sim-producer]').textContent()).resolves.toContain('batch ถัดไป 0..1');
    return { page, sim, errors };
  }

  for (const path of PAGES) {
    for (const viewport of VIEWPORTS) {
      for (const theme of THEMES) {
        const name = `${path.replaceAll('/', '')}-${viewport.width}-${theme}`;
        it(`${path} at ${viewport.width}×${viewport.height}, ${theme}: every guided step shows the lesson's answer`, async () => {
          const s = await open(path, viewport, theme);
          const guide = s.sim.locator('[data-sim-guide] li');
          await expect(guide.count()).resolves.toBe(STEPS.length);
          for (const [i, step] of STEPS.entries()) {
            const li = guide.nth(i);
            await expect(li.locator('[data-sim-guide-act]').textContent(), `step ${i + 1}`).resolves.toBe(
              step.act,
            );
            await expect(li.locator('[data-sim-guide-see]').textContent(), `step ${i + 1}`).resolves.toBe(
              step.see,
            );
            await step.walk(s);
          }
          // Nothing ran off the side on the way.
          const width = await s.page.evaluate(() => document.documentElement.scrollWidth);
          expect(width).toBeLessThanOrEqual(viewport.width);
          expect(s.errors).toEqual([]);
          await s.page.addStyleTag({
            content: 'header.header, mobile-starlight-toc { visibility: hidden !important; }',
          });
          // A picture of the whole simulator, taken as the page stands (a long page on a loaded machine
          // can take a while to hold still: animations off, a generous wait).
          await s.sim.scrollIntoViewIfNeeded();
          await s.sim.screenshot({
            path: join(ARTIFACTS, `simulator-guide-${name}.png`),
            animations: 'disabled',
            timeout: 120_000,
          });
          await s.page.context().close();
        });
      }
    }
  }

  it('keyboard only: the focus stays on a control after a resend, when the cap fills, and at the last replay step', async () => {
    const { page, sim } = await open('/simulator/', VIEWPORTS[0], 'light');
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return el === document.body || el === null
          ? 'body'
          : (el.getAttribute('aria-label') ?? el.textContent ?? el.tagName);
      });
    await button(sim, 'ส่ง แต่ ack หาย').focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('Enter');
    await expect(focused()).resolves.toBe('ส่ง แต่ ack หาย');
    // The fifth fills the cap: the send buttons turn disabled, the focus goes to the oldest resend.
    await page.keyboard.press('Enter');
    await expect(button(sim, 'ส่ง แต่ ack หาย').isDisabled()).resolves.toBe(true);
    await expect(focused()).resolves.toBe('ส่ง 0..1 ซ้ำ');
    // A resend rebuilds the list: the focus lands on the same row's button, not on <body>.
    await page.keyboard.press('Enter');
    await expect(lastEvent(sim)).resolves.toBe('pid 1000 ส่ง 0..1 ซ้ำ → DUPLICATE · offset เดิม 0..1');
    await expect(focused()).resolves.toBe('ส่ง 0..1 ซ้ำ');
    // The replay: Enter walks forward to the end, and one more Enter does not walk back.
    await button(sim, 'ดู counterexample ของตัวตรวจ: ค้าง 6 batch ทีละขั้น').click();
    const step = sim.locator('[data-sim-replay-step]');
    for (let i = 1; i < 16; i++) await page.keyboard.press('Enter');
    await expect(step.getAttribute('data-step')).resolves.toBe('16');
    await expect(
      page.evaluate(() => document.activeElement?.hasAttribute('data-sim-replay-verdict') ?? false),
    ).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await expect(step.getAttribute('data-step')).resolves.toBe('16');
    await page.context().close();
  });

  it('progress is kept in the browser across a reload; "เริ่มใหม่" clears it', async () => {
    const { page, sim } = await open('/simulator/', VIEWPORTS[1], 'dark');
    await STEPS[0]!.walk({ page, sim });
    await STEPS[1]!.walk({ page, sim });
    await sim.getByLabel('max.in.flight.requests.per.connection').selectOption('6');
    const before = await events(sim);
    expect(before).toHaveLength(6);
    await page.reload({ waitUntil: 'load' });
    await expect(events(sim)).resolves.toEqual(before);
    await expect(text(sim, '[data-sim-window]')).resolves.toBe('[0..1 2..3 4..5 6..6 7..9]');
    await expect(sim.getByLabel('max.in.flight.requests.per.connection').inputValue()).resolves.toBe('6');
    await button(sim, 'เริ่มใหม่').click();
    await page.reload({ waitUntil: 'load' });
    await expect(events(sim)).resolves.toEqual([]);
    await expect(text(sim, '[data-sim-window]')).resolves.toBe('[]');
    await page.context().close();
  });

  it('asked for nothing outside the site', () => {
    expect(offsite).toEqual([]);
  });
});
