// The simulator in a real browser: Debian's Chromium through playwright-core, the built site served
// on loopback, on a 390 px phone screen, by clicks and by the keyboard, in light and dark. It walks
// the chapter's scenario (fill, lost ack, resend → DUPLICATE, gap → OUT_OF_ORDER, overflow → the
// evicted resend refused), the in-flight cap, restart and roll, and the replay of the checker's
// counterexample against expected/07-model-6.txt. Screenshots go to artifacts/.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the simulator cannot run'); // throws when CI is set

/** Pages that carry the simulator. */
const PAGES = ['/simulator/', '/07-idem/'];
const PHONE = { width: 390, height: 844 };

describe.skipIf(!haveChromium)('the simulator in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const offsite: string[] = [];

  beforeAll(async () => {
    requireBuiltSite();
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

  async function open(path: string): Promise<{ page: Page; sim: Locator }> {
    const context = await browser.newContext({ viewport: PHONE, locale: 'th-TH', hasTouch: true });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    const sim = page.locator('[data-klog-sim]').first();
    await sim.scrollIntoViewIfNeeded();
    // Rendered by the island: the producer line names the first batch.
    await expect(sim.locator('[data-sim-producer]').textContent()).resolves.toContain('batch ถัดไป 0..1');
    expect(errors).toEqual([]);
    return { page, sim };
  }

  const lastEvent = (sim: Locator) => sim.locator('[data-sim-events] li').last().textContent();
  const text = (sim: Locator, selector: string) => sim.locator(selector).textContent();
  const button = (sim: Locator, name: string | RegExp) =>
    sim.getByRole('button', { name, exact: typeof name === 'string' });

  for (const path of PAGES) {
    describe(path, () => {
      let page: Page;
      let sim: Locator;

      beforeAll(async () => {
        ({ page, sim } = await open(path));
      });

      it('fits a 390 px screen: nothing runs off the side', async () => {
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(PHONE.width);
        const box = await sim.boundingBox();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
      });

      it('fills the window; the ack of 7..9 is lost (keyboard: Enter and Space)', async () => {
        const send = button(sim, 'ส่ง batch ถัดไป');
        await send.focus();
        await page.keyboard.press('Enter');
        await page.keyboard.press(' ');
        await send.click();
        await send.click();
        await button(sim, 'ส่ง แต่ ack หาย').click();
        await expect(lastEvent(sim)).resolves.toBe(
          'pid 1000 ส่ง 7..9 → APPEND · offset 7..9 · ack หายกลางทาง producer ยังไม่รู้ผล',
        );
        await expect(text(sim, '[data-sim-window]')).resolves.toBe('[0..1 2..3 4..5 6..6 7..9]');
        await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
        await expect(text(sim, '[data-sim-producer]')).resolves.toContain('ค้าง 1/5');
        await expect(
          sim.locator('[data-sim-sent] li[data-sim-batch="7..9"]').textContent(),
        ).resolves.toContain('รอคำตอบ (ack หาย)');
        expect(await sim.locator('[data-sim-log] tr').count()).toBe(5);
      });

      it('the resend of 7..9 is a DUPLICATE with the first offsets; the log end offset stays', async () => {
        await button(sim, 'ส่ง 7..9 ซ้ำ').click();
        await expect(lastEvent(sim)).resolves.toBe('pid 1000 ส่ง 7..9 ซ้ำ → DUPLICATE · offset เดิม 7..9');
        await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
        // The verdict is coloured by the stylesheet.
        const verdict = sim.locator('[data-sim-events] li').last().locator('[data-verdict="DUPLICATE"]');
        await expect(verdict.count()).resolves.toBe(1);
      });

      it('a lost request leaves a gap: the next batch is OUT_OF_ORDER, nothing written', async () => {
        await button(sim, 'ส่ง แต่ request หาย').click();
        await expect(lastEvent(sim)).resolves.toBe('pid 1000 ส่ง 10..10 · request หายก่อนถึง broker');
        await button(sim, 'ส่ง batch ถัดไป').click();
        await expect(lastEvent(sim)).resolves.toBe(
          'pid 1000 ส่ง 11..11 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 11',
        );
        await expect(text(sim, '[data-sim-leo]')).resolves.toBe('10');
        await button(sim, 'ส่ง 10..10 ซ้ำ').click();
        await button(sim, 'ส่ง 11..11 ซ้ำ').click();
        await expect(text(sim, '[data-sim-leo]')).resolves.toBe('12');
      });

      it('overflow: after three more batches 7..9 has left the window, and its resend is refused', async () => {
        for (let i = 0; i < 3; i++) await button(sim, 'ส่ง batch ถัดไป').click();
        await expect(text(sim, '[data-sim-window]')).resolves.toBe('[10..10 11..11 12..12 13..13 14..14]');
        await button(sim, 'ส่ง 7..9 ซ้ำ').click();
        await expect(lastEvent(sim)).resolves.toBe(
          'pid 1000 ส่ง 7..9 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7',
        );
      });

      it('restart rebuilds the window from the active segment; 14..14 is still a duplicate', async () => {
        await button(sim, 'restart broker').click();
        await expect(lastEvent(sim)).resolves.toBe(
          'restart broker · สร้างหน้าต่างจาก segment ที่ active: pid 1000 [10..10 11..11 12..12 13..13 14..14]',
        );
        await button(sim, 'ส่ง 14..14 ซ้ำ').click();
        await expect(lastEvent(sim)).resolves.toBe('pid 1000 ส่ง 14..14 ซ้ำ → DUPLICATE · offset เดิม 14..14');
      });

      it('a new process gets a new id: the same records are written again', async () => {
        await button(sim, 'process ใหม่ (pid ใหม่)').click();
        await button(sim, 'ส่ง batch ถัดไป').click();
        await expect(lastEvent(sim)).resolves.toBe('pid 1001 ส่ง 0..1 → APPEND · offset 15..16');
        await expect(text(sim, '[data-sim-others]')).resolves.toBe(
          'producer อื่น: pid 1000 [10..10 11..11 12..12 13..13 14..14]',
        );
      });

      it('roll, then restart: what rolled away is forgotten (the narrowing)', async () => {
        await button(sim, 'roll segment').click();
        await expect(button(sim, 'roll segment').isDisabled()).resolves.toBe(true);
        await button(sim, 'ส่ง batch ถัดไป').click();
        await button(sim, 'restart broker').click();
        await expect(text(sim, '[data-sim-window]')).resolves.toBe('[2..3]');
        await expect(text(sim, '[data-sim-others]')).resolves.toBe('');
        await expect(text(sim, '[data-sim-segment]')).resolves.toBe('1');
      });

      it('the cap: at 5 a sixth batch waits; at 6 it goes and 0..1 is refused on resend', async () => {
        await button(sim, 'เริ่มใหม่').click();
        await expect(sim.locator('[data-sim-events] li').count()).resolves.toBe(0);
        for (let i = 0; i < 5; i++) await button(sim, 'ส่ง แต่ ack หาย').click();
        await expect(button(sim, 'ส่ง batch ถัดไป').isDisabled()).resolves.toBe(true);
        await expect(text(sim, '[data-sim-blocked]')).resolves.toContain('ค้างครบ 5 batch แล้ว');
        await sim.locator('[data-sim-cap]').selectOption('6');
        await expect(button(sim, 'ส่ง แต่ ack หาย').isEnabled()).resolves.toBe(true);
        await button(sim, 'ส่ง แต่ ack หาย').click();
        await expect(lastEvent(sim)).resolves.toContain('0..1 หลุดจากหน้าต่าง');
        await button(sim, 'ส่ง 0..1 ซ้ำ').click();
        await expect(lastEvent(sim)).resolves.toBe(
          'pid 1000 ส่ง 0..1 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0',
        );
      });

      it("replays the checker's 6-in-flight counterexample, step for step as klog model-check prints it", async () => {
        const golden = readFileSync(join(realRoot, 'expected/07-model-6.txt'), 'utf8');
        const steps = [...golden.matchAll(/^ *(\d+) {2}(\S+) +(.+)$/gm)].map((m) => `${m[2]} · ${m[3]}`);
        expect(steps).toHaveLength(16);
        await button(sim, /ดู counterexample ของตัวตรวจ/).click();
        const panel = sim.locator('[data-sim-replay-panel]');
        await expect(panel.isVisible()).resolves.toBe(true);
        const step = panel.locator('[data-sim-replay-step]');
        for (const [i, expected] of steps.entries()) {
          await expect(step.textContent()).resolves.toBe(`ขั้น ${i + 1}/16 · ${expected}`);
          if (i === 11) {
            await expect(panel.locator('[data-sim-replay-window]').textContent()).resolves.toBe(
              '[2..3 4..5 6..6 7..9 10..10]',
            );
          }
          // Keyboard only: the focus stays on "next" while there is a next step.
          if (i < steps.length - 1) await page.keyboard.press('Enter');
        }
        const verdict = panel.locator('[data-sim-replay-verdict]');
        await expect(verdict.isVisible()).resolves.toBe(true);
        const said = (await verdict.textContent()) ?? '';
        expect(said).toContain('batch 0..1 อยู่บน log ที่ offset 0..1 แต่ producer ได้ยินว่ามันล้มเหลว');
        for (const client of ['librdkafka 2.0.2', 'KafkaJS 2.2.4', '@platformatic/kafka 1.35']) {
          expect(said).toContain(client);
        }
        await expect(panel.locator('[data-sim-replay-next]').isDisabled()).resolves.toBe(true);
        // The focus did not fall out of the panel when "next" was disabled, nor onto "previous"
        // (where the next Enter would walk backwards): it is on the verdict.
        await expect(
          page.evaluate(() => document.activeElement?.hasAttribute('data-sim-replay-verdict') ?? false),
        ).resolves.toBe(true);
      });

      it('reads in light and dark, and saves screenshots', async () => {
        const dir = join(realRoot, 'artifacts');
        mkdirSync(dir, { recursive: true });
        const name = path.replaceAll('/', '') || 'index';
        const colours = async () =>
          sim.evaluate((el) => {
            const style = getComputedStyle(el);
            return { fg: style.color, bg: style.backgroundColor };
          });
        // Starlight's header and the phone's table-of-contents bar are fixed: keep them out of the picture.
        await page.addStyleTag({
          content: 'header.header, mobile-starlight-toc { visibility: hidden !important; }',
        });
        for (const theme of ['light', 'dark'] as const) {
          await page.evaluate((t) => {
            document.documentElement.dataset['theme'] = t;
          }, theme);
          const { fg, bg } = await colours();
          expect(fg, theme).not.toBe(bg);
          await sim.screenshot({ path: join(dir, `simulator-${name}-390-${theme}.png`) });
        }
        const light = await page.evaluate(() => {
          document.documentElement.dataset['theme'] = 'light';
          return getComputedStyle(document.querySelector('[data-klog-sim]')!).backgroundColor;
        });
        const dark = await page.evaluate(() => {
          document.documentElement.dataset['theme'] = 'dark';
          return getComputedStyle(document.querySelector('[data-klog-sim]')!).backgroundColor;
        });
        expect(light).not.toBe(dark);
        expect(existsSync(join(dir, `simulator-${name}-390-dark.png`))).toBe(true);
      });
    });
  }

  it('asked for nothing outside the site', () => {
    expect(offsite).toEqual([]);
  });
});
