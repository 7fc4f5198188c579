// A throwaway copy of the parts of the repository the checker reads, so the red-path tests can
// break sources, golden files, markers and the built HTML without touching the real tree.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256 } from '../excerpts/regions.js';
import { findRepoRoot } from '../excerpts/source.js';

export const realRoot = findRepoRoot(new URL('.', import.meta.url).pathname);
export const realDist = join(realRoot, 'apps/docs/dist');

export function requireBuiltSite(): void {
  if (!existsSync(join(realDist, '07-idem/index.html'))) {
    throw new Error(
      `${realDist} has no built chapter: build the site first (pnpm --filter @klog/docs build)`,
    );
  }
}

export interface Fixture {
  readonly root: string;
  read(file: string): string;
  write(file: string, text: string): void;
  /** Replace exactly one occurrence of `from` in `file` (fails if there is none or more than one). */
  edit(file: string, from: string, to: string): void;
  /** 1-based line of the first line of `file` containing `needle`. */
  lineOf(file: string, needle: string): number;
  remove(): void;
}

export function makeFixture(): Fixture {
  requireBuiltSite();
  const root = mkdtempSync(join(tmpdir(), 'klog-excerpts-'));
  const copy = (rel: string) => cpSync(join(realRoot, rel), join(root, rel), { recursive: true });
  copy('docs');
  copy('expected');
  copy('scripts/golden.mjs');
  copy('pnpm-workspace.yaml');
  for (const pkg of readdirSync(join(realRoot, 'packages'))) {
    if (existsSync(join(realRoot, 'packages', pkg, 'src'))) copy(`packages/${pkg}/src`);
  }
  // A golden command may name a file of the repository (klog lab check <a lab file>): it comes along.
  const manifest = JSON.parse(readFileSync(join(realRoot, 'expected/manifest.json'), 'utf8')) as {
    golden: { args: string[] }[];
  };
  for (const arg of manifest.golden.flatMap((g) => g.args)) {
    if (arg.includes('/') && existsSync(join(realRoot, arg)) && !existsSync(join(root, arg))) {
      mkdirSync(dirname(join(root, arg)), { recursive: true });
      copy(arg);
    }
  }
  // The golden check runs the real built CLI; node follows the symlink to its real place, so its
  // imports resolve in the real workspace.
  symlinkSync(join(realRoot, 'packages/cli/dist'), join(root, 'packages/cli/dist'));
  // Only the HTML of the built site: that is all the checker reads.
  const walk = (rel: string) => {
    for (const e of readdirSync(join(realRoot, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.html')) {
        mkdirSync(dirname(join(root, child)), { recursive: true });
        cpSync(join(realRoot, child), join(root, child));
      }
    }
  };
  walk('apps/docs/dist');
  const fixture: Fixture = {
    root,
    read: (file) => readFileSync(join(root, file), 'utf8'),
    write: (file, text) => writeFileSync(join(root, file), text),
    edit(file, from, to) {
      const text = fixture.read(file);
      const count = text.split(from).length - 1;
      if (count !== 1)
        throw new Error(`fixture edit: ${JSON.stringify(from)} occurs ${count} times in ${file}`);
      fixture.write(file, text.replace(from, to));
    },
    lineOf(file, needle) {
      const i = fixture
        .read(file)
        .split('\n')
        .findIndex((l) => l.includes(needle));
      if (i === -1) throw new Error(`fixture: ${JSON.stringify(needle)} not in ${file}`);
      return i + 1;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
  return fixture;
}

export interface MiniSite {
  readonly root: string;
  /** Column of the second tag on the lesson's line 6. */
  readonly secondColumn: number;
  /** Rebuild the page without block `i` (0 or 1). */
  dropBlock(i: number): void;
  /** Make block `i` claim another place in the lesson. */
  retarget(i: number, at: string): void;
  remove(): void;
}

/**
 * A tiny tree, written by hand, for what the real chapter does not have: a lesson with two tags on
 * one line (docs/x.mdx:6), a golden file listed in the manifest, and the page those would build.
 * The blocks are written as the components write them (data-klog-kind, data-src, data-lines,
 * data-sha256, data-lesson with line and column, the command caption).
 */
export function makeMiniSite(): MiniSite {
  const root = mkdtempSync(join(tmpdir(), 'klog-mini-'));
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  const first = '<RunOutput file="expected/x.txt" section="a" />';
  const second = '<RunOutput file="expected/x.txt" section="b" />';
  write('pnpm-workspace.yaml', 'packages: []\n');
  write('docs/x.mdx', `---\ntitle: x\nchapter: 1\n---\n\n${first} ${second}\n`);
  write('expected/x.txt', '== a ==\nA\n\n== b ==\nB\n');
  write('expected/manifest.json', JSON.stringify({ golden: [{ file: 'x.txt', args: ['x'] }] }));
  const blocks = [
    { src: 'expected/x.txt#a', lines: '1-2', text: '== a ==\nA\n', at: 'docs/x.mdx:6:1' },
    { src: 'expected/x.txt#b', lines: '4-5', text: '== b ==\nB\n', at: `docs/x.mdx:6:${first.length + 2}` },
  ];
  const page = 'apps/docs/dist/x/index.html';
  const render = () =>
    write(
      page,
      `<!doctype html><html lang="th"><body><main><div class="sl-markdown-content">${blocks
        .map(
          (b) =>
            `<figure data-klog-kind="output" data-src="${b.src}" data-lines="${b.lines}" data-sha256="${sha256(b.text)}" data-lesson="${b.at}"><figcaption><code data-klog-command>$ klog x</code></figcaption><pre><code>${b.text}</code></pre></figure>`,
        )
        .join('')}</div></main></body></html>`,
    );
  render();
  return {
    root,
    secondColumn: first.length + 2,
    dropBlock(i) {
      blocks.splice(i, 1);
      render();
    },
    retarget(i, at) {
      blocks[i]!.at = at;
      render();
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
