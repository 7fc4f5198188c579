// The units the checker and the site share: how region and section bytes are cut, how a cut
// declaration is found, how references are read, and that highlighting keeps every byte.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { findCut, findOwner } from '../excerpts/declarations.js';
import { parseSections } from '../excerpts/golden.js';
import { highlight, indentOf } from '../excerpts/highlight.js';
import {
  Chapter,
  checkOverlap,
  findChapter,
  formatOverlap,
  MIN_RUN,
  normalise,
  pageTexts,
} from '../excerpts/overlap.js';
import { parseLesson } from '../excerpts/references.js';
import { parseRegions, sha256 } from '../excerpts/regions.js';

describe('region bytes', () => {
  const source = [
    'import x from "y";',
    '',
    '// #region outer',
    '/** doc */',
    'export const a = 1;   ',
    '  // #region inner fragment',
    'export function f() {',
    '  return a;',
    '  // #endregion inner fragment',
    '}',
    '// #endregion outer',
    '',
  ].join('\n');
  const { regions, problems } = parseRegions('x.ts', source);

  it('are the lines strictly between the markers, not dedented, trailing whitespace and newline kept', () => {
    expect(problems).toEqual([]);
    const outer = regions.get('outer')!;
    expect(outer.text).toBe('/** doc */\nexport const a = 1;   \nexport function f() {\n  return a;\n}\n');
    expect(outer.sha256).toBe(sha256(outer.text));
    expect([outer.beginLine, outer.endLine]).toEqual([3, 11]);
    expect(outer.droppedLines).toEqual([6, 9]);
    expect(outer.lineNumbers).toEqual([4, 5, 7, 8, 10]);
  });

  it('keep a fragment and say so', () => {
    const inner = regions.get('inner')!;
    expect(inner.fragment).toBe(true);
    expect(inner.text).toBe('export function f() {\n  return a;\n');
  });

  it('CRLF files keep their line endings', () => {
    const r = parseRegions('c.ts', '// #region a\r\nconst a = 1;\r\n// #endregion a\r\n').regions.get('a')!;
    expect(r.text).toBe('const a = 1;\r\n');
  });

  it('a region that cuts a declaration is found with the TypeScript parser; a whole one is not', () => {
    expect(findCut(source, regions.get('outer')!)).toBeUndefined();
    expect(findCut(source, regions.get('inner')!)).toEqual({
      how: 'cut',
      what: 'function f',
      startLine: 7,
      endLine: 10,
    });
    const half = parseRegions('h.ts', 'class C {\n  // #region m\n  a = 1;\n}\n// #endregion m\n');
    // The end marker after the class closes the region outside it: the class is cut.
    expect(
      findCut('class C {\n  // #region m\n  a = 1;\n}\n// #endregion m\n', half.regions.get('m')!)?.what,
    ).toBe('class C');
  });

  it('marker problems are reported with their lines, never thrown', () => {
    const broken = parseRegions(
      'b.ts',
      [
        '// #region a',
        '// #region a',
        '// #endregion b',
        '// #endregion',
        '/* #region c */',
        '// #region empty',
        '// #endregion empty',
        '// #endregion x fragment',
      ].join('\n'),
    );
    expect(broken.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      '1: region "a" is never closed (add "// #endregion a")',
      '2: region "a" is opened again (first opened at line 1)',
      '3: "// #endregion b" does not match the innermost open region "a" (opened at line 1)',
      '4: malformed region marker "// #endregion": expected "// #region <name>", "// #region <name> fragment" or "// #endregion <name>" alone on its line (names: a-z, 0-9, -)',
      '5: malformed region marker "/* #region c */": expected "// #region <name>", "// #region <name> fragment" or "// #endregion <name>" alone on its line (names: a-z, 0-9, -)',
      '6: region "empty" is empty',
      '8: "// #endregion x" does not match the innermost open region "a" (opened at line 1)',
    ]);
  });
});

describe('golden sections', () => {
  const text = '== one ==\nA  \n\n  B\n\n== two ==\nC\n';
  const { sections, problems } = parseSections('g.txt', text);
  it('run from the title line to the next title, without the blank separator lines', () => {
    expect(problems).toEqual([]);
    expect(sections.get('one')).toMatchObject({ firstLine: 1, lastLine: 4, text: '== one ==\nA  \n\n  B\n' });
    expect(sections.get('two')).toMatchObject({ firstLine: 6, lastLine: 7, text: '== two ==\nC\n' });
  });
  it('a repeated title is a problem', () => {
    expect(parseSections('g.txt', '== a ==\n\n== a ==\n').problems[0]?.message).toBe(
      'section "a" appears twice (first at line 1)',
    );
  });
});

describe('lesson references', () => {
  it('are read by the MDX parser with their lines; tags in code fences are not references', () => {
    const lesson = parseLesson(
      'docs/x.mdx',
      '---\ntitle: x\nchapter: 7\n---\n\n<Excerpt file="a.ts" region="r" />\n\n```\n<Excerpt file="no.ts" region="no" />\n```\n\n<RunOutput section="s" />\n<Excerpt file={f} region="r" />\n',
    );
    expect(lesson.chapter).toBe(7);
    expect(lesson.references).toEqual([
      { kind: 'region', lesson: 'docs/x.mdx', line: 6, column: 1, file: 'a.ts', name: 'r', glossed: false },
      { kind: 'output', lesson: 'docs/x.mdx', line: 12, column: 1, file: 'expected/07-idem.txt', title: 's' },
    ]);
    expect(lesson.problems.map((p) => p.line)).toEqual([13, 13]);
  });
});

describe('lesson frontmatter and tags', () => {
  const body =
    '\n<Excerpt file="a.ts" region="r">\n  Thai gloss\n</Excerpt>\n\n<Excerpt file="a.ts" region="s">{/* not a gloss */}</Excerpt> <RunOutput section="t" />\n';
  it('reads chapter: as YAML, so a comment or quotes do not hide it, and refuses what is not a chapter number', () => {
    expect(parseLesson('x.mdx', `---\nchapter: 7 # บทที่ 7\n---\n${body}`).chapter).toBe(7);
    expect(parseLesson('x.mdx', `---\ntitle: 'a: b'\nchapter:   12\n---\n${body}`).chapter).toBe(12);
    expect(parseLesson('x.mdx', `---\ntitle: x\n---\n${body}`)).toMatchObject({
      chapter: undefined,
      problems: [],
    });
    for (const [value, shown] of [
      ['"7"', '"7"'],
      ['seven', '"seven"'],
      ['0', '0'],
      ['7.5', '7.5'],
    ]) {
      const lesson = parseLesson('x.mdx', `---\ntitle: x\nchapter: ${value}\n---\n${body}`);
      expect(lesson.chapter, value).toBeUndefined();
      expect(lesson.problems, value).toEqual([
        { file: 'x.mdx', line: 3, message: `chapter: ${shown} is not a chapter number (a positive integer)` },
      ]);
    }
    expect(parseLesson('x.mdx', `---\nchapter: [\n---\n${body}`).problems[0]?.message).toMatch(
      /^the frontmatter is not YAML: /,
    );
  });

  it('gives every tag its own column, and knows which excerpts carry a gloss', () => {
    const { references } = parseLesson('x.mdx', `---\nchapter: 1\n---\n${body}`);
    expect(references.map((r) => [r.line, r.column, r.kind === 'region' ? r.glossed : null])).toEqual([
      [5, 1, true],
      [9, 1, false],
      [9, 63, null],
    ]);
  });
});

describe('whole units and their owners', () => {
  const source = [
    'export class Entry {',
    '  // #region method',
    '  /** doc */',
    '  record(): void {',
    '    const a = 1;',
    '    // #region body fragment',
    '    const b = a + 1;',
    '    return;',
    '    // #endregion body fragment',
    '  }',
    '  // #endregion method',
    '}',
    '// #region top',
    'export function top(): number {',
    '  const keep = (x: number) => {',
    '    // #region arrow fragment',
    '    const y = x + 1;',
    '    // #endregion arrow fragment',
    '    return y;',
    '  };',
    '  return keep(1);',
    '}',
    '// #endregion top',
    '',
  ].join('\n');
  const { regions } = parseRegions('e.ts', source);
  it('a run of statements from inside a function body is a fragment of that function', () => {
    expect(findCut(source, regions.get('body')!)).toEqual({
      how: 'inside',
      what: 'method record',
      startLine: 4,
      endLine: 10,
    });
    expect(findCut(source, regions.get('arrow')!)).toMatchObject({ how: 'inside', what: 'variable keep' });
    expect(findCut(source, regions.get('method')!)).toBeUndefined();
    expect(findCut(source, regions.get('top')!)).toBeUndefined();
  });
  it('a method names its class; a top-level function has no owner', () => {
    expect(findOwner(source, regions.get('method')!)).toEqual({ kind: 'class', name: 'Entry' });
    expect(findOwner(source, regions.get('top')!)).toBeUndefined();
    expect(findOwner(source, regions.get('body')!)).toBeUndefined();
  });
});

describe('the overlap measure', () => {
  const thai30 = 'การกันซ้ำผูกกับช่วงชีวิตของผู้เขียน'; // 35 characters of Thai prose
  const chapter = new Chapter(
    `บทนำสั้น ๆ\n${thai30}\nอีกบรรทัดหนึ่งที่ไม่เกี่ยว\n“Messages may be lost but are never redelivered” คือ`,
  );
  it('finds a shared run of 30 or more Thai characters, with where it is in the chapter', () => {
    const m = chapter.measure('page', `ก่อนหน้า ${thai30} ต่อท้าย`);
    expect(m.runs).toEqual([{ where: 'page', text: thai30, length: thai30.length, chapterLine: 2 }]);
    expect(m.longest).toBe(thai30.length);
  });
  it('lets a run of 29 pass, and counts the bar from MIN_RUN', () => {
    expect(MIN_RUN).toBe(30);
    const m = chapter.measure('page', `xx ${thai30.slice(0, 29)} yy`);
    expect(m.runs).toEqual([]);
    expect(m.longest).toBe(29);
  });
  it('is not fooled by moved spaces or line breaks, nor by ๆ written apart', () => {
    const spaced = thai30.replace('ผูกกับ', 'ผูก กับ\n');
    expect(chapter.measure('page', spaced).runs).toHaveLength(1);
    expect(normalise('เงียบ ๆ  และ\n\nเงียบๆ')).toBe('เงียบๆ และ เงียบๆ');
  });
  it('lets a quotation of an English source carry over when only a word of Thai touches it', () => {
    expect(
      chapter.measure('page', 'ประโยค “Messages may be lost but are never redelivered” คือ').runs,
    ).toEqual([]);
  });
  it('never joins text across block elements of a page, and reads Thai attributes apart', () => {
    const half = Math.floor(thai30.length / 2);
    const html = `<html><head><title>t</title></head><body><p>${thai30.slice(0, half)}</p><p>${thai30.slice(half)}</p><button data-why="${thai30}">x</button><script>var s = "${thai30}";</script></body></html>`;
    const { text, attributes } = pageTexts(html);
    expect(chapter.measure('page', text).runs).toEqual([]);
    expect(text).not.toContain('var s');
    expect(attributes).toEqual([thai30]);
  });
  it('says SKIPPED, never ok, when the chapter is not on this machine', () => {
    const result = checkOverlap({ root: '/nonexistent-root/repo', dist: 'dist', chapter: [] });
    expect(result.status).toBe('skipped');
    expect(formatOverlap(result)).toMatch(/^overlap: SKIPPED \(not passed\): /);
    expect(findChapter('/nonexistent-root/repo', { KLOG_SEED: '/nonexistent-root/seed' })).toEqual([]);
  });
});

describe('highlighting', () => {
  it('keeps every byte: the <code> text content is the excerpt, entities decoded', async () => {
    const text = 'if (a < b && c > "d") {   \n\treturn `&amp;`;\n}\n\n';
    for (const lang of ['typescript', 'text'] as const) {
      const $ = load(await highlight(text, lang));
      expect($('pre code').text()).toBe(text);
    }
  });

  it('marks each line with its indentation (for wrapped lines) and, on request, an id, changing no text', async () => {
    const text = 'a\n    b\n\tc\n';
    const $ = load(await highlight(text, 'typescript', { lineIds: { firstLine: 10 } }));
    expect($('pre code').text()).toBe(text);
    const lines = $('.line')
      .toArray()
      .map((l) => [$(l).attr('id'), $(l).attr('style') ?? '']);
    expect(lines.slice(0, 3)).toEqual([
      ['L10', ''],
      ['L11', '--klog-indent:4ch'],
      ['L12', '--klog-indent:4ch'],
    ]);
    expect(indentOf('  \tx')).toBe(4);
    expect(indentOf('  \t x')).toBe(5);
  });
});
