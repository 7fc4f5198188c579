// The site in a real browser: Debian's Chromium through playwright-core, the built site served on
// loopback (unknown paths get dist/404.html with status 404, as a static host serves it), every
// request to anywhere else refused and recorded. Screenshots of the chapter's diagrams and of a
// wide excerpt, at 390 px and 1280 px, light and dark, go to artifacts/site/ at the repository root.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { goldenCommand } from '../excerpts/golden.js';
import { cutExcerpt, cutSection } from '../excerpts/source.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the site cannot run'); // throws when CI is set

const ARTIFACTS = join(realRoot, 'artifacts', 'site');
const WIDTHS = [390, 1280] as const;
const THEMES = ['light', 'dark'] as const;
/** The widest excerpt of the chapter (its doc comment is a table): the one to look at on a phone. */
const WIDE_EXCERPT = 'packages/storage/src/format/record-batch.ts#batch-header-layout';

describe.skipIf(!haveChromium)('the site in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const offsite: string[] = [];
  const notFound: string[] = [];

  const open = async (path: string, options: { width?: number; theme?: 'light' | 'dark' } = {}) => {
    await page.setViewportSize({ width: options.width ?? 1280, height: 900 });
    if (options.theme) {
      await page.addInitScript((theme) => localStorage.setItem('starlight-theme', theme), options.theme);
    }
    const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    return response;
  };

  beforeAll(async () => {
    requireBuiltSite();
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const files = sirv(realDist, { dev: false, etag: true });
    const notFoundPage = readFileSync(join(realDist, '404.html'));
    server = createServer((req, res) =>
      files(req, res, () => {
        notFound.push(req.url ?? '');
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(notFoundPage);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'th-TH' });
    // Nothing but the site itself: no CDN, no web font, no analytics.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  describe('chapter 7', () => {
    beforeAll(async () => {
      page = await context.newPage();
      await open('/07-idem/');
    });

    it('is a Thai page; the sidebar holds the course outline, linking only chapters that exist', async () => {
      expect(await page.getAttribute('html', 'lang')).toBe('th');
      expect(await page.title()).toContain('บทที่ 7');
      const sidebar = page.locator('#starlight__sidebar');
      await expect(sidebar.getByRole('link', { name: 'เริ่มต้นใช้งาน' }).count()).resolves.toBe(1);
      const outline = sidebar.locator('[data-klog-outline]');
      const items = outline.locator('[data-chapter]');
      expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-chapter')))).toEqual([
        '1',
        '3',
        '6',
        '7',
        '8',
      ]);
      // Only chapter 7 has a page: it is the one link, and it is the current page.
      expect(await outline.locator('a').count()).toBe(1);
      await expect(outline.locator('a[aria-current="page"]').textContent()).resolves.toContain('บทที่ 7');
      await expect(items.nth(4).textContent()).resolves.toContain('ยังไม่มีในเว็บนี้');
      // After chapter 7 comes no "next" link to an unrelated page (the Performance page used to be it).
      expect(await page.locator('.pagination-links a[rel="next"]').count()).toBe(0);
    });

    it("shows Starlight's interface in Thai, the theme picker's labels uncut", async () => {
      const select = page.locator('starlight-theme-select select').first();
      const labels = await select.locator('option').allTextContents();
      expect(labels.map((l) => l.trim())).toEqual(['มืด', 'สว่าง', 'ตามเครื่อง']);
      // Every label fits the select's box: measure each in the select's own font.
      const fits = await select.evaluate((el) => {
        const s = el as HTMLSelectElement;
        const style = getComputedStyle(s);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return [...s.options].map((o) => ({ label: o.text, width: ctx.measureText(o.text).width, room }));
      });
      // With room to spare: Chromium cuts a select's text with "…" before the box is exactly full.
      for (const f of fits) expect(f.width + 8, f.label).toBeLessThanOrEqual(f.room);
      await expect(
        page.locator('site-search button[data-open-modal]').first().getAttribute('aria-label'),
      ).resolves.toBe('ค้นหา');
      await expect(page.locator('starlight-toc h2').first().textContent()).resolves.toContain('ในหน้านี้');
    });

    it('shows every excerpt exactly as its source region, with its class, commit link and Thai gloss', async () => {
      const blocks = await page.$$eval('[data-klog-kind="region"]', (els) =>
        els.map((el) => ({
          src: el.getAttribute('data-src')!,
          text: el.querySelector('pre code')!.textContent!,
          gloss: el.querySelector('[data-klog-gloss]')?.textContent ?? '',
          link: el.querySelector('a[data-klog-source-link]')?.getAttribute('href') ?? '',
          owner: el.querySelector('[data-klog-owner]')?.textContent ?? null,
        })),
      );
      expect(blocks.length).toBeGreaterThanOrEqual(15);
      for (const block of blocks) {
        const [file, name] = block.src.split('#') as [string, string];
        const { region } = cutExcerpt(realRoot, file, name);
        expect(block.text, block.src).toBe(region.text);
        // The gloss is Thai, and says more than its label.
        expect(block.gloss, block.src).toMatch(/[\u0E00-\u0E7F].{40,}/s);
        expect(block.link, block.src).toBe(
          `/source/${file}/#L${region.beginLine + 1}-L${region.endLine - 1}`,
        );
      }
      // Methods name their class.
      const owners = Object.fromEntries(blocks.map((b) => [b.src.split('#')[1], b.owner]));
      expect(owners['window-record']).toBe('ProducerStateEntry');
      expect(owners['find-duplicate-batch']).toBe('ProducerStateEntry');
      expect(owners['maybe-roll']).toBe('Log');
      expect(owners['judge']).toBeNull();
    });

    it('shows every run output exactly as its golden section, under the command that prints it', async () => {
      const blocks = await page.$$eval('[data-klog-kind="output"]', (els) =>
        els.map((el) => ({
          src: el.getAttribute('data-src')!,
          text: el.querySelector('pre code')!.textContent!,
          command: el.querySelector('[data-klog-command]')?.textContent ?? '',
        })),
      );
      // The demo's eight sections, the model checker's three (klog model-check, 5 and 6 in flight), and the
      // lost ack through real clients: five sections of klog ack-loss-demo.
      const demo = blocks.filter((b) => b.src.startsWith('expected/07-idem.txt#'));
      expect(demo.length).toBe(8);
      expect(blocks.filter((b) => b.src.startsWith('expected/07-ack-loss.txt#')).length).toBe(5);
      expect(blocks.length).toBe(16);
      for (const block of blocks) {
        const hash = block.src.indexOf('#');
        const section = cutSection(realRoot, block.src.slice(0, hash), block.src.slice(hash + 1));
        expect(block.text, block.src).toBe(section.text);
        expect(block.command).toBe(`$ ${goldenCommand(realRoot, block.src.slice(0, hash))}`);
      }
      // In the demo's order: the section numbers in the golden file only ever go up.
      const lines = demo.map(
        (b) => cutSection(realRoot, 'expected/07-idem.txt', b.src.split('#')[1]!).firstLine,
      );
      expect(lines).toEqual([...lines].sort((a, b) => a - b));
    });

    it('says where each fragment was cut', async () => {
      const head = page.locator(
        '[data-src="packages/storage/src/partition/partition.ts#append-head"] .klog-cut',
      );
      await expect(head.textContent()).resolves.toContain('ตัดตรงนี้');
      // A whole unit is not marked as cut.
      const whole = page.locator('[data-src="packages/storage/src/cleaner/compaction.ts#compaction-must-keep"]');
      await expect(whole.locator('.klog-cut').count()).resolves.toBe(0);
    });

    it('every link to a place in the page lands on a heading that exists', async () => {
      const missing = await page.$$eval('main a[href^="#"]', (as) =>
        as
          .map((a) => decodeURIComponent(a.getAttribute('href')!.slice(1)))
          .filter((id) => id !== '' && !document.getElementById(id)),
      );
      expect(missing).toEqual([]);
    });

    it('wraps long lines by default and scrolls them on request, copying the same bytes either way', async () => {
      const pre = page.locator(`[data-src="${WIDE_EXCERPT}"] pre`);
      const bytes = cutExcerpt(realRoot, ...(WIDE_EXCERPT.split('#') as [string, string])).region.text;
      expect(await pre.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
      expect(await pre.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      const toggle = page.locator(`[data-src="${WIDE_EXCERPT}"] [data-klog-wrap-toggle]`);
      await toggle.click();
      expect(await page.getAttribute('html', 'data-klog-wrap')).toBe('off');
      expect(await pre.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre');
      expect(await pre.evaluate((el) => getComputedStyle(el).overflowX)).toBe('auto');
      expect(await pre.locator('code').textContent()).toBe(bytes);
      // The choice holds for every block, and is remembered.
      await expect(page.locator('[data-klog-wrap-toggle][aria-pressed="true"]').count()).resolves.toBe(0);
      await toggle.click();
      expect(await page.getAttribute('html', 'data-klog-wrap')).toBe('on');
      expect(await pre.locator('code').textContent()).toBe(bytes);
    });

    it('links an excerpt to the whole file at the built commit, its lines marked', async () => {
      const link = page.locator('[data-src="packages/core/src/verdict.ts#judge"] a[data-klog-source-link]');
      const href = (await link.getAttribute('href'))!;
      const source = await context.newPage();
      await source.goto(`${origin}${href}`, { waitUntil: 'load' });
      const file = readFileSync(join(realRoot, 'packages/core/src/verdict.ts'), 'utf8');
      expect(await source.locator('[data-klog-source] pre code').textContent()).toBe(file);
      const marked = await source.$$eval('.line.is-marked', (els) => els.map((e) => e.id));
      const [, from, to] = /#L(\d+)-L(\d+)$/.exec(href)!;
      expect(marked[0]).toBe(`L${from}`);
      expect(marked.at(-1)).toBe(`L${to}`);
      await expect(source.locator('[data-klog-commit]').textContent()).resolves.toMatch(
        /^[0-9a-f]{40}$|ไม่ทราบ/,
      );
      await source.close();
    });

    it('draws both diagrams in the page, captioned as illustrations, LEO past the last record', async () => {
      const ack = page.locator('[data-klog-diagram="ack-loss"]');
      expect(
        await ack.locator('[data-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))),
      ).toEqual(['send', 'act', 'lost', 'note', 'send', 'act', 'reply', 'note']);
      await expect(ack.textContent()).resolves.toContain('DUPLICATE');
      const lines = page.locator('[data-klog-diagram="leo-hw-lso"]');
      const cells = await lines
        .locator('.klog-offsets__cell')
        .evaluateAll((els) =>
          els.map((e) => ({ text: e.textContent?.trim(), kind: e.getAttribute('data-kind') })),
        );
      // Offsets 0..11 hold records; 12 is the empty slot after them, and LEO stands there.
      expect(cells).toHaveLength(13);
      expect(cells.at(-1)).toEqual({ text: '12', kind: 'next' });
      const marks = await lines
        .locator('.klog-offsets__mark')
        .evaluateAll((els) =>
          els.map((e) => ({ name: e.textContent, column: getComputedStyle(e).gridColumnStart })),
        );
      expect(marks).toEqual([
        { name: 'LSO', column: '6' },
        { name: 'HW', column: '10' },
        { name: 'LEO', column: '13' },
      ]);
      for (const name of ['ack-loss', 'leo-hw-lso']) {
        await expect(
          page.locator(`[data-klog-diagram="${name}"] figcaption`).textContent(),
        ).resolves.toContain('ภาพประกอบ ไม่ใช่ผลรัน');
      }
      // Light: no picture weighs down the page.
      expect(await page.locator('main svg[id^="mermaid"]').count()).toBe(0);
    });

    it('reveals the right answer after a wrong one, and starts the quiz over', async () => {
      const questions = page.locator('[data-klog-question]');
      expect(await questions.count()).toBe(4);
      const q1 = questions.nth(0);
      await q1.getByRole('button', { name: /DUPLICATE_SEQUENCE_NUMBER/ }).click();
      await expect(q1.locator('[data-klog-feedback]').textContent()).resolves.toMatch(
        /^✗ ยังไม่ใช่ — Errors\.java/,
      );
      const reveal = q1.locator('[data-klog-reveal]');
      expect(await reveal.isVisible()).toBe(true);
      await reveal.click();
      await expect(q1.locator('[data-klog-answer]').textContent()).resolves.toMatch(
        /^คำตอบที่ถูกคือข้อ ข — Duplicate/,
      );
      const right = q1.getByRole('button', { name: /สำเร็จ พร้อม offset/ });
      expect(await right.getAttribute('data-revealed')).toBe('');
      expect(await reveal.isVisible()).toBe(false);

      // Keyboard only: focus the right answer of question 2 and press Enter.
      const q2right = questions.nth(1).getByRole('button', { name: /รอ 15 ได้ 7/ });
      await q2right.focus();
      await page.keyboard.press('Enter');
      await expect(questions.nth(1).locator('[data-klog-feedback]').textContent()).resolves.toMatch(
        /^✓ ถูกต้อง/,
      );
      expect(await questions.nth(1).locator('[data-klog-reveal]').isVisible()).toBe(false);

      await questions
        .nth(2)
        .getByRole('button', { name: /APPEND ที่ offset ใหม่/ })
        .click();
      // The wrap question: 1, not 0 and not a negative number.
      await questions.nth(3).locator('.klog-quiz__option').nth(3).click(); // "0": wrong
      await questions.nth(3).locator('.klog-quiz__option').nth(2).click(); // "1": right
      await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe(
        'ตอบครบแล้ว · ถูกตั้งแต่ครั้งแรก 2 จาก 4 ข้อ',
      );

      const reset = page.locator('[data-klog-reset]');
      await reset.click();
      await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe('');
      expect(await page.locator('.klog-quiz__option[aria-pressed="true"]').count()).toBe(0);
      expect(await page.locator('.klog-quiz__option[data-revealed]').count()).toBe(0);
      expect(await page.locator('[data-klog-question][data-result]').count()).toBe(0);
      expect(await page.locator('[data-klog-answer]').allTextContents()).toEqual(['', '', '', '']);
      expect(await reset.isVisible()).toBe(false);
      // Counted afresh after a reset.
      await q1.getByRole('button', { name: /สำเร็จ พร้อม offset/ }).click();
      await expect(page.locator('[data-klog-score]').textContent()).resolves.toBe('ตอบแล้ว 1 จาก 4 ข้อ');
    });

    it('opens the search with "/" (and not while typing), and finds the chapter', async () => {
      await page.locator('main').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('/');
      const dialog = page.locator('site-search dialog');
      await expect(dialog.evaluate((d) => (d as HTMLDialogElement).open)).resolves.toBe(true);
      const input = page.locator('#starlight__search input');
      await input.waitFor();
      await input.fill('idem/');
      // Typing "/" in the search box types it: the box keeps it.
      await expect(input.inputValue()).resolves.toBe('idem/');
      await input.fill('idempotent');
      await page.locator('#starlight__search .pagefind-ui__result-link').first().waitFor({ timeout: 15_000 });
      const hrefs = await page
        .locator('#starlight__search .pagefind-ui__result-link')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(hrefs.some((h) => h?.includes('/07-idem/'))).toBe(true);
      await page.keyboard.press('Escape');
    });
  });

  describe('on every screen, in both themes', () => {
    for (const width of WIDTHS) {
      for (const theme of THEMES) {
        it(`${width} px, ${theme}: nothing overflows unscrollably, diagrams are readable, screenshots saved`, async () => {
          page = await context.newPage();
          await open('/07-idem/', { width, theme });
          expect(await page.getAttribute('html', 'data-theme')).toBe(theme);

          // The page itself never scrolls sideways.
          const page_ = await page.evaluate(() => ({
            scroll: document.documentElement.scrollWidth,
            view: document.documentElement.clientWidth,
          }));
          expect(page_.scroll, 'page width').toBeLessThanOrEqual(page_.view);

          // No block or diagram sticks out of the viewport, nothing in one is cut off (a box that
          // hides or clips content wider than itself), and nothing in one reaches past the viewport
          // unless a scrolling box holds it.
          const problems = await page.$$eval(
            '[data-klog-kind], [data-klog-diagram], .sl-markdown-content table',
            (els, view) => {
              const out: string[] = [];
              const scrolls = (h: Element) => ['auto', 'scroll'].includes(getComputedStyle(h).overflowX);
              for (const el of els) {
                const name =
                  el.getAttribute('data-src') ?? el.getAttribute('data-klog-diagram') ?? el.tagName;
                const r = el.getBoundingClientRect();
                if (r.left < -0.5 || r.right > view + 0.5)
                  out.push(`${name}: spans ${r.left}..${r.right} of ${view}`);
                for (const inner of [el, ...el.querySelectorAll('*')]) {
                  const h = inner as HTMLElement;
                  const what = `<${h.tagName.toLowerCase()} class="${h.getAttribute('class') ?? ''}">`;
                  const overflow = getComputedStyle(h).overflowX;
                  // (A 1-px box is a screen-reader-only label, clipped on purpose.)
                  if (
                    h.clientWidth > 1 &&
                    h.scrollWidth > h.clientWidth + 1 &&
                    (overflow === 'hidden' || overflow === 'clip')
                  ) {
                    out.push(
                      `${name}: ${what} cuts off ${h.scrollWidth - h.clientWidth} px (overflow-x ${overflow})`,
                    );
                  }
                  let held = false;
                  for (let a = h.parentElement; a && a !== el.parentElement; a = a.parentElement) {
                    if (scrolls(a)) held = true;
                  }
                  const b = h.getBoundingClientRect();
                  if (!held && b.width > 0 && (b.left < -0.5 || b.right > view + 0.5)) {
                    out.push(`${name}: ${what} reaches ${b.left}..${b.right}, past the viewport (${view})`);
                  }
                }
              }
              return out;
            },
            page_.view,
          );
          expect(problems).toEqual([]);

          // Diagram text a phone can read: nothing under 12 px.
          const small = await page.$$eval('[data-klog-diagram] *', (els) =>
            els
              .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim() !== ''))
              .filter((e) => (e as HTMLElement).offsetParent !== null)
              .map((e) => ({
                text: e.textContent!.trim().slice(0, 30),
                size: parseFloat(getComputedStyle(e).fontSize),
              }))
              .filter((e) => e.size < 12),
          );
          expect(small).toEqual([]);

          if (theme === 'dark') {
            // No light panel in a dark page: every painted background in a diagram is dark.
            const light = await page.$$eval('[data-klog-diagram], [data-klog-diagram] *', (els) => {
              const lum = (c: string) => {
                const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(c);
                if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) return 0;
                const [r, g, b] = [m[1], m[2], m[3]].map((v) => Number(v) / 255) as [number, number, number];
                return 0.2126 * r + 0.7152 * g + 0.0722 * b;
              };
              return els
                .map((e) => ({ cls: (e as HTMLElement).className, bg: getComputedStyle(e).backgroundColor }))
                .filter((e) => lum(e.bg) > 0.6);
            });
            expect(light).toEqual([]);
          }

          const shot = async (selector: string, name: string) => {
            const el = page.locator(selector).first();
            await el.scrollIntoViewIfNeeded();
            const path = join(ARTIFACTS, `chapter-07-${width}-${theme}-${name}.png`);
            // Starlight's sticky header and the phone's "on this page" bar would cover a tall element.
            await el.screenshot({
              path,
              style: 'header.header, mobile-starlight-toc { visibility: hidden !important; }',
            });
            expect(existsSync(path)).toBe(true);
          };
          await shot('[data-klog-diagram="ack-loss"]', 'ack-loss');
          await shot('[data-klog-diagram="leo-hw-lso"]', 'leo-hw-lso');
          await shot(`[data-src="${WIDE_EXCERPT}"]`, 'wide-excerpt');
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: join(ARTIFACTS, `chapter-07-${width}-${theme}-top.png`) });
          await page.close();
        });
      }
    }
  });

  describe('the rest of the site', () => {
    beforeAll(async () => {
      page = await context.newPage();
    });

    it('has a favicon on every page', async () => {
      for (const path of ['/', '/07-idem/', '/performance/']) {
        await open(path);
        const href = await page.getAttribute('link[rel~="icon"]', 'href');
        expect(href, path).toBe('/favicon.svg');
      }
      const icon = await page.request.get(`${origin}/favicon.svg`);
      expect(icon.status()).toBe(200);
      expect(icon.headers()['content-type']).toContain('svg');
    });

    it('titles the home page once, and points no canonical link or sitemap at a host that is not the site', async () => {
      await open('/');
      const title = await page.title();
      expect(title).toContain('kaen-log');
      expect(title.split('kaen-log').length - 1).toBe(1);
      for (const path of ['/', '/07-idem/']) {
        await open(path);
        const canonical = await page.evaluate(
          () => document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? '',
        );
        expect(canonical, path).not.toMatch(/127\.0\.0\.1|localhost/);
      }
      expect(existsSync(join(realDist, 'sitemap-index.xml'))).toBe(false);
    });

    it('answers an unknown address with a 404 page that links back into the site', async () => {
      const response = await open('/no-such-page/');
      expect(response?.status()).toBe(404);
      await expect(page.locator('h1').first().textContent()).resolves.toContain('ไม่พบหน้านี้');
      const links = await page
        .locator('[data-klog-404-links] a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual(['/', '/07-idem/', '/getting-started/', '/performance/']);
      for (const link of links) {
        const target = await page.request.get(`${origin}${link}`);
        expect(target.status(), link!).toBe(200);
      }
    });

    it('gives the Performance page a Thai title, a chart readable on a phone, and tables that scroll', async () => {
      await open('/performance/', { width: 390 });
      await expect(page.locator('h1').first().textContent()).resolves.toMatch(/[\u0E00-\u0E7F]/);
      const chart = page.locator('main svg[role="img"]').first();
      const sizes = await chart.evaluate((svg) => {
        const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
      });
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
      const tables = await page.$$eval('.sl-markdown-content table', (ts) =>
        ts.map((t) => ({ wide: t.scrollWidth > t.clientWidth + 1, overflow: getComputedStyle(t).overflowX })),
      );
      for (const t of tables) if (t.wide) expect(t.overflow).toBe('auto');
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        ),
      ).toBe(true);
    });

    it('asked for nothing outside the site, and found every file it asked for', () => {
      expect(offsite).toEqual([]);
      expect(notFound.filter((u) => u !== '/no-such-page/')).toEqual([]);
    });
  });
});
