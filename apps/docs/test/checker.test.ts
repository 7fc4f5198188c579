// The checker on the real tree (green) and on broken copies of it (red): each way a lesson and
// its source can drift apart must fail, naming both places.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkExcerpts, type Finding } from '../excerpts/check.js';
import { type Fixture, makeFixture, realRoot, requireBuiltSite } from './fixture.js';

const LESSON = 'docs/07-idem.mdx';
const VERDICT = 'packages/core/src/verdict.ts';
const GOLDEN = 'expected/07-idem.txt';
const CHAPTER_HTML = 'apps/docs/dist/07-idem/index.html';

const errors = (findings: readonly Finding[]) => findings.filter((f) => f.level === 'error');
const warnings = (findings: readonly Finding[]) => findings.filter((f) => f.level === 'warning');

describe('the real tree', () => {
  it('passes: every built block equals its source bytes, golden files equal the CLI', () => {
    requireBuiltSite();
    const result = checkExcerpts({ root: realRoot });
    expect(errors(result.findings)).toEqual([]);
    // The chapter really is made of excerpts: at least one per region kind the lesson needs.
    expect(result.stats.blocks).toBeGreaterThanOrEqual(20);
    expect(result.stats.blocks).toBe(result.stats.references);
  });

  it('lists regions no lesson references, as warnings', () => {
    const result = checkExcerpts({ root: realRoot, golden: false });
    const unreferenced = warnings(result.findings).filter((f) => f.message.includes('not referenced'));
    // append-idempotent is shown only through its fragment append-head.
    expect(unreferenced.map((f) => f.message)).toContain(
      'region "append-idempotent" is not referenced by any lesson',
    );
  });
});

describe('red paths, on a copy of the tree', () => {
  let fx: Fixture;
  beforeEach(() => {
    fx = makeFixture();
  });
  afterEach(() => fx.remove());

  it('the copy itself is green (so every failure below comes from its one edit)', () => {
    expect(errors(checkExcerpts({ root: fx.root }).findings)).toEqual([]);
  });

  it('a source region edited without rebuilding the lesson fails, naming both places, with a diff', () => {
    fx.edit(
      VERDICT,
      '  if (firstSeq === expected) return APPEND;\n',
      '  if (firstSeq === expected && lastSeq >= firstSeq) return APPEND;\n',
    );
    const lessonLine = fx.lineOf(LESSON, 'region="judge"');
    const sourceLine = fx.lineOf(VERDICT, 'if (firstSeq === expected');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    const [e] = found;
    expect(e!.where).toBe(`${LESSON}:${lessonLine} ⇄ ${VERDICT}:${sourceLine}`);
    expect(e!.message).toContain('region "judge"');
    expect(e!.detail).toContain(`--- built HTML ${CHAPTER_HTML} (${LESSON}:${lessonLine})`);
    expect(e!.detail).toContain(`+++ ${VERDICT}:31-54`);
    expect(e!.detail).toContain('-  if (firstSeq === expected) return APPEND;');
    expect(e!.detail).toContain('+  if (firstSeq === expected && lastSeq >= firstSeq) return APPEND;');
  });

  it('a golden file edited by hand fails twice: against the CLI, and against the built block', () => {
    fx.edit(GOLDEN, 'log end offset   10 (เท่าเดิม)\nsegment', 'log end offset   11 (เท่าเดิม)\nsegment');
    const goldenLine = fx.lineOf(GOLDEN, 'log end offset   11');
    const lessonLine = fx.lineOf(LESSON, 'section="ack หายระหว่างทาง');
    const found = errors(checkExcerpts({ root: fx.root }).findings);
    const cli = found.find((f) => f.where === 'expected/');
    expect(cli?.message).toContain('differs from what the CLI prints now');
    expect(cli?.detail).toContain('DIFFERS   expected/07-idem.txt');
    expect(cli?.detail).toContain('-log end offset   11 (เท่าเดิม)');
    expect(cli?.detail).toContain('+log end offset   10 (เท่าเดิม)');
    const block = found.find((f) => f.where === `${LESSON}:${lessonLine} ⇄ ${GOLDEN}:${goldenLine}`);
    expect(block?.message).toContain('section "== ack หายระหว่างทาง: producer ส่ง 7..9 ซ้ำ =="');
    expect(found).toHaveLength(2);
  });

  it('an unclosed region fails at its marker (and the lesson that needs it fails too)', () => {
    fx.edit(VERDICT, '// #endregion judge\n', '');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toContainEqual({
      level: 'error',
      where: `${VERDICT}:30`,
      message: 'region "judge" is never closed (add "// #endregion judge")',
    });
    const lessonLine = fx.lineOf(LESSON, 'region="judge"');
    expect(
      found.some(
        (f) => f.where === `${LESSON}:${lessonLine} ⇄ ${VERDICT}` && f.message.includes('no region "judge"'),
      ),
    ).toBe(true);
  });

  it('a mismatched end marker fails', () => {
    fx.edit(VERDICT, '// #endregion judge\n', '// #endregion verdict\n');
    const messages = errors(checkExcerpts({ root: fx.root, golden: false }).findings).map(
      (f) => `${f.where} ${f.message}`,
    );
    expect(messages).toContain(
      `${VERDICT}:55 "// #endregion verdict" does not match the innermost open region "judge" (opened at line 30)`,
    );
  });

  it('a duplicated region name fails', () => {
    fx.edit(VERDICT, '// #region judge\n', '// #region verdict\n');
    fx.edit(VERDICT, '// #endregion judge\n', '// #endregion verdict\n');
    const messages = errors(checkExcerpts({ root: fx.root, golden: false }).findings).map(
      (f) => `${f.where} ${f.message}`,
    );
    expect(messages).toContain(`${VERDICT}:30 region "verdict" is opened again (first opened at line 4)`);
  });

  it('a malformed marker fails instead of being ignored', () => {
    fx.edit(VERDICT, '// #region judge\n', '//#region judge\n');
    const messages = errors(checkExcerpts({ root: fx.root, golden: false }).findings).map(
      (f) => `${f.where} ${f.message}`,
    );
    expect(
      messages.some((m) => m.startsWith(`${VERDICT}:30 malformed region marker "//#region judge"`)),
    ).toBe(true);
  });

  it('a region that cuts a declaration in half fails unless it says fragment', () => {
    const file = 'packages/storage/src/idempotent-append.ts';
    fx.edit(file, '// #region append-head fragment\n', '// #region append-head\n');
    fx.edit(file, '// #endregion append-head fragment\n', '// #endregion append-head\n');
    const marker = fx.lineOf(file, '// #region append-head');
    const start = fx.lineOf(file, 'export function appendIdempotent(');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    const messages = found.map((f) => `${f.where} ${f.message}`);
    const cut = messages.find((m) =>
      m.startsWith(`${file}:${marker} region "append-head" cuts function appendIdempotent`),
    );
    expect(cut).toMatch(
      new RegExp(
        `\\(lines ${start}-\\d+\\) in half; mark it "// #region append-head fragment" if that is meant$`,
      ),
    );
  });

  it('a lesson that references a missing region fails closed, naming both places (mdBook would include nothing)', () => {
    fx.edit(LESSON, 'region="judge" />', 'region="judge-typo" />');
    const lessonLine = fx.lineOf(LESSON, 'region="judge-typo"');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toContainEqual({
      level: 'error',
      where: `${LESSON}:${lessonLine} ⇄ ${VERDICT}`,
      message: `no region "judge-typo" in ${VERDICT} (regions here: verdict, judge)`,
    });
  });

  it('a lesson that references a missing file or golden section fails', () => {
    fx.edit(
      LESSON,
      'file="packages/core/src/sequence.ts" region="in-sequence"',
      'file="packages/core/src/seq.ts" region="in-sequence"',
    );
    fx.edit(LESSON, 'section="การส่งมีสามความหมาย"', 'section="การส่งมีสี่ความหมาย"');
    const messages = errors(checkExcerpts({ root: fx.root, golden: false }).findings).map((f) => f.message);
    expect(messages).toContain('references packages/core/src/seq.ts, which does not exist');
    expect(messages.some((m) => m.startsWith(`no section "== การส่งมีสี่ความหมาย ==" in ${GOLDEN}`))).toBe(true);
  });

  it('a block whose HTML text was altered fails, compared with entities decoded', () => {
    // The in-sequence block holds "&&", which the HTML carries as &#x26;&#x26;: decoding is what makes the copy green.
    const html = fx.read(CHAPTER_HTML);
    const at = html.indexOf('data-src="packages/core/src/sequence.ts#in-sequence"');
    const amp = html.indexOf('&#x26;&#x26;', at);
    expect(at).toBeGreaterThan(0);
    expect(amp).toBeGreaterThan(at);
    fx.write(CHAPTER_HTML, html.slice(0, amp) + html.slice(amp).replace('&#x26;&#x26;', '&#x26;'));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.where).toMatch(/^docs\/07-idem\.mdx:\d+ ⇄ packages\/core\/src\/sequence\.ts:31$/);
    expect(found[0]!.detail).toContain(
      '-  return next === last + 1 || (next === 0 & last === MAX_SEQUENCE);',
    );
    expect(found[0]!.detail).toContain(
      '+  return next === last + 1 || (next === 0 && last === MAX_SEQUENCE);',
    );
  });

  it('a code block pasted into a chapter fails', () => {
    const html = fx.read(CHAPTER_HTML);
    const content = '<div class="sl-markdown-content">';
    expect(html.split(content)).toHaveLength(2);
    fx.write(CHAPTER_HTML, html.replace(content, `${content}<pre><code>const pasted = true;</code></pre>`));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('"const pasted = true;"');
    expect(found[0]!.where).toBe(`${LESSON} ⇄ ${CHAPTER_HTML}`);
  });

  it('a lesson edited without rebuilding the site fails (its blocks no longer line up)', () => {
    fx.edit(
      LESSON,
      "import { Diagram, Excerpt, Quiz, RunOutput } from '@lesson';\n",
      "import { Diagram, Excerpt, Quiz, RunOutput } from '@lesson';\n\n",
    );
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => /rebuild it/.test(f.message))).toBe(true);
  });

  it('without a built site it fails rather than passing on nothing', () => {
    const found = errors(
      checkExcerpts({ root: fx.root, dist: 'apps/docs/no-such-dist', golden: false }).findings,
    );
    expect(found.map((f) => f.message)).toContain(
      'no built site here: build it first (pnpm check:excerpts builds it; or pnpm --filter @klog/docs build)',
    );
  });

  it('the command exits 1 and prints both places and the diff', () => {
    fx.edit(
      VERDICT,
      '  if (firstSeq === expected) return APPEND;\n',
      '  if (firstSeq == expected) return APPEND;\n',
    );
    const run = spawnSync(
      join(realRoot, 'apps/docs/node_modules/.bin/tsx'),
      [join(realRoot, 'apps/docs/excerpts/cli.ts'), '--root', fx.root, '--no-golden'],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^✗ docs\/07-idem\.mdx:\d+ ⇄ packages\/core\/src\/verdict\.ts:52$/m);
    expect(run.stderr).toContain('+  if (firstSeq == expected) return APPEND;');
    expect(run.stderr).toMatch(/check:excerpts: FAIL · 1 error\(s\)/);
  });
});
