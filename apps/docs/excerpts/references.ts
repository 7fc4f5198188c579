// What the lessons reference: every <Excerpt file region /> and <RunOutput file section /> in
// the MDX under docs/, with the line it is written on. The MDX parser reads them (a tag inside
// a code fence or a comment is not a reference); their attributes must be plain strings, so
// the checker can read every reference without building anything.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProcessor } from '@mdx-js/mdx';
import type { MarkerProblem } from './regions.js';

export type Reference =
  | {
      readonly kind: 'region';
      readonly lesson: string;
      readonly line: number;
      readonly file: string;
      readonly name: string;
    }
  | {
      readonly kind: 'output';
      readonly lesson: string;
      readonly line: number;
      readonly file: string;
      readonly title: string;
    };

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
  position?: { start: { line: number } };
  children?: Node[];
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

/** Blank out the frontmatter (keeping its lines) so the MDX parser sees only the body. */
function splitFrontmatter(text: string): { yaml: string; body: string } {
  const m = FRONTMATTER.exec(text);
  if (!m) return { yaml: '', body: text };
  return { yaml: m[1]!, body: m[0].replace(/[^\n]/g, '') + text.slice(m[0].length) };
}

export function parseLesson(file: string, text: string): Lesson {
  const { yaml, body } = splitFrontmatter(text);
  const chapterMatch = /^chapter:\s*(\d+)\s*$/m.exec(yaml);
  const references: Reference[] = [];
  const problems: MarkerProblem[] = [];
  let tree: Node;
  try {
    tree = createProcessor({ format: 'mdx' }).parse(body) as unknown as Node;
  } catch (error) {
    const e = error as { line?: number; reason?: string; message: string };
    return {
      file,
      chapter: undefined,
      references,
      problems: [{ file, line: e.line ?? 1, message: `MDX does not parse: ${e.reason ?? e.message}` }],
    };
  }
  const walk = (node: Node): void => {
    if (
      (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') &&
      (node.name === EXCERPT_TAG || node.name === OUTPUT_TAG)
    ) {
      const line = node.position?.start.line ?? 1;
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
        else references.push({ kind: 'region', lesson: file, line, file: src, name });
      } else {
        const title = attrs.get('section');
        if (!title)
          problems.push({ file, line, message: '<RunOutput> needs section="…" (a "== title ==" line)' });
        else
          references.push({
            kind: 'output',
            lesson: file,
            line,
            file: attrs.get('file') ?? DEFAULT_GOLDEN,
            title,
          });
      }
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree);
  return { file, chapter: chapterMatch ? Number(chapterMatch[1]) : undefined, references, problems };
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
