// Every page of the built site at 390×844, as a phone shows it: no code block and no table is cut at the
// screen edge without a way to read the rest. A code block wraps (its text fits its box), unless it is a
// run output laid out as a table, which scrolls sideways under its own "scroll sideways" hint. A table
// that is wider than its box scrolls, with the edge shadow that says so (a phone shows no scrollbar).
// And the home page's secondary links look like links.
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { realDist, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the phone layout test cannot run'); // throws when CI is set

/** Every page the build wrote: each folder's index.html, as its path on the site. */
function sitePages(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'index.html') {
        const folder = relative(realDist, dir).split(sep).join('/');
        found.push(folder === '' ? '/' : `/${folder}/`);
      }
    }
  };
  walk(realDist);
  return found.sort();
}

interface Cut {
  readonly what: string;
  readonly content: number;
  readonly box: number;
  readonly why: string;
}

/** The code blocks and tables of the page's content that hide part of themselves with no way to see it. */
async function cutBlocks(page: Page): Promise<Cut[]> {
  return page.evaluate(() => {
    const cut: Cut[] = [];
    const viewport = document.documentElement.clientWidth;
    for (const el of document.querySelectorAll<HTMLElement>('main pre, main table')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const style = getComputedStyle(el);
      const what = `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      const wider = el.scrollWidth > el.clientWidth + 1;
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      const row = { what, content: el.scrollWidth, box: el.clientWidth };
      if (box.right > viewport + 0.5) {
        cut.push({ ...row, why: `its box ends at ${Math.round(box.right)} px, past the screen` });
        continue;
      }
      if (!wider) continue;
      if (!scrolls) {
        cut.push({ ...row, why: `overflow-x ${style.overflowX}: the rest is cut` });
        continue;
      }
      if (el.tagName === 'PRE') {
        const output = el.closest('.klog-output[data-klog-layout="table"]');
        const hint = output?.querySelector<HTMLElement>('.klog-block__hint');
        if (hint === null || hint === undefined || hint.getBoundingClientRect().height === 0)
          cut.push({ ...row, why: 'a code block that neither wraps nor says it scrolls' });
      } else if (!style.backgroundImage.includes('gradient')) {
        cut.push({ ...row, why: 'a table that scrolls with no edge shadow to say so' });
      }
    }
    return cut;
  });
}

describe.skipIf(!haveChromium)('every page at 390×844', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    requireBuiltSite();
    const files = sirv(realDist, { dev: false, etag: true });
    server = createServer((req, res) =>
      files(req, res, () => {
        res.writeHead(404);
        res.end();
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

  async function open(path: string): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: 'th-TH',
      hasTouch: true,
      isMobile: true,
    });
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    return page;
  }

  it('the build has the pages the course names', () => {
    expect(sitePages()).toEqual(
      expect.arrayContaining([
        '/',
        '/07-idem/',
        '/getting-started/',
        '/lab/',
        '/performance/',
        '/simulator/',
      ]),
    );
  });

  it('no code block or table is cut without a wrap or a scroll the reader can see', async () => {
    const found: Record<string, Cut[]> = {};
    for (const path of sitePages()) {
      const page = await open(path);
      // Nothing sticks out of the screen either: the page itself never scrolls sideways.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, path).toBeLessThanOrEqual(390);
      const cut = await cutBlocks(page);
      if (cut.length > 0) found[path] = cut;
      await page.context().close();
    }
    expect(found).toEqual({});
  });

  it("the home page's secondary links are underlined, as links are", async () => {
    const page = await open('/');
    const links = await page
      .locator('.hero .sl-link-button.minimal')
      .evaluateAll((els) => els.map((a) => getComputedStyle(a).textDecorationLine));
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const decoration of links) expect(decoration).toContain('underline');
    await page.context().close();
  });
});
