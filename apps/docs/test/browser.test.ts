// Chapter 7 in a real browser: Debian's Chromium through playwright-core, the built site served on
// loopback, every request to anywhere else refused and recorded. Saves a screenshot of the
// chapter to artifacts/ at the repository root.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { cutExcerpt, cutSection } from '../excerpts/source.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the site cannot run'); // throws when CI is set

describe.skipIf(!haveChromium)('chapter 7 in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
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
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'th-TH' });
    // Nothing but the site itself: no CDN, no web font, no analytics.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    page = await context.newPage();
    await page.goto(`${origin}/07-idem/`, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('is a Thai page, with the sidebar listing the site', async () => {
    expect(await page.getAttribute('html', 'lang')).toBe('th');
    expect(await page.title()).toContain('บทที่ 7');
    const sidebar = page.locator('#starlight__sidebar');
    await expect(sidebar.getByRole('link', { name: 'เริ่มต้นใช้งาน' }).count()).resolves.toBe(1);
    await expect(sidebar.locator('a[aria-current="page"]').textContent()).resolves.toContain('บทที่ 7');
  });

  it('shows every excerpt exactly as its source region', async () => {
    const blocks = await page.$$eval('[data-klog-kind="region"]', (els) =>
      els.map((el) => ({
        src: el.getAttribute('data-src')!,
        text: el.querySelector('pre code')!.textContent!,
      })),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    for (const block of blocks) {
      const [file, name] = block.src.split('#') as [string, string];
      expect(block.text, block.src).toBe(cutExcerpt(realRoot, file, name).region.text);
    }
    // The one the issue names: the verdict function, as a reader sees it.
    const judge = page.locator('[data-src="packages/core/src/verdict.ts#judge"] pre code');
    expect(await judge.textContent()).toBe(
      cutExcerpt(realRoot, 'packages/core/src/verdict.ts', 'judge').region.text,
    );
  });

  it('shows every run output exactly as its golden section', async () => {
    const blocks = await page.$$eval('[data-klog-kind="output"]', (els) =>
      els.map((el) => ({
        src: el.getAttribute('data-src')!,
        text: el.querySelector('pre code')!.textContent!,
      })),
    );
    expect(blocks.length).toBe(8);
    for (const block of blocks) {
      const hash = block.src.indexOf('#');
      const section = cutSection(realRoot, block.src.slice(0, hash), block.src.slice(hash + 1));
      expect(block.text, block.src).toBe(section.text);
    }
  });

  it('shows where a fragment was cut', async () => {
    const cut = page.locator('[data-src="packages/storage/src/idempotent-append.ts#append-head"] .klog-cut');
    await expect(cut.textContent()).resolves.toContain('ตัดตรงนี้');
  });

  it('draws both diagrams as SVG, captioned as illustrations', async () => {
    for (const name of ['ack-loss', 'leo-hw-lso']) {
      const figure = page.locator(`[data-klog-diagram="${name}"]`);
      const svg = figure.locator('svg').first();
      await svg.scrollIntoViewIfNeeded();
      const box = await svg.boundingBox();
      expect(box?.width, name).toBeGreaterThan(200);
      expect(box?.height, name).toBeGreaterThan(100);
      // Drawn text, not an empty frame: the participants and the lines are in it.
      const drawn = (await svg.textContent()) ?? '';
      for (const word of name === 'ack-loss' ? ['producer', 'broker', 'DUPLICATE'] : ['LSO', 'HW', 'LEO']) {
        expect(drawn, name).toContain(word);
      }
      await expect(figure.locator('figcaption').textContent()).resolves.toContain('ภาพประกอบ ไม่ใช่ผลรัน');
    }
  });

  it('answers the quiz in the page: a click, the keyboard, right and wrong with why', async () => {
    const questions = page.locator('[data-klog-question]');
    expect(await questions.count()).toBe(3);
    const q1 = questions.nth(0);
    await q1.getByRole('button', { name: /DUPLICATE_SEQUENCE_NUMBER/ }).click();
    await expect(q1.locator('[data-klog-feedback]').textContent()).resolves.toMatch(/^✗ ยังไม่ใช่ — รหัส 46/);
    await q1.getByRole('button', { name: /สำเร็จ พร้อม offset/ }).click();
    await expect(q1.locator('[data-klog-feedback]').textContent()).resolves.toMatch(/^✓ ถูกต้อง — /);
    await expect(
      q1.getByRole('button', { name: /สำเร็จ พร้อม offset/ }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');

    // Keyboard only: focus the right answer of question 2 and press Enter.
    const q2right = questions.nth(1).getByRole('button', { name: /รอ 15 ได้ 7/ });
    await q2right.focus();
    await page.keyboard.press('Enter');
    await expect(questions.nth(1).locator('[data-klog-feedback]').textContent()).resolves.toMatch(/^✓ ถูกต้อง/);

    await questions
      .nth(2)
      .getByRole('button', { name: /APPEND ที่ offset ใหม่/ })
      .click();
    await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe(
      'ตอบครบแล้ว · ถูกตั้งแต่ครั้งแรก 2 จาก 3 ข้อ',
    );
  });

  it('switches to dark mode', async () => {
    await page.locator('starlight-theme-select select').first().selectOption('dark');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    const bg = await page
      .locator('.klog-block pre.klog-code')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bg).toBe('rgb(1, 22, 39)'); // night-owl's background
    await page.locator('starlight-theme-select select').first().selectOption('light');
  });

  it('saves a screenshot of the chapter', async () => {
    const dir = join(realRoot, 'artifacts');
    mkdirSync(dir, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(dir, 'chapter-07.png'), fullPage: true });
    await page.screenshot({ path: join(dir, 'chapter-07-top.png') });
    expect(existsSync(join(dir, 'chapter-07.png'))).toBe(true);
  });

  it('finds "idempotent" with the site search (Pagefind, built with the site)', async () => {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await page.locator('site-search button[data-open-modal]').first().click();
    const input = page.locator('#starlight__search input');
    await input.fill('idempotent');
    const result = page.locator('#starlight__search .pagefind-ui__result-link').first();
    await result.waitFor({ timeout: 15_000 });
    const hrefs = await page
      .locator('#starlight__search .pagefind-ui__result-link')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.some((h) => h?.includes('/07-idem/'))).toBe(true);
  });

  it('asked for nothing outside the site', () => {
    expect(offsite).toEqual([]);
  });
});
