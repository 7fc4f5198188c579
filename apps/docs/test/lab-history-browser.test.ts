// A failed `klog lab check` replayed in the simulator: the real built CLI checks a negative fixture in a
// temporary folder and leaves klog-lab-history.json beside it; Chromium (Debian's, through playwright-core)
// opens the simulator page of the built site on loopback at 390 px, picks that file with the control the
// report names, and finds the stage's sends on the timeline and the log as written, the duplicate marked.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../excerpts/chromium.js';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const haveChromium = existsSync(chromiumPath);
if (!haveChromium) missingChromium('the browser test of the lab history cannot run'); // throws when CI is set

const PHONE = { width: 390, height: 844 };
const bin = join(realRoot, 'packages/cli/dist/bin.js');

interface History {
  stage: string;
  summary: string;
  sends: { who: string; seq: string; answer: string }[];
  log: { offsets: string; who: string; seq: string }[];
}

describe.skipIf(!haveChromium)('a failed lab stage, opened in the simulator', () => {
  let server: Server;
  let browser: Browser;
  let origin: string;
  const dir = mkdtempSync(join(tmpdir(), 'klog-lab-history-'));
  let stdout = '';

  beforeAll(async () => {
    requireBuiltSite();
    if (!existsSync(bin)) throw new Error(`${bin} is missing: build @klog/cli first`);
    // The window that appends before it judges: the resent batch is answered DUPLICATE and still written.
    copyFileSync(
      join(realRoot, 'packages/cli/test/lab-fixtures/appends-before-judging.ts'),
      join(dir, 'lab.ts'),
    );
    const run = spawnSync(process.execPath, [bin, 'lab', 'check', join(dir, 'lab.ts'), '--seed', '3'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.status).toBe(1);
    stdout = run.stdout;
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
    rmSync(dir, { recursive: true, force: true });
  });

  it("draws the file the report names: the sends on the timeline, the log's batches, the duplicate marked", async () => {
    const path = join(dir, 'klog-lab-history.json');
    expect(stdout).toContain(`ดูบน timeline  ${path}`);
    const history = JSON.parse(readFileSync(path, 'utf8')) as History;
    // The control the report tells the learner to use, by its label on the page.
    const label = /› (.+)\)$/m.exec(stdout)![1]!;

    const context = await browser.newContext({ viewport: PHONE, locale: 'th-TH', hasTouch: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/simulator/`, { waitUntil: 'load' });
    const panel = page.locator('[data-klog-sim] [data-sim-lab]').first();
    await panel.locator('summary', { hasText: label }).click();
    await panel.locator('[data-sim-lab-file]').setInputFiles(path);

    const timeline = panel.locator('[data-sim-lab-timeline] li');
    await expect.poll(() => timeline.count()).toBe(history.sends.length);
    const lines = await timeline.allTextContents();
    expect(lines).toEqual(history.sends.map((s) => `${s.who} · seq ${s.seq} → ${s.answer}`));
    expect(lines.at(-1)).toContain('DUPLICATE');
    await expect(panel.locator('[data-sim-lab-title]').textContent()).resolves.toContain(
      `stage ${history.stage} · seed 3`,
    );
    await expect(panel.locator('[data-sim-lab-summary]').textContent()).resolves.toBe(history.summary);

    const rows = panel.locator('[data-sim-lab-log] tr');
    expect(await rows.count()).toBe(history.log.length);
    // The resent batch's second write, marked where the learner looks.
    const repeat = panel.locator('[data-sim-lab-log] tr[data-sim-lab-repeat]');
    expect(await repeat.count()).toBe(1);
    const last = history.sends.at(-1)!;
    await expect(repeat.locator('td').nth(2).textContent()).resolves.toBe(`${last.seq} (ซ้ำ)`);
    await expect(repeat.isVisible()).resolves.toBe(true);
    // A changed field of the check is marked too.
    expect(await panel.locator('[data-sim-lab-rows] tr[data-sim-lab-wrong]').count()).toBeGreaterThan(0);

    // Nothing runs off a phone's screen once it is drawn.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses a file that is not a lab history, in one line', async () => {
    const context = await browser.newContext({ viewport: PHONE, locale: 'th-TH' });
    const page = await context.newPage();
    await page.goto(`${origin}/simulator/`, { waitUntil: 'load' });
    const panel = page.locator('[data-klog-sim] [data-sim-lab]').first();
    await panel.locator('summary').click();
    await panel
      .locator('[data-sim-lab-file]')
      .setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"version":9}') });
    await expect
      .poll(() => panel.locator('[data-sim-lab-error]').textContent())
      .toBe('x.json: รุ่นของ file คือ 9 หน้านี้อ่านรุ่น 1');
    await expect(panel.locator('[data-sim-lab-view]').isHidden()).resolves.toBe(true);
    await context.close();
  });
});
