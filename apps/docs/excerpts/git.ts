// The commit the site is built from, so an excerpt's header can link to the whole file as it was
// then. Read once per build with git itself; a tree that is not a git checkout (a tarball) says so
// instead of inventing a commit.
import { spawnSync } from 'node:child_process';

export interface BuildCommit {
  /** Full hash, or undefined when the tree is not a git checkout. */
  readonly hash: string | undefined;
  readonly short: string;
  /** Repository-relative files that differ from the commit (uncommitted edits). */
  readonly dirty: ReadonlySet<string>;
}

let cached: BuildCommit | undefined;

export function buildCommit(root: string): BuildCommit {
  if (cached) return cached;
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', 'HEAD');
  if (head.status !== 0) {
    cached = { hash: undefined, short: 'ไม่ทราบ commit', dirty: new Set() };
    return cached;
  }
  const hash = head.stdout.trim();
  const status = git('status', '--porcelain', '--untracked-files=all', '--', 'packages');
  const dirty = new Set(
    status.stdout
      .split('\n')
      .filter((l) => l.length > 3)
      .map((l) => l.slice(3).replace(/^.* -> /, '')),
  );
  cached = { hash, short: hash.slice(0, 10), dirty };
  return cached;
}

/** Where the site shows the whole of a source file: /source/<file>/ (see src/pages/source). */
export function sourcePageOf(file: string): string {
  return `/source/${file}/`;
}
