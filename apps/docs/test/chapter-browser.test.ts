// Chapter 7 as a learner meets it, in Chromium at 390×844 and 1280×800, light and dark: its shape
// (questions, objectives, time, prerequisites up front; recap, glossary, next at the end; no
// maintainer note in a learner's way), one story about snapshots, the diagram and the text agreeing
// on HW, the transaction paragraph naming what it speaks of, the Kafka facts the chapter owes, the
// run-output tables readable on a phone in the default wrap mode, and the quiz: inside its card,
// answers kept across a reload until "start again", each verdict linking back to its section.
// Screenshots go to artifacts/site/ named by page part, viewport and theme.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the chapter cannot run'); // throws when CI is set

const ARTIFACTS = join(realRoot, 'artifacts', 'site');
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;
const THEMES = ['light', 'dark'] as const;
const CHAPTER = '/07-idem/';
const TABLES = ['kcat 1.7.1 · librdkafka 2.0.2', 'สรุป: ack ที่หายกลายเป็นอะไรบน log'];

describe.skipIf(!haveChromium)('chapter 7 as a learner meets it', () => {
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

  async function open(viewport: { width: number; height: number }, theme: 'light' | 'dark'): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: 'th-TH', hasTouch: viewport.width < 600 });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    await context.addInitScript((t) => localStorage.setItem('starlight-theme', t), theme);
    const page = await context.newPage();
    await page.goto(`${origin}${CHAPTER}`, { waitUntil: 'load' });
    // Starlight's fixed header and the phone's contents bar stay out of the pictures.
    await page.addStyleTag({
      content: 'header.header, mobile-starlight-toc { visibility: hidden !important; }',
    });
    return page;
  }

  const main = (page: Page) => page.locator('main .sl-markdown-content');
  // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
  const bodyText = async (page: Page) => (await main(page).innerText()).replace(/\s+/g, ' ');

  for (const viewport of VIEWPORTS) {
    for (const theme of THEMES) {
      describe(`${viewport.width}×${viewport.height}, ${theme}`, () => {
        let page: Page;
        const shot = (part: string) => join(ARTIFACTS, `chapter-${part}-${viewport.width}-${theme}.png`);

        beforeAll(async () => {
          page = await open(viewport, theme);
        });
        afterAll(async () => {
          await page?.context().close();
        });

        it('opens with questions, objectives, a time and prerequisites, before anything is taught (7)', async () => {
          const overview = main(page).locator('[data-klog-overview]');
          await expect(overview.count()).resolves.toBe(1);
          // Before the first section heading, and before any block of code.
          const order = await page.evaluate(() => {
            const o = document.querySelector('[data-klog-overview]')!;
            const h2 = document.querySelector('main .sl-markdown-content h2')!;
            const block = document.querySelector('main [data-klog-kind]')!;
            const before = (a: Node, b: Node) =>
              (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
            return { beforeHeading: before(o, h2), beforeBlock: before(o, block) };
          });
          expect(order).toEqual({ beforeHeading: true, beforeBlock: true });
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
          const said = (await overview.innerText()).replace(/\s+/g, ' ');
          for (const part of ['คำถามที่บทนี้ตอบ', 'อ่านจบแล้วคุณจะ', 'ใช้เวลา', 'นาที', 'ควรผ่านมาก่อน']) {
            expect(said).toContain(part);
          }
          for (const chapter of ['บทที่ 1', 'บทที่ 3', 'บทที่ 6']) expect(said).toContain(chapter);
          await expect(overview.locator('li').count()).resolves.toBeGreaterThanOrEqual(6);
          const links = await overview
            .locator('a')
            .evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href') ?? '')));
          expect(links).toContain('#อภิธานศัพท์');
          // No note about the checker in a learner's way: that is for maintainers (apps/docs/README.md).
          expect(await bodyText(page)).not.toContain('check:excerpts');
          await overview.screenshot({ path: shot('overview') });
        });

        it('ends with a recap, a glossary of the terms it defines, and a next step (7)', async () => {
          const headings = await main(page).locator('h2').allTextContents();
          const at = (name: string) => headings.findIndex((h) => h.trim() === name);
          expect(at('สรุปบท')).toBeGreaterThan(0);
          expect(at('อภิธานศัพท์')).toBeGreaterThan(at('สรุปบท'));
          expect(at('ต่อไป')).toBeGreaterThan(at('อภิธานศัพท์'));
          for (const term of [
            'pid',
            'epoch',
            'sequence',
            'window',
            'in-flight',
            'leo',
            'hw',
            'lso',
            'snapshot',
          ]) {
            const dt = page.locator(`[data-klog-glossary] dt#term-${term}`);
            await expect(dt.count(), term).resolves.toBe(1);
            // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
            await expect(dt.locator('xpath=following-sibling::dd[1]').innerText()).resolves.not.toBe('');
          }
          await expect(
            page.locator('.sl-heading-wrapper:has(#ต่อไป) + ul a[href="/simulator/"]').count(),
          ).resolves.toBe(1);
          // Starlight's own "next" link at the foot of the page goes to the lab.
          await expect(page.locator('.pagination-links a[rel="next"]').getAttribute('href')).resolves.toBe(
            '/simulator/',
          );
          await page.locator('[data-klog-glossary]').screenshot({ path: shot('glossary') });
        });

        it('tells one story about snapshots (8) and completes the Kafka facts (11)', async () => {
          const text = await bodyText(page);
          for (const contradiction of ['klog ไม่มี file', 'ไม่มี snapshot สถานะมาจาก', 'ที่ Kafka มีและ klog ไม่มี']) {
            expect(text).not.toContain(contradiction);
          }
          expect(text).toContain('producerSnapshots');
          expect(text).toContain('klog serve เปิดไว้');
          for (const fact of [
            'producerStateManager.takeSnapshot()', // written on clean shutdown too
            'producer.id.expiration.ms', // and its retention caveat
            'retention ของ topic ลบ record ล่าสุดของ producer',
            'UNKNOWN_PRODUCER_ID', // gone from 4.x's append path
            'UnknownProducerIdException',
            'partition ละหนึ่งก้อน', // requests per connection vs batches per partition
            'TransactionManager.canRetry', // the Java producer on OUT_OF_ORDER_SEQUENCE_NUMBER
            'ขยับ epoch',
          ]) {
            expect(text).toContain(fact);
          }
        });

        it('the LEO/HW/LSO diagram and the text agree: HW 9 is Kafka with a lagging follower, HW = LEO on klog (9)', async () => {
          const figure = page.locator('[data-klog-diagram="leo-hw-lso"]');
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
          const caption = (await figure.locator('figcaption').innerText()).replace(/\s+/g, ' ');
          expect(caption).toContain('follower');
          expect(caption).toContain('HW = LEO = 12');
          const before = await figure.evaluate((el) => {
            let p = el.previousElementSibling;
            while (p && p.tagName !== 'P') p = p.previousElementSibling;
            return p?.textContent ?? '';
          });
          expect(before).toContain('HW เท่ากับ LEO');
          expect(before).toContain('Kafka');
        });

        it('the paragraph after the list of what is not built names what it speaks of (10)', async () => {
          const paragraphs = await main(page).locator('p').allTextContents();
          expect(paragraphs.filter((p) => p.trim().startsWith('ข้อแรก'))).toEqual([]);
          const after = await page.evaluate(() => {
            const h = document.getElementById('ของที่บทนี้ไม่ได้สร้าง')!.closest('.sl-heading-wrapper')!;
            let el = h.nextElementSibling;
            while (el && el.tagName !== 'UL') el = el.nextElementSibling;
            return el?.nextElementSibling?.textContent ?? '';
          });
          for (const item of ['transaction', 'epoch', 'snapshot']) expect(after).toContain(item);
        });

        it('the run-output tables keep every row on one line in the default wrap mode, scrolling sideways (12)', async () => {
          await expect(
            page.evaluate(() => document.documentElement.dataset['klogWrap'] ?? 'on'),
          ).resolves.toBe('on');
          for (const title of TABLES) {
            const block = page.locator(`[data-src$="#${title}"]`);
            await expect(block.getAttribute('data-klog-layout')).resolves.toBe('table');
            const rows = await block.locator('.line[data-klog-row]').evaluateAll((els) =>
              els.map((e) => {
                const lh = Number.parseFloat(getComputedStyle(e.closest('pre')!).lineHeight);
                return { text: e.textContent, lines: Math.round(e.getBoundingClientRect().height / lh) };
              }),
            );
            expect(rows.length, title).toBeGreaterThanOrEqual(3);
            for (const row of rows) expect(row.lines, row.text ?? '').toBe(1);
            const box = await block.boundingBox();
            expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width + 0.5);
            await block.scrollIntoViewIfNeeded();
            await block.screenshot({ path: shot(`table-${TABLES.indexOf(title) + 1}`) });
          }
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(width).toBeLessThanOrEqual(viewport.width);
        });

        it('quiz options stay inside their card (13)', async () => {
          const overflow = await page.locator('[data-klog-question]').evaluateAll((qs) =>
            qs.flatMap((q) => {
              const card = q.getBoundingClientRect();
              return [...q.querySelectorAll('button[data-correct]')]
                .map((o) => o.getBoundingClientRect())
                .filter((o) => o.right > card.right - 1 || o.left < card.left)
                .map((o) => o.right - card.right);
            }),
          );
          expect(overflow).toEqual([]);
        });

        it('quiz answers survive a reload until "start again", and each verdict links back to its section (13)', async () => {
          const questions = page.locator('[data-klog-question]');
          const count = await questions.count();
          expect(count).toBe(4);
          // A wrong answer to the first question, the right one to the second.
          await questions.nth(0).locator('button[data-correct="false"]').first().click();
          await questions.nth(1).locator('button[data-correct="true"]').click();
          for (let i = 0; i < count; i++) {
            const back = questions.nth(i).locator('[data-klog-back] a');
            if (i < 2) {
              await expect(back.isVisible()).resolves.toBe(true);
              const href = (await back.getAttribute('href')) ?? '';
              const target = await page.evaluate(
                (id) => document.getElementById(decodeURIComponent(id)) !== null,
                href.slice(1),
              );
              expect(target, href).toBe(true);
            } else {
              await expect(back.isVisible()).resolves.toBe(false);
            }
          }
          const feedback = await questions.nth(0).locator('[data-klog-feedback]').textContent();
          await page.reload({ waitUntil: 'load' });
          await expect(questions.nth(0).locator('[data-klog-feedback]').textContent()).resolves.toBe(
            feedback,
          );
          await expect(questions.nth(0).getAttribute('data-result')).resolves.toBe('wrong');
          await expect(questions.nth(1).getAttribute('data-result')).resolves.toBe('right');
          await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe('ตอบแล้ว 2 จาก 4 ข้อ');
          await page.locator('[data-klog-quiz]').screenshot({ path: shot('quiz') });
          await page.locator('[data-klog-reset]').click();
          await page.reload({ waitUntil: 'load' });
          await expect(questions.nth(0).getAttribute('data-result')).resolves.toBeNull();
          await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe('');
        });
      });
    }
  }

  it('asked for nothing outside the site', () => {
    expect(offsite).toEqual([]);
  });
});
