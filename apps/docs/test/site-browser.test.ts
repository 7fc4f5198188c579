// The rest of the site as a reader meets it, in Chromium at 390×844 (touch) and 1280×800, light and
// dark: home has a menu, a theme switch and the simulator; search answers with the chapter, not the
// code frames' labels; the Performance page is Thai, fits 1280 without sideways tables and draws its
// chart text large enough on a phone; getting started says what Chromium is for and its copy button
// leaves the command readable; source pages link back to the lesson; the 404 page offers the
// simulator and no keyboard advice to a phone; no text under 4.5:1 in either theme; one word for
// "file" and "byte". A screenshot of each page's top goes to artifacts/site/<page>-<width>-<theme>.png.
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
if (!haveChromium) missingChromium('the browser test of the site cannot run'); // throws when CI is set

const ARTIFACTS = join(realRoot, 'artifacts', 'site');
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;
const THEMES = ['light', 'dark'] as const;
const PAGES = [
  '/',
  '/07-idem/',
  '/simulator/',
  '/getting-started/',
  '/performance/',
  '/source/packages/core/src/verdict.ts/',
  '/no-such-page/',
];

/**
 * Text whose colour against its background is under WCAG AA (4.5:1), as the page paints it: the
 * site's prose and interface, not the syntax colours inside code blocks (the highlighter theme's).
 */
async function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const parse = (c: string) => (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number);
    const channel = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    const luminance = ([r, g, b]: number[]) =>
      0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!);
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if ((c[3] ?? 1) > 0.5) return c;
      }
      return [255, 255, 255];
    };
    const found = new Map<string, string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || !n.textContent?.trim() || seen.has(el)) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      if (style.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
      // Syntax colours inside code are the highlighter theme's, not the site's (see the report).
      if (el.closest('.sr-only, svg, [aria-hidden="true"], [hidden], dialog:not([open]), pre')) continue;
      const fg = parse(style.color);
      const bg = background(el);
      const a = fg[3] ?? 1;
      const mixed = fg.slice(0, 3).map((v, i) => v * a + bg[i]! * (1 - a));
      const l1 = luminance(mixed);
      const l2 = luminance(bg);
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      if (ratio < 4.5)
        found.set(
          `${style.color} on rgb(${bg.slice(0, 3).join(', ')})`,
          `${ratio.toFixed(2)}:1 "${n.textContent.trim().slice(0, 30)}"`,
        );
    }
    return [...found].map(([k, v]) => `${v} ${k}`);
  });
}

describe.skipIf(!haveChromium)('the rest of the site in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const offsite: string[] = [];

  beforeAll(async () => {
    requireBuiltSite();
    mkdirSync(ARTIFACTS, { recursive: true });
    const files = sirv(realDist, { dev: false, etag: true });
    const notFound = await import('node:fs').then((fs) => fs.readFileSync(join(realDist, '404.html')));
    server = createServer((req, res) =>
      files(req, res, () => {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(notFound);
      }),
    );
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
  ): Promise<Page> {
    const phone = viewport.width < 600;
    const context = await browser.newContext({ viewport, locale: 'th-TH', hasTouch: phone, isMobile: phone });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      offsite.push(url);
      return route.abort();
    });
    await context.addInitScript((t) => localStorage.setItem('starlight-theme', t), theme);
    const page = await context.newPage();
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    return page;
  }

  for (const viewport of VIEWPORTS) {
    for (const theme of THEMES) {
      describe(`${viewport.width}×${viewport.height}, ${theme}`, () => {
        const phone = viewport.width < 600;

        it('every page: no text under 4.5:1, one word for file and byte, and a screenshot (17)', async () => {
          for (const path of PAGES) {
            const page = await open(path, viewport, theme);
            await expect(lowContrast(page), path).resolves.toEqual([]);
            // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
            const text = await page.locator('main').innerText();
            expect(text, path).not.toMatch(/ไฟล์|ไบต์/);
            const name = path === '/' ? 'home' : path.replaceAll('/', ' ').trim().replaceAll(' ', '-');
            await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport.width}-${theme}.png`) });
            await page.context().close();
          }
        });

        it('home: a menu and a theme switch, and a link to the simulator (14)', async () => {
          const page = await open('/', viewport, theme);
          const simulator = page.locator('main a[href="/simulator/"]');
          expect(await simulator.count()).toBeGreaterThan(0);
          await expect(simulator.first().isVisible()).resolves.toBe(true);
          if (phone) {
            const menu = page.locator('starlight-menu-button button');
            await expect(menu.isVisible()).resolves.toBe(true);
            await menu.click();
            await expect(
              page.locator('#starlight__sidebar a[href="/simulator/"]').first().isVisible(),
            ).resolves.toBe(true);
          }
          const themes = page.locator('starlight-theme-select select');
          const visible = await themes.evaluateAll((els) =>
            els.some((e) => e.getBoundingClientRect().width > 0),
          );
          expect(visible).toBe(true);
          await page.context().close();
        });

        it('search: "กันซ้ำ" puts the chapter first; "หน้าต่าง" finds no code-frame label (15)', async () => {
          const page = await open('/getting-started/', viewport, theme);
          const input = page.locator('#starlight__search input');
          // Starlight builds Pagefind's input only when the page first goes idle (requestIdleCallback), which on
          // a busy 2-core machine can come well after 'load': wait for the input itself, not Playwright's 30 s.
          await input.waitFor({ state: 'attached', timeout: 120_000 });
          const search = async (term: string) => {
            await page.locator('site-search button[data-open-modal]').first().click();
            await input.fill(term);
            const results = page.locator('#starlight__search .pagefind-ui__result');
            await results.first().waitFor({ state: 'visible', timeout: 20_000 });
            // Pagefind fills results in as it reads them: wait until it says how many it found.
            await expect
              .poll(async () => page.locator('#starlight__search .pagefind-ui__message').textContent(), {
                timeout: 20_000,
              })
              .toMatch(/พบ/);
            const read = () =>
              results.evaluateAll((els) =>
                els.map((e) => ({
                  href: e.querySelector('a.pagefind-ui__result-link')?.getAttribute('href') ?? '',
                  text: e.textContent ?? '',
                })),
              );
            // A result is drawn as a placeholder first, its link filled in when its fragment loads.
            await expect
              .poll(async () => (await read()).every((r) => r.href !== ''), { timeout: 20_000 })
              .toBe(true);
            const found = await read();
            await page.keyboard.press('Escape');
            return found;
          };
          const dedup = await search('กันซ้ำ');
          expect(dedup[0]?.href).toMatch(/^\/07-idem\//);
          const window = await search('หน้าต่าง');
          for (const r of window) expect(r.text, r.href).not.toContain('หน้าต่าง terminal');
          await page.context().close();
        });

        it('Performance: Thai, no table scrolls sideways at 1280, chart text 12 px or more (16)', async () => {
          const page = await open('/performance/', viewport, theme);
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
          const text = await page.locator('main').innerText();
          for (const english of [
            'both check the CRC',
            'per batch',
            'no flush',
            'batches of',
            'faster than',
            'of raw write',
            'computed once',
            'full run',
            'short run',
          ]) {
            expect(text).not.toContain(english);
          }
          if (!phone) {
            const wide = await page
              .locator('main table')
              .evaluateAll((ts) => ts.filter((t) => t.scrollWidth > t.clientWidth + 1).length);
            expect(wide).toBe(0);
          }
          const sizes = await page.locator('svg.klog-chart').evaluateAll((svgs) =>
            svgs.flatMap((svg) => {
              const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
              return [...svg.querySelectorAll('text')].map(
                (t) =>
                  Number.parseFloat(t.getAttribute('font-size') ?? svg.getAttribute('font-size') ?? '0') *
                  scale,
              );
            }),
          );
          expect(sizes.length).toBeGreaterThan(0);
          expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
          // Every chart label stays inside its chart.
          const cut = await page.locator('svg.klog-chart').evaluateAll((svgs) =>
            svgs.flatMap((svg) => {
              const box = svg.getBoundingClientRect();
              return [...svg.querySelectorAll('text')]
                .filter((t) => {
                  const r = t.getBoundingClientRect();
                  return r.left < box.left - 0.5 || r.right > box.right + 0.5;
                })
                .map((t) => t.textContent);
            }),
          );
          expect(cut).toEqual([]);
          await page
            .locator('svg.klog-chart')
            .first()
            .screenshot({
              path: join(ARTIFACTS, `performance-chart-${viewport.width}-${theme}.png`),
            });
          await page.context().close();
        });

        it('getting started: says what Chromium is for; the copy button leaves the command readable (17)', async () => {
          const page = await open('/getting-started/', viewport, theme);
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, with CSS applied: what a reader sees
          const text = await page.locator('main').innerText();
          expect(text).not.toContain('SVG');
          expect(text).toContain('HTML กับ CSS');
          const covered = await page.locator('.expressive-code .frame').evaluateAll((frames) =>
            frames.flatMap((frame) => {
              const button = frame.querySelector('.copy button');
              if (!button) return [];
              const b = button.getBoundingClientRect();
              if (b.width === 0 || getComputedStyle(button).opacity === '0') return [];
              return [...frame.querySelectorAll('.ec-line')]
                .map((line) => {
                  const range = document.createRange();
                  range.selectNodeContents(line);
                  return [...range.getClientRects()].filter(
                    (r) =>
                      r.width > 0 &&
                      r.left < b.right &&
                      r.right > b.left &&
                      r.top < b.bottom &&
                      r.bottom > b.top,
                  ).length > 0
                    ? line.textContent
                    : undefined;
                })
                .filter((t) => t !== undefined);
            }),
          );
          expect(covered).toEqual([]);
          await page.context().close();
        });

        it('a source page links back to the lesson, to the very excerpt (17)', async () => {
          const page = await open('/source/packages/core/src/verdict.ts/', viewport, theme);
          const back = page.locator('[data-klog-quoted-in] a[href^="/07-idem/#excerpt-"]');
          expect(await back.count()).toBeGreaterThanOrEqual(2);
          await expect(page.locator('[data-klog-quoted-in] a[href="/07-idem/"]').isVisible()).resolves.toBe(
            true,
          );
          const href = (await back.first().getAttribute('href')) ?? '';
          await back.first().click();
          await page.waitForURL(`**${href}`);
          await expect(page.locator(`#${href.split('#')[1]}[data-klog-kind="region"]`).count()).resolves.toBe(
            1,
          );
          await page.context().close();
        });

        it('the 404 page offers the simulator, and tells only keyboards about "/" (17)', async () => {
          const page = await open('/no-such-page/', viewport, theme);
          await expect(page.locator('[data-klog-404-links] a[href="/simulator/"]').isVisible()).resolves.toBe(
            true,
          );
          const kbd = page.locator('main kbd');
          await expect(kbd.isVisible()).resolves.toBe(!phone);
          await page.context().close();
        });
      });
    }
  }

  it('asked for nothing outside the site', () => {
    expect(offsite).toEqual([]);
  });
});
