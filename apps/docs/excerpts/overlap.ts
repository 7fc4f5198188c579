// Our own words: how much Thai prose on the built site (and in the golden files) repeats the
// user's chapter word for word. Facts, figures, names, commands and quotations of Kafka's
// English sources carry over; Thai sentences do not. The bar: no shared run of 30 or more
// characters of Thai prose, on any page or in any golden file.
//
// How it is measured:
// - Texts are normalised the same way on both sides: NFC, zero-width characters removed, every
//   run of white space becomes one space (line breaks included), and the space before the
//   repetition mark ๆ is dropped ("เงียบ ๆ" and "เงียบๆ" are the same words).
// - A built page is read as a reader meets it: the text of <title>, the meta description and
//   <body> (scripts and styles left out), with a break between block elements that no run can
//   cross, and every attribute value that holds Thai (quiz explanations, labels) as a text of
//   its own. A golden file is read whole.
// - A suffix automaton of the chapter gives, at every position of a text, the longest
//   substring ending there that also occurs in the chapter. Each maximal shared run is trimmed
//   to the span from its first Thai character to its last: an English quotation, a command or
//   a name that merely touches a Thai word is not Thai prose. A trimmed span of `minRun` (30)
//   characters or more is a finding.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { load } from 'cheerio';
import { listPages } from './built.js';

/** The bar the issue sets: no run this long of Thai prose shared with the chapter. */
export const MIN_RUN = 30;

/** A character that cannot occur in either text: runs never cross it. */
const BREAK = '\u0000';
const THAI = /[\u0E00-\u0E7F]/;

/** The normalised code points of `text`, each with the 1-based line it comes from. */
export function normaliseWithLines(text: string): { chars: string[]; lines: number[] } {
  const chars: string[] = [];
  const lines: number[] = [];
  let line = 1;
  for (const ch of text.normalize('NFC')) {
    const here = line;
    if (ch === '\n') line++;
    if (/[\u200B-\u200D\u2060\uFEFF]/.test(ch)) continue;
    if (ch !== BREAK && /\s/.test(ch)) {
      if (chars.at(-1) === ' ') continue;
      chars.push(' ');
      lines.push(here);
      continue;
    }
    if (ch === 'ๆ' && chars.at(-1) === ' ') {
      chars.pop();
      lines.pop();
    }
    chars.push(ch);
    lines.push(here);
  }
  return { chars, lines };
}

export function normalise(text: string): string {
  return normaliseWithLines(text).chars.join('');
}

/** A suffix automaton of one text: every substring of it, recognised in linear time. */
class SuffixAutomaton {
  readonly #next: Map<string, number>[] = [new Map()];
  readonly #link: number[] = [-1];
  readonly #len: number[] = [0];
  /** End position (exclusive) of the first occurrence of each state's strings. */
  readonly #end: number[] = [0];
  #last = 0;

  constructor(text: string) {
    let i = 0;
    for (const ch of text) this.#extend(ch, ++i);
  }

  #extend(ch: string, end: number): void {
    const cur = this.#len.length;
    this.#next.push(new Map());
    this.#len.push(this.#len[this.#last]! + 1);
    this.#link.push(0);
    this.#end.push(end);
    let p = this.#last;
    while (p !== -1 && !this.#next[p]!.has(ch)) {
      this.#next[p]!.set(ch, cur);
      p = this.#link[p]!;
    }
    if (p !== -1) {
      const q = this.#next[p]!.get(ch)!;
      if (this.#len[p]! + 1 === this.#len[q]) {
        this.#link[cur] = q;
      } else {
        const clone = this.#len.length;
        this.#next.push(new Map(this.#next[q]));
        this.#len.push(this.#len[p]! + 1);
        this.#link.push(this.#link[q]!);
        this.#end.push(this.#end[q]!);
        while (p !== -1 && this.#next[p]!.get(ch) === q) {
          this.#next[p]!.set(ch, clone);
          p = this.#link[p]!;
        }
        this.#link[q] = clone;
        this.#link[cur] = clone;
      }
    }
    this.#last = cur;
  }

  /**
   * For each character of `text` (by code point): the length of the longest substring ending
   * there that occurs in the automaton's text, and where that occurrence ends in it.
   */
  matchLengths(text: readonly string[]): { length: number[]; endInSource: number[] } {
    const length: number[] = [];
    const endInSource: number[] = [];
    let state = 0;
    let l = 0;
    for (const ch of text) {
      while (state !== 0 && !this.#next[state]!.has(ch)) {
        state = this.#link[state]!;
        l = this.#len[state]!;
      }
      const to = this.#next[state]!.get(ch);
      if (to === undefined) {
        state = 0;
        l = 0;
      } else {
        state = to;
        l++;
      }
      length.push(l);
      endInSource.push(this.#end[state]!);
    }
    return { length, endInSource };
  }
}

export interface SharedRun {
  /** Where the text comes from: a page, a golden file, or a page's attribute. */
  readonly where: string;
  /** The shared Thai prose, trimmed from its first Thai character to its last. */
  readonly text: string;
  readonly length: number;
  /** 1-based line of the chapter where the run occurs. */
  readonly chapterLine: number;
}

export interface TextMeasure {
  readonly where: string;
  /** Characters measured (after normalising, breaks not counted). */
  readonly chars: number;
  /** Characters inside a shared Thai run of at least MIN_RUN, and of at least 40. */
  readonly shared30: number;
  readonly shared40: number;
  readonly longest: number;
  /** Every shared run of Thai prose of at least `minRun` characters. */
  readonly runs: readonly SharedRun[];
}

/** The chapter, ready to be compared with: one automaton over all its files. */
export class Chapter {
  readonly #automaton: SuffixAutomaton;
  /** Line of the chapter each normalised character comes from. */
  readonly #lines: number[];

  constructor(text: string) {
    const { chars, lines } = normaliseWithLines(text);
    const kept = chars.map((c, i) => [c, lines[i]!] as const).filter(([c]) => c !== ' ');
    this.#automaton = new SuffixAutomaton(kept.map(([c]) => c).join(''));
    this.#lines = kept.map(([, l]) => l);
  }

  /**
   * Measure one text (its parts separated by BREAK) against the chapter. Matching ignores
   * spaces (a rewrite that only moves spaces is not a rewrite); a run's length is counted in
   * the measured text with its spaces.
   */
  measure(where: string, text: string, minRun = MIN_RUN): TextMeasure {
    const { chars } = normaliseWithLines(text);
    /** Index in `chars` of each character that is not a space. */
    const at: number[] = [];
    const core: string[] = [];
    chars.forEach((c, i) => {
      if (c !== ' ') {
        at.push(i);
        core.push(c);
      }
    });
    const { length, endInSource } = this.#automaton.matchLengths(core);
    const covered30 = new Uint8Array(chars.length);
    const covered40 = new Uint8Array(chars.length);
    const runs: SharedRun[] = [];
    let longest = 0;
    for (let j = 0; j < core.length; j++) {
      const l = length[j]!;
      // Right-maximal: the match does not go on one character further.
      if (l === 0 || (j + 1 < core.length && length[j + 1] === l + 1)) continue;
      let first = j - l + 1;
      let last = j;
      while (first <= last && !THAI.test(core[first]!)) first++;
      while (last >= first && !THAI.test(core[last]!)) last--;
      if (last < first) continue;
      const from = at[first]!;
      const to = at[last]!;
      const span = to - from + 1;
      longest = Math.max(longest, span);
      if (span >= 40) covered40.fill(1, from, to + 1);
      if (span >= minRun) {
        covered30.fill(1, from, to + 1);
        const startInChapter = endInSource[j]! - 1 - (j - first);
        runs.push({
          where,
          text: chars.slice(from, to + 1).join(''),
          length: span,
          chapterLine: this.#lines[startInChapter] ?? 0,
        });
      }
    }
    const counted = chars.filter((c) => c !== BREAK).length;
    const sum = (a: Uint8Array) => a.reduce((s, x) => s + x, 0);
    return { where, chars: counted, shared30: sum(covered30), shared40: sum(covered40), longest, runs };
  }
}

const BLOCK = new Set(
  `address article aside blockquote br button caption dd details dialog div dl dt fieldset figcaption
  figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol option p pre section summary table
  tbody td tfoot th thead tr ul svg text tspan foreignObject title desc label select textarea`.split(/\s+/),
);

/** What a reader of a built page reads: its text with breaks between blocks, and Thai attribute values. */
export function pageTexts(html: string): { text: string; attributes: string[] } {
  const $ = load(html);
  $('script, style, template').remove();
  const parts: string[] = [$('head title').text(), BREAK];
  const description = $('meta[name="description"]').attr('content');
  if (description) parts.push(description, BREAK);
  const walk = (node: ReturnType<typeof $>[number]): void => {
    if (node.type === 'text') {
      parts.push((node as unknown as { data: string }).data);
      return;
    }
    if (node.type !== 'tag') return;
    const block = BLOCK.has(node.name);
    if (block) parts.push(BREAK);
    for (const child of node.children) walk(child as ReturnType<typeof $>[number]);
    if (block) parts.push(BREAK);
  };
  const body = $('body')[0];
  if (body) walk(body);
  const attributes: string[] = [];
  $('body *').each((_, el) => {
    for (const [name, value] of Object.entries((el as { attribs?: Record<string, string> }).attribs ?? {})) {
      if (THAI.test(value) && name !== 'data-src' && name !== 'data-lesson') attributes.push(value);
    }
  });
  return { text: parts.join(''), attributes };
}

export interface OverlapResult {
  /** 'skipped' when the chapter is not on this machine: nothing was measured. */
  readonly status: 'ok' | 'fail' | 'skipped';
  readonly reason?: string;
  readonly chapterFiles: readonly string[];
  readonly texts: readonly TextMeasure[];
  readonly runs: readonly SharedRun[];
}

/**
 * Where the user's chapter is: `KLOG_SEED` (a file or a directory) when set, else the first
 * `shared/seed/` beside the repository or above it (in CI it is at ../shared/seed/).
 */
export function findChapter(root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const filesOf = (path: string): string[] => {
    if (!existsSync(path)) return [];
    if (statSync(path).isFile()) return [path];
    return readdirSync(path)
      .filter((n) => n.endsWith('.txt'))
      .sort()
      .map((n) => join(path, n));
  };
  if (env['KLOG_SEED']) return filesOf(resolve(root, env['KLOG_SEED']));
  for (let dir = dirname(resolve(root)); ; dir = dirname(dir)) {
    const files = filesOf(join(dir, 'shared', 'seed'));
    if (files.length > 0) return files;
    if (dirname(dir) === dir) return [];
  }
}

export interface OverlapOptions {
  readonly root: string;
  readonly dist: string;
  /** The chapter's files; found with findChapter when not given. */
  readonly chapter?: readonly string[];
  readonly minRun?: number;
}

/** Measure every built page and every golden file against the chapter. */
export function checkOverlap(options: OverlapOptions): OverlapResult {
  const { root, dist } = options;
  const chapterFiles = options.chapter ?? findChapter(root);
  if (chapterFiles.length === 0) {
    return {
      status: 'skipped',
      reason:
        "the user's chapter is not on this machine (looked for shared/seed/ beside and above the repository; KLOG_SEED overrides)",
      chapterFiles,
      texts: [],
      runs: [],
    };
  }
  const chapter = new Chapter(chapterFiles.map((f) => readFileSync(f, 'utf8')).join(`\n${BREAK}\n`));
  const minRun = options.minRun ?? MIN_RUN;
  const texts: TextMeasure[] = [];
  const runs: SharedRun[] = [];
  const pages = listPages(root, dist).filter((p) => !p.includes('/pagefind/'));
  if (pages.length === 0) {
    return { status: 'fail', reason: `no built site in ${dist}: build it first`, chapterFiles, texts, runs };
  }
  for (const page of pages) {
    const { text, attributes } = pageTexts(readFileSync(join(root, page), 'utf8'));
    const m = chapter.measure(page, text, minRun);
    texts.push(m);
    runs.push(...m.runs);
    const attrs = chapter.measure(`${page} (attributes)`, attributes.join(BREAK), minRun);
    runs.push(...attrs.runs);
  }
  const expected = join(root, 'expected');
  if (existsSync(expected)) {
    for (const name of readdirSync(expected).sort()) {
      if (!name.endsWith('.txt')) continue;
      const m = chapter.measure(`expected/${name}`, readFileSync(join(expected, name), 'utf8'), minRun);
      texts.push(m);
      runs.push(...m.runs);
    }
  }
  return {
    status: runs.length === 0 ? 'ok' : 'fail',
    chapterFiles: chapterFiles.map((f) => relative(root, f)),
    texts,
    runs,
  };
}

const pct = (part: number, whole: number) => (whole === 0 ? '0.0' : ((100 * part) / whole).toFixed(1));

/** The figures, one line per text, then every run over the bar. */
export function formatOverlap(result: OverlapResult, minRun = MIN_RUN): string {
  if (result.status === 'skipped') return `overlap: SKIPPED (not passed): ${result.reason}`;
  if (result.reason) return `overlap: FAIL · ${result.reason}`;
  const lines = result.texts
    .filter((t) => t.chars > 0)
    .map(
      (t) =>
        `  ${t.where}: ${t.chars} chars · in shared runs ≥${minRun}: ${pct(t.shared30, t.chars)} % · ≥40: ${pct(t.shared40, t.chars)} % · longest ${t.longest}`,
    );
  for (const run of result.runs) {
    lines.push(`✗ ${run.where} ⇄ chapter line ${run.chapterLine}: ${run.length} chars shared`);
    lines.push(`    ${run.text}`);
  }
  lines.push(
    `overlap: ${result.status === 'ok' ? 'ok' : 'FAIL'} · ${result.runs.length} shared run(s) of ${minRun}+ characters of Thai prose with the chapter (${result.chapterFiles.join(', ')})`,
  );
  return lines.join('\n');
}
