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

/** `<pre><code>` whose text content is `text`, byte for byte, coloured for both Starlight themes. */
export async function highlight(text: string, lang: Lang): Promise<string> {
  highlighter ??= createHighlighter({ themes: Object.values(THEMES), langs: [...LANGS] });
  const h = await highlighter;
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
      },
    ],
  });
}
