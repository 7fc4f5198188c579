// The checker on the real tree (green) and on broken copies of it (red): each way a lesson and
// its source can drift apart must fail, naming both places.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkExcerpts, type Finding } from '../excerpts/check.js';
import { checkOverlap } from '../excerpts/overlap.js';
import { type Fixture, makeFixture, makeMiniSite, realRoot, requireBuiltSite } from './fixture.js';

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

  it('has no region that no lesson references (append-idempotent and append-batch were resolved)', () => {
    const result = checkExcerpts({ root: realRoot, golden: false });
    expect(warnings(result.findings)).toEqual([]);
  });

  it("has no run of 30 or more characters of Thai prose in common with the user's chapter, when the chapter is here", () => {
    const overlap = checkOverlap({ root: realRoot, dist: 'apps/docs/dist' });
    if (overlap.status === 'skipped') {
      console.warn(`overlap: SKIPPED (not passed): ${overlap.reason}`);
      return;
    }
    expect(overlap.runs.map((r) => `${r.where}: ${r.text}`)).toEqual([]);
    // Every built page and both golden files were measured.
    const measured = overlap.texts.map((t) => t.where);
    expect(measured).toContain('apps/docs/dist/07-idem/index.html');
    expect(measured).toContain('expected/07-idem.txt');
    expect(measured).toContain('expected/07-idem-pid42.txt');
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
    // The excerpt, and the whole-file page the excerpt links to: both are stale now.
    expect(found).toHaveLength(2);
    const page = found.find((f) => f.where.startsWith('apps/docs/dist/source/'));
    expect(page?.where).toBe(`apps/docs/dist/source/${VERDICT}/index.html ⇄ ${VERDICT}:${sourceLine}`);
    expect(page?.message).toBe(`the page of ${VERDICT} differs from the file now: rebuild the site`);
    const e = found.find((f) => f.where.startsWith(LESSON));
    expect(e!.where).toBe(`${LESSON}:${lessonLine}:1 ⇄ ${VERDICT}:${sourceLine}`);
    expect(e!.message).toContain('region "judge"');
    expect(e!.detail).toContain(`--- built HTML ${CHAPTER_HTML} (${LESSON}:${lessonLine}:1)`);
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
    const block = found.find((f) => f.where === `${LESSON}:${lessonLine}:1 ⇄ ${GOLDEN}:${goldenLine}`);
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
        (f) =>
          f.where === `${LESSON}:${lessonLine}:1 ⇄ ${VERDICT}` && f.message.includes('no region "judge"'),
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
    const file = 'packages/storage/src/partition/partition.ts';
    fx.edit(file, '// #region append-head fragment\n', '// #region append-head\n');
    fx.edit(file, '// #endregion append-head fragment\n', '// #endregion append-head\n');
    const marker = fx.lineOf(file, '// #region append-head');
    const start = fx.lineOf(
      file,
      '  append(request: AppendRequest, options: AppendOptions = {}): AppendResult {',
    );
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    const messages = found.map((f) => `${f.where} ${f.message}`);
    const cut = messages.find((m) =>
      m.startsWith(`${file}:${marker} region "append-head" cuts method append`),
    );
    expect(cut).toMatch(
      new RegExp(
        `\\(lines ${start}-\\d+\\) in half; mark it "// #region append-head fragment" if that is meant$`,
      ),
    );
  });

  it('a lesson that references a missing region fails closed, naming both places (mdBook would include nothing)', () => {
    fx.edit(LESSON, 'region="judge">', 'region="judge-typo">');
    const lessonLine = fx.lineOf(LESSON, 'region="judge-typo"');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toContainEqual({
      level: 'error',
      where: `${LESSON}:${lessonLine}:1 ⇄ ${VERDICT}`,
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
    expect(found[0]!.where).toMatch(/^docs\/07-idem\.mdx:\d+:1 ⇄ packages\/core\/src\/sequence\.ts:31$/);
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
    // A blank line after the components' import moves every block down one line.
    const importLine = fx
      .read(LESSON)
      .split('\n')
      .find((l) => l.endsWith("from '@lesson';"))!;
    const imports = `${importLine}\n`;
    fx.edit(LESSON, imports, `${imports}\n`);
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
    expect(run.stderr).toMatch(/^✗ docs\/07-idem\.mdx:\d+:1 ⇄ packages\/core\/src\/verdict\.ts:52$/m);
    expect(run.stderr).toContain('+  if (firstSeq == expected) return APPEND;');
    expect(run.stderr).toMatch(/check:excerpts: FAIL · 2 error\(s\)/);
  });
  // The four ways the checker used to pass wrongly, each reproduced, each red now.

  it('1. a run-output block relabelled as a region and then edited fails (the kind is compared with the lesson)', () => {
    const html = fx.read(CHAPTER_HTML);
    const src = `data-src="${GOLDEN}#การส่งมีสามความหมาย"`;
    const at = html.indexOf(src);
    const figure = html.lastIndexOf('<figure', at);
    const end = html.indexOf('</figure>', at);
    const block = html.slice(figure, end);
    expect(block).toContain('data-klog-kind="output"');
    expect(block).toContain('at most once');
    const forged = block
      .replace('data-klog-kind="output"', 'data-klog-kind="region"')
      .replace('at most once', 'at LEAST once');
    fx.write(CHAPTER_HTML, html.slice(0, figure) + forged + html.slice(end));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    const lessonLine = fx.lineOf(LESSON, 'section="การส่งมีสามความหมาย"');
    expect(found).toEqual([
      {
        level: 'error',
        where: `${LESSON}:${lessonLine}:1 ⇄ ${GOLDEN}#การส่งมีสามความหมาย`,
        message: 'the built block says it is a source region but the lesson writes <RunOutput> here',
      },
    ]);
  });

  it('1b. a block of a kind the checker does not know fails instead of being skipped', () => {
    const html = fx.read(CHAPTER_HTML);
    fx.write(CHAPTER_HTML, html.replace('data-klog-kind="output"', 'data-klog-kind="outptu"'));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found.map((f) => f.message)).toContain('data-klog-kind="outptu" is neither "region" nor "output"');
  });

  it('2. the chapter flag is read as YAML: a comment after it keeps the "nothing pasted" rule on', () => {
    fx.edit(LESSON, '\nchapter: 7\n', '\nchapter: 7 # บทที่ 7\n');
    const html = fx.read(CHAPTER_HTML);
    const content = '<div class="sl-markdown-content">';
    fx.write(CHAPTER_HTML, html.replace(content, `${content}<pre><code>const pasted = true;</code></pre>`));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain(
      'a code block in chapter 7 that no source region or golden section produced',
    );
  });

  it('2b. a chapter flag that is not a chapter number is an error, not a page without rules', () => {
    fx.edit(LESSON, '\nchapter: 7\n', '\nchapter: seven\n');
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toContainEqual({
      level: 'error',
      where: `${LESSON}:4`,
      message: 'chapter: "seven" is not a chapter number (a positive integer)',
    });
  });

  it('3. a run output from a golden file the manifest does not list fails: nothing compares it with the CLI', () => {
    fx.write('expected/hand-made.txt', fx.read(GOLDEN));
    const title = 'การส่งมีสามความหมาย';
    fx.edit(
      LESSON,
      `<RunOutput section="${title}" />`,
      `<RunOutput file="expected/hand-made.txt" section="${title}" />`,
    );
    // The built page is made to agree, as if it had been built from the edited lesson.
    fx.write(
      CHAPTER_HTML,
      fx
        .read(CHAPTER_HTML)
        .replace(`data-src="${GOLDEN}#${title}"`, `data-src="expected/hand-made.txt#${title}"`),
    );
    const lessonLine = fx.lineOf(LESSON, 'expected/hand-made.txt');
    const found = errors(checkExcerpts({ root: fx.root }).findings);
    expect(found.map((f) => `${f.where} ${f.message}`)).toEqual([
      `${LESSON}:${lessonLine}:1 ⇄ expected/hand-made.txt expected/hand-made.txt has no command in expected/manifest.json, so nothing proves it is what the CLI prints: list it there with its klog arguments (and pnpm bless)`,
      `${LESSON}:${lessonLine}:1 ⇄ expected/hand-made.txt the run output has no command in expected/manifest.json to check its caption against`,
    ]);
  });

  it('4. the command printed above a run output is checked: klog → xlog in the built caption fails', () => {
    const html = fx.read(CHAPTER_HTML);
    const at = html.indexOf('data-klog-command');
    expect(at).toBeGreaterThan(0);
    const end = html.indexOf('</code>', at);
    fx.write(
      CHAPTER_HTML,
      html.slice(0, at) + html.slice(at, end).replace('$ klog ', '$ xlog ') + html.slice(end),
    );
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.where).toMatch(/^docs\/07-idem\.mdx:\d+:1 ⇄ expected\/manifest\.json$/);
    expect(found[0]!.message).toBe(
      'the command printed above the run output is not the one that makes expected/07-idem.txt',
    );
    expect(found[0]!.detail).toContain('-$ xlog idem-demo --pid 1000');
    expect(found[0]!.detail).toContain('+$ klog idem-demo --pid 1000');
  });

  it('an excerpt in a chapter without its Thai gloss fails, in the lesson and in the built page', () => {
    const html = fx.read(CHAPTER_HTML);
    const at = html.indexOf('data-klog-gloss', html.indexOf('data-src="packages/core/src/verdict.ts#judge"'));
    const start = html.lastIndexOf('<div', at);
    const end = html.indexOf('</figure>', at);
    fx.write(CHAPTER_HTML, html.slice(0, start) + html.slice(end));
    const found = errors(checkExcerpts({ root: fx.root, golden: false }).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toBe('the built excerpt shows no Thai gloss: rebuild the site');
    expect(found[0]!.where).toMatch(/^docs\/07-idem\.mdx:\d+:1 ⇄ packages\/core\/src\/verdict\.ts#judge$/);
  });

  it('a region taken from inside a function body fails unless it says fragment', () => {
    const file = 'packages/storage/src/cleaner/compaction.ts';
    fx.edit(
      file,
      '  const state = new ProducerState();\n',
      '  // #region must-keep-state\n  const state = new ProducerState();\n  // #endregion must-keep-state\n',
    );
    const marker = fx.lineOf(file, '// #region must-keep-state');
    const messages = errors(checkExcerpts({ root: fx.root, golden: false }).findings).map(
      (f) => `${f.where} ${f.message}`,
    );
    expect(
      messages.some((m) =>
        new RegExp(
          `^${file}:${marker} region "must-keep-state" is a part of the body of function mustKeep \\(lines \\d+-\\d+\\), not a whole unit; mark it`,
        ).test(m),
      ),
    ).toBe(true);
  });

  it('a region nothing references is listed as a warning', () => {
    fx.edit(VERDICT, 'const APPEND: Append', '// #region append-constant\nconst APPEND: Append');
    fx.edit(
      VERDICT,
      "Object.freeze({ kind: 'Append' });\n",
      "Object.freeze({ kind: 'Append' });\n// #endregion append-constant\n",
    );
    const found = checkExcerpts({ root: fx.root, golden: false }).findings;
    expect(warnings(found).map((f) => f.message)).toContain(
      'region "append-constant" is not referenced by any lesson',
    );
  });
});

describe('two tags on one line', () => {
  it('each gets its own block record: a missing second block fails, naming its column', () => {
    const site = makeMiniSite();
    try {
      expect(errors(checkExcerpts({ root: site.root, golden: false }).findings)).toEqual([]);
      site.dropBlock(1);
      const found = errors(checkExcerpts({ root: site.root, golden: false }).findings);
      expect(found).toEqual([
        {
          level: 'error',
          where: `docs/x.mdx:6:${site.secondColumn}`,
          message:
            'referenced here but no block for it in the built site (apps/docs/dist/x/index.html): rebuild it',
        },
      ]);
    } finally {
      site.remove();
    }
  });

  it('a block that claims the place of the other tag on its line fails', () => {
    const site = makeMiniSite();
    try {
      site.retarget(1, 'docs/x.mdx:6:1');
      const messages = errors(checkExcerpts({ root: site.root, golden: false }).findings).map(
        (f) => f.message,
      );
      expect(messages).toContain(
        'two blocks in apps/docs/dist/x/index.html claim the same place in the lesson: one tag, one block',
      );
    } finally {
      site.remove();
    }
  });
});
