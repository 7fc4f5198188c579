// Which commit a quoted file is shown at, so an excerpt's header can link to the whole file as it
// was built. The commit is the last one that changed the file (`git log -1 -- file`): the file at
// that commit is byte for byte the file the site was built from, and the answer does not go stale
// when later commits leave the file alone (turbo reuses a build whose inputs did not change).
// Uncommitted edits are said as such; a tree that is not a git checkout (a tarball) says so too.
import { spawnSync } from 'node:child_process';

export interface FileCommit {
  /** Full hash, or undefined when the tree is not a git checkout or the file is not committed. */
  readonly hash: string | undefined;
  /** What a reader is shown: the short hash, or why there is none. */
  readonly short: string;
  /** The file differs from that commit (uncommitted edits). */
  readonly dirty: boolean;
}

const cache = new Map<string, FileCommit>();

export function fileCommit(root: string, file: string): FileCommit {
  const known = cache.get(file);
  if (known) return known;
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const log = git('log', '-1', '--format=%H', '--', file);
  const hash = log.status === 0 && /^[0-9a-f]{40}$/.test(log.stdout.trim()) ? log.stdout.trim() : undefined;
  const status = git('status', '--porcelain', '--', file);
  const dirty = status.status === 0 && status.stdout.trim() !== '';
  const result: FileCommit = {
    hash,
    short: hash ? hash.slice(0, 10) : log.status === 0 ? 'ยังไม่ commit' : 'ไม่ทราบ commit',
    dirty,
  };
  cache.set(file, result);
  return result;
}

/** Where the site shows the whole of a source file: /source/<file>/ (see src/pages/source). */
export function sourcePageOf(file: string): string {
  return `/source/${file}/`;
}
