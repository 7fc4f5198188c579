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
