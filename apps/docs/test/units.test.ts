// The units the checker and the site share: how region and section bytes are cut, how a cut
// declaration is found, how references are read, and that highlighting keeps every byte.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { findCut } from '../excerpts/declarations.js';
import { parseSections } from '../excerpts/golden.js';
import { highlight } from '../excerpts/highlight.js';
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
    expect(findCut(source, regions.get('inner')!)).toEqual({ what: 'function f', startLine: 7, endLine: 10 });
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
      { kind: 'region', lesson: 'docs/x.mdx', line: 6, file: 'a.ts', name: 'r' },
      { kind: 'output', lesson: 'docs/x.mdx', line: 12, file: 'expected/07-idem.txt', title: 's' },
    ]);
    expect(lesson.problems.map((p) => p.line)).toEqual([13, 13]);
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
});
