// Reading the built site back: every excerpt and run-output block in the HTML, with the text a
// reader sees (entities decoded), and every code block that did not come from a source.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'cheerio';

export interface BuiltBlock {
  /** Repository-relative HTML file. */
  readonly page: string;
  /** `data-klog-kind` as written: "region" or "output" (anything else is reported). */
  readonly kind: string;
  /** `data-src`: "<file>#<region name>" or "<golden file>#<section title>". */
  readonly src: string;
  readonly file: string;
  readonly name: string;
  readonly lines: string | undefined;
  readonly sha256: string | undefined;
  /** `data-lesson`: "docs/07-idem.mdx:123:1" (line and column of the tag). */
  readonly lesson: string | undefined;
  /** The text content of the block's <pre><code>, entities decoded. */
  readonly text: string;
  /** Run output only: the text of each `[data-klog-command]` in the block (the command a reader copies). */
  readonly commands: readonly string[];
  /** Excerpts only: the text of the Thai gloss under the code, if any. */
  readonly gloss: string | undefined;
}

export interface BuiltPage {
  readonly page: string;
  readonly lang: string | undefined;
  readonly blocks: readonly BuiltBlock[];
  /** First line of every <pre> in the page's content that is not an excerpt or a run output. */
  readonly pasted: readonly string[];
}

/** Every .html file under `dist` (repository-relative to `root`), sorted. */
export function listPages(root: string, dist: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.html')) out.push(child);
    }
  };
  if (existsSync(join(root, dist))) walk(dist);
  return out.sort();
}

export function readPage(root: string, page: string): BuiltPage {
  const $ = load(readFileSync(join(root, page), 'utf8'));
  const blocks: BuiltBlock[] = [];
  $('[data-klog-kind]').each((_, el) => {
    const node = $(el);
    const src = node.attr('data-src') ?? '';
    const hash = src.indexOf('#');
    const codes = node.find('pre code');
    blocks.push({
      page,
      kind: node.attr('data-klog-kind') ?? '',
      src,
      file: hash === -1 ? src : src.slice(0, hash),
      name: hash === -1 ? '' : src.slice(hash + 1),
      lines: node.attr('data-lines'),
      sha256: node.attr('data-sha256'),
      lesson: node.attr('data-lesson'),
      // One block holds one <pre><code>; if a renderer ever split it, the joined text still differs.
      text: codes
        .map((_, c) => $(c).text())
        .get()
        .join(''),
      commands: node
        .find('[data-klog-command]')
        .map((_, c) => $(c).text())
        .get(),
      gloss: node.find('[data-klog-gloss]').length ? node.find('[data-klog-gloss]').text() : undefined,
    });
  });
  const pasted: string[] = [];
  $('main pre').each((_, el) => {
    const pre = $(el);
    if (pre.closest('[data-klog-kind]').length > 0) return;
    pasted.push(pre.text().split('\n')[0] ?? '');
  });
  return { page, lang: $('html').attr('lang'), blocks, pasted };
}

/** Where Starlight writes the page of a lesson: docs/07-idem.mdx → <dist>/07-idem/index.html. */
export function pageOf(lesson: string, dist: string): string {
  const slug = lesson
    .replace(/^docs\//, '')
    .replace(/\.mdx?$/, '')
    .replace(/(^|\/)index$/, '')
    .toLowerCase();
  return slug === '' ? `${dist}/index.html` : `${dist}/${slug}/index.html`;
}

/** A whole-file page of the source viewer: which file it shows and the text of its code. */
export function readSourcePage(root: string, page: string): { file: string; text: string } | undefined {
  const $ = load(readFileSync(join(root, page), 'utf8'));
  const figure = $('[data-klog-source]').first();
  const file = figure.attr('data-klog-source');
  if (!file) return undefined;
  return { file, text: figure.find('pre code').text() };
}
