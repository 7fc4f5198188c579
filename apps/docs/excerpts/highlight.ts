// Syntax highlighting that keeps the bytes: Shiki turns the text into spans and nothing else, so
// the text content of the <code> element is exactly the excerpt, trailing whitespace and final
// newline included. (Expressive Code, Starlight's default for fenced blocks, trims trailing
// whitespace and splits lines into <div>s, so excerpts do not go through it.)
import { createHighlighter, type Highlighter } from 'shiki';

const THEMES = { light: 'night-owl-light', dark: 'night-owl' } as const;
const LANGS = ['typescript', 'javascript', 'json', 'text'] as const;
export type Lang = (typeof LANGS)[number];

let highlighter: Promise<Highlighter> | undefined;

export function langOf(file: string): Lang {
  if (/\.[cm]?tsx?$/.test(file)) return 'typescript';
  if (/\.[cm]?jsx?$/.test(file)) return 'javascript';
  if (/\.json$/.test(file)) return 'json';
  return 'text';
}

/** Columns of a line's leading white space (a tab counts as TAB_SIZE, as the CSS sets it). */
export const TAB_SIZE = 4;
export function indentOf(line: string): number {
  let width = 0;
  for (const ch of line) {
    if (ch === ' ') width++;
    else if (ch === '\t') width += TAB_SIZE - (width % TAB_SIZE);
    else break;
  }
  return width;
}

export interface HighlightOptions {
  /** Give each line an id "L<n>", numbering from `firstLine` (the source viewer's anchors). */
  readonly lineIds?: { readonly firstLine: number };
  /**
   * Mark the rows of a table (a line whose columns are set apart by two or more spaces) with
   * `data-klog-row`: klog.css keeps such a row on one line, scrolling sideways, while the prose
   * lines around it still wrap. A column that wraps is a table no one can read on a phone.
   */
  readonly tableRows?: boolean;
}

const TABLE_ROW = /\S {2,}\S/;

/**
 * `<pre><code>` whose text content is `text`, byte for byte, coloured for both Starlight themes.
 * Each line carries its indentation as `--klog-indent`, so a wrapped line continues under its
 * own indentation (klog.css); styles and attributes change no text.
 */
export async function highlight(text: string, lang: Lang, options: HighlightOptions = {}): Promise<string> {
  highlighter ??= createHighlighter({ themes: Object.values(THEMES), langs: [...LANGS] });
  const h = await highlighter;
  const lines = text.split('\n');
  return h.codeToHtml(text, {
    lang,
    themes: THEMES,
    defaultColor: false,
    transformers: [
      {
        pre(node) {
          // Starlight styles `.sl-markdown-content pre`; ours carries its own class and is focusable
          // for keyboard scrolling (Shiki already sets tabindex).
          this.addClassToHast(node, 'klog-code');
        },
        line(node, n) {
          const indent = indentOf(lines[n - 1] ?? '');
          if (indent > 0) node.properties['style'] = `--klog-indent:${indent}ch`;
          if (options.lineIds) node.properties['id'] = `L${options.lineIds.firstLine + n - 1}`;
          if (options.tableRows && TABLE_ROW.test(lines[n - 1] ?? '')) node.properties['data-klog-row'] = '';
        },
      },
    ],
  });
}
