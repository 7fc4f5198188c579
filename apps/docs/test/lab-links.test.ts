// Every "reread" the lab gives lands on a heading that exists on the built site: the real CLI's report
// for each stage (the starter run one stage at a time, so every stage fails and names its section), and
// the lab page's stage table. An anchor that names no heading would open the chapter at its top.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDist, realRoot, requireBuiltSite } from './fixture.js';

const bin = join(realRoot, 'packages/cli/dist/bin.js');
const STAGES = [
  'first-append',
  'duplicate',
  'gap',
  'partial-overlap',
  'eviction',
  'epoch',
  'wrap',
  'rebuild',
  'model',
  'broker',
];

/** The ids of a built page's elements, decoded as a browser matches a fragment against them. */
function idsOf(page: string): Set<string> {
  const html = readFileSync(join(realDist, page, 'index.html'), 'utf8');
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
}

describe("the lab's reread links", () => {
  requireBuiltSite();
  const chapter = idsOf('07-idem');

  it('the report of every stage points at a heading of the chapter on the site', () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: build @klog/cli first`);
    const help = spawnSync(process.execPath, [bin, 'lab', 'check', '--help'], { encoding: 'utf8' });
    // The stages the CLI has are the ones this test walks.
    expect(/\(([a-z-]+(?:, [a-z-]+)+)\)/.exec(help.stdout)?.[1]?.split(', ')).toEqual(STAGES);
    const starter = join(realRoot, 'packages/cli/lab/starter.ts');
    for (const stage of STAGES) {
      const run = spawnSync(
        process.execPath,
        [bin, 'lab', 'check', starter, '--stage', stage, '--seed', '1', '--no-save'],
        { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      );
      expect(run.status, `${stage}: ${run.stderr}`).toBe(1);
      const heading = /^ {4}อ่านทวน {2}docs\/07-idem\.mdx § (.+)$/m.exec(run.stdout)?.[1];
      const link = /^ {13}บนเว็บบทเรียน (\S+)$/m.exec(run.stdout)?.[1];
      expect(link, `${stage} prints the section's address`).toMatch(/^\/07-idem\/#/);
      const id = decodeURIComponent(link!.split('#')[1]!);
      expect(chapter.has(id), `${stage}: #${id} (${heading}) is a heading of /07-idem/`).toBe(true);
      // The anchor is that heading's, not another's.
      const html = readFileSync(join(realDist, '07-idem/index.html'), 'utf8');
      const text = new RegExp(`<h[23] id="${id}">([^<]+)<`).exec(html)?.[1];
      expect(text?.trim()).toBe(heading);
    }
  });

  it("the lab page's stage table links to headings that exist", () => {
    const html = readFileSync(join(realDist, 'lab/index.html'), 'utf8');
    const links = [...html.matchAll(/href="\/07-idem\/#([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
    expect(links.length).toBeGreaterThanOrEqual(STAGES.length);
    for (const id of links) expect(chapter.has(id), `#${id}`).toBe(true);
  });
});
