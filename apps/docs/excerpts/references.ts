// What the lessons reference: every <Excerpt file region /> and <RunOutput file section /> in
// the MDX under docs/, with the line and column it is written at (two tags may share a line).
// The MDX parser reads them (a tag inside a code fence or a comment is not a reference); their
// attributes must be plain strings, so the checker can read every reference without building
// anything. The frontmatter is read as YAML, by the parser Astro itself uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProcessor } from '@mdx-js/mdx';
import yaml from 'js-yaml';
import type { MarkerProblem } from './regions.js';

interface At {
  readonly lesson: string;
  readonly line: number;
  /** 1-based column of the tag's `<`. */
  readonly column: number;
}

export type Reference =
  | (At & {
      readonly kind: 'region';
      readonly file: string;
      readonly name: string;
      /** The tag has children: the Thai gloss shown under the code. */
      readonly glossed: boolean;
    })
  | (At & {
      readonly kind: 'output';
      readonly file: string;
      readonly title: string;
    });

/** Where a reference is written, as its rendered block carries it: "docs/07-idem.mdx:12:1". */
export function atOf(ref: At): string {
  return `${ref.lesson}:${ref.line}:${ref.column}`;
}

export interface Lesson {
  /** Repository-relative path, e.g. docs/07-idem.mdx. */
  readonly file: string;
  /** The frontmatter's `chapter:`, for chapter pages (where no code may be pasted). */
  readonly chapter: number | undefined;
  readonly references: readonly Reference[];
  readonly problems: readonly MarkerProblem[];
}

export const EXCERPT_TAG = 'Excerpt';
export const OUTPUT_TAG = 'RunOutput';
/** The golden file a <RunOutput> shows when it names none. */
export const DEFAULT_GOLDEN = 'expected/07-idem.txt';

export interface Node {
  type: string;
  name?: string | null;
  attributes?: { type: string; name?: string; value?: unknown }[];
  position?: { start: { line: number; column: number } };
  children?: Node[];
  value?: string;
}

/** Does a tag hold anything a reader would see (text or elements, not only white space)? */
export function hasContent(node: Node): boolean {
  return (node.children ?? []).some((c) => {
    if (c.type === 'text') return (c.value ?? '').trim() !== '';
    // A {/* comment */} is an expression a reader never sees.
    if (c.type === 'mdxFlowExpression' || c.type === 'mdxTextExpression') return false;
    return c.type === 'inlineCode' || hasContent(c);
  });
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

/** Blank out the frontmatter (keeping its lines) so the MDX parser sees only the body. */
function splitFrontmatter(text: string): { yaml: string; body: string } {
  const m = FRONTMATTER.exec(text);
  if (!m) return { yaml: '', body: text };
  return { yaml: m[1]!, body: m[0].replace(/[^\n]/g, '') + text.slice(m[0].length) };
}

/** The frontmatter's `chapter:`: absent, or a positive integer; anything else is a problem. */
function readChapter(file: string, frontmatter: string, problems: MarkerProblem[]): number | undefined {
  let data: unknown;
  try {
    data = yaml.load(frontmatter);
  } catch (error) {
    const e = error as { mark?: { line: number }; reason?: string; message: string };
    problems.push({
      file,
      line: (e.mark?.line ?? 0) + 2,
      message: `the frontmatter is not YAML: ${e.reason ?? e.message}`,
    });
    return undefined;
  }
  if (data === null || data === undefined) return undefined;
  if (typeof data !== 'object' || Array.isArray(data)) {
    problems.push({ file, line: 1, message: 'the frontmatter is not a YAML mapping' });
    return undefined;
  }
  if (!('chapter' in data)) return undefined;
  const chapter = (data as { chapter: unknown }).chapter;
  if (typeof chapter === 'number' && Number.isSafeInteger(chapter) && chapter > 0) return chapter;
  const line = frontmatter.split('\n').findIndex((l) => /^chapter\s*:/.test(l)) + 2;
  problems.push({
    file,
    line,
    message: `chapter: ${JSON.stringify(chapter)} is not a chapter number (a positive integer)`,
  });
  return undefined;
}

export function parseLesson(file: string, text: string): Lesson {
  const { yaml: frontmatter, body } = splitFrontmatter(text);
  const references: Reference[] = [];
  const problems: MarkerProblem[] = [];
  const chapter = readChapter(file, frontmatter, problems);
  let tree: Node;
  try {
    tree = createProcessor({ format: 'mdx' }).parse(body) as unknown as Node;
  } catch (error) {
    const e = error as { line?: number; reason?: string; message: string };
    return {
      file,
      chapter,
      references,
      problems: [
        ...problems,
        { file, line: e.line ?? 1, message: `MDX does not parse: ${e.reason ?? e.message}` },
      ],
    };
  }
  const walk = (node: Node): void => {
    if (
      (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') &&
      (node.name === EXCERPT_TAG || node.name === OUTPUT_TAG)
    ) {
      const line = node.position?.start.line ?? 1;
      const column = node.position?.start.column ?? 1;
      const attrs = new Map<string, string>();
      for (const a of node.attributes ?? []) {
        if (a.type !== 'mdxJsxAttribute' || typeof a.value !== 'string' || a.name === undefined) {
          problems.push({
            file,
            line,
            message: `<${node.name}> attributes must be plain strings (name="value") so the checker can read them`,
          });
          continue;
        }
        attrs.set(a.name, a.value);
      }
      if (node.name === EXCERPT_TAG) {
        const src = attrs.get('file');
        const name = attrs.get('region');
        if (!src || !name) problems.push({ file, line, message: '<Excerpt> needs file="…" and region="…"' });
        else
          references.push({
            kind: 'region',
            lesson: file,
            line,
            column,
            file: src,
            name,
            glossed: hasContent(node),
          });
      } else {
        const title = attrs.get('section');
        if (!title)
          problems.push({ file, line, message: '<RunOutput> needs section="…" (a "== title ==" line)' });
        else
          references.push({
            kind: 'output',
            lesson: file,
            line,
            column,
            file: attrs.get('file') ?? DEFAULT_GOLDEN,
            title,
          });
      }
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree);
  return { file, chapter, references, problems };
}

/** Every lesson source under `docs/` (MDX and Markdown), repository-relative, sorted. */
export function listLessons(root: string, dir = 'docs'): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (/\.mdx?$/.test(entry.name)) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

export function readLesson(root: string, file: string): Lesson {
  return parseLesson(file, readFileSync(join(root, file), 'utf8'));
}
