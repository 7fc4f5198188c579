// The lesson site. Content lives in the repository's top-level docs/ (src/content/docs is a
// symlink to it); every excerpt and run output is pulled from source at build time by the
// components in src/components, and `pnpm check:excerpts` checks the built HTML against it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import starlight from '@astrojs/starlight';
import { defineConfig } from 'astro/config';
import rehypeMermaid from 'rehype-mermaid';
import { chromiumPath, missingChromium } from './excerpts/chromium.js';
import { rehypeMermaidPlaceholder } from './excerpts/rehype-mermaid-placeholder.js';
import { remarkExcerptOrigin } from './excerpts/remark-origin.js';
import { repoRoot } from './excerpts/root.js';

// Diagrams are drawn at build time in the machine's Chromium (Debian's `chromium`), never in
// the reader's browser and never from a CDN. Without it a developer still gets a site, with a
// loud placeholder; CI (CI set) refuses to build without it.
const chromium = existsSync(chromiumPath) ? chromiumPath : undefined;
if (!chromium) missingChromium('the diagrams cannot be drawn');

// Where the site is published, for canonical links and the sitemap. Unset (a local or CI build),
// the pages carry no canonical link and no sitemap is written, rather than pointing at a host
// that is not the site's.
const site = process.env['KLOG_SITE_URL'] || undefined;
if (site && !/^https?:\/\/[^/]+/.test(site)) throw new Error(`KLOG_SITE_URL=${site} is not an http(s) URL`);

export default defineConfig({
  ...(site ? { site } : {}),
  integrations: [
    starlight({
      title: 'kaen-log',
      description: 'kaen-log: log broker แบบ Kafka สำหรับคอร์สเรียนไส้ในของ Kafka เป็นภาษาไทย',
      locales: { root: { label: 'ไทย', lang: 'th' } },
      favicon: '/favicon.svg',
      customCss: ['./src/styles/klog.css'],
      // Plain ```sh blocks (getting started, performance) wrap long commands, as the lesson's own blocks
      // do by default: on a phone a line cut at the screen edge hides the end of the command.
      expressiveCode: { defaultProps: { wrap: true } },
      // The sidebar lists the course's chapters (src/course.ts) beside the pages of docs/; search
      // opens with "/" as well as Ctrl/⌘K.
      components: {
        Sidebar: './src/components/overrides/Sidebar.astro',
        Search: './src/components/overrides/Search.astro',
      },
      // Pagefind splits Thai into short words ("กันซ้ำ" is "กัน" + "ซ้ำ"); Starlight's ranking (short
      // pages up, term similarity 9) let the Performance page, full of "กัน", outrank the chapter
      // that teaches กันซ้ำ. Pagefind's own similarity and frequency, and no length penalty, rank it first.
      pagefind: { ranking: { pageLength: 0, termFrequency: 1, termSimilarity: 1 } },
      // The 404 page is ours (src/pages/404.astro): it links back into the site.
      disable404Route: true,
      // The lessons' real path is ../../docs (src/content/docs links to it): let Starlight's own
      // remark/rehype steps (asides, heading links) treat it as docs content.
      markdown: { processedDirs: ['../../docs'] },
    }),
  ],
  markdown: {
    remarkPlugins: [[remarkExcerptOrigin, { root: repoRoot }]],
    rehypePlugins: chromium
      ? [
          [
            rehypeMermaid,
            {
              strategy: 'inline-svg',
              launchOptions: {
                executablePath: chromium,
                headless: true,
                args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
              },
              mermaidConfig: {
                theme: 'neutral',
                fontFamily: 'system-ui, "Noto Sans Thai", Garuda, Loma, sans-serif',
              },
            },
          ],
        ]
      : [rehypeMermaidPlaceholder],
  },
  vite: {
    resolve: {
      // MDX that lives outside the app (../../docs) must resolve the same Starlight instance.
      dedupe: ['@astrojs/starlight'],
      alias: { '@lesson': fileURLToPath(new URL('./src/components/index.ts', import.meta.url)) },
    },
  },
});
