import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  type Stats,
  statSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MAX_SEQUENCE } from '@klog/core';
import { UsageError } from '../errors.js';

export interface IdemDemoOptions {
  readonly pid: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly resend: boolean;
  readonly nowMs: number;
  /** Keep the partitions here instead of in a temporary directory. */
  readonly dataDir: string | undefined;
}

/** The fill before A goes in one batch, which must stay well under Kafka's 1 MiB batch limit. */
export const MAX_FIRST_SEQ = 10_000;
export const MAX_BATCH_RECORDS = 1_000;
/** The demo also uses pid + 1 for "a new process", so the pid must leave room for it. */
export const MAX_DEMO_PID = Number.MAX_SAFE_INTEGER - 1;

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} ${text}: expected a whole number`);
  return Number(text);
}

export function parsePid(text: string): number {
  if (!/^\d+$/.test(text)) {
    throw new UsageError(`--pid ${text}: a producer id is a whole number from 0 to ${MAX_DEMO_PID}`);
  }
  const pid = Number(text);
  if (!Number.isSafeInteger(pid) || pid > MAX_DEMO_PID) {
    throw new UsageError(
      `--pid ${text}: past ${MAX_DEMO_PID}, the largest the demo can use (pid + 1 must stay below 2^53)`,
    );
  }
  return pid;
}

export function parseSeqRange(text: string): { first: number; last: number } {
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`--seq ${text}: expected A..B with whole numbers, e.g. 7..9`);
  const [first, last] = [Number(match[1]), Number(match[2])];
  for (const n of [first, last]) {
    if (!Number.isSafeInteger(n) || n > MAX_SEQUENCE) {
      throw new UsageError(
        `--seq ${text}: ${match[first === n ? 1 : 2]} is past the largest sequence number ${MAX_SEQUENCE}`,
      );
    }
  }
  if (first > last) throw new UsageError(`--seq ${text}: the first sequence is greater than the last`);
  if (first > MAX_FIRST_SEQ) {
    throw new UsageError(`--seq ${text}: the demo sends 0..A-1 first, so A can be at most ${MAX_FIRST_SEQ}`);
  }
  if (last - first + 1 > MAX_BATCH_RECORDS) {
    throw new UsageError(
      `--seq ${text}: a batch of at most ${MAX_BATCH_RECORDS} records, this one has ${last - first + 1}`,
    );
  }
  return { first, last };
}

export function parseNowMs(text: string): number {
  const n = wholeNumber('--now-ms', text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--now-ms ${text}: past the largest safe timestamp`);
  return n;
}

/** What went wrong with a file system call, in words: the errno code alone means little to a reader. */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return code ?? String(error);
  }
}

/** lstat, or undefined where nothing is (ENOTDIR: a file stands where a directory of the path would). */
function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * --data-dir must be a new or empty directory that klog can write: the demo never mixes its partitions
 * with other data. A missing one is created here, one level at a time (never `mkdir -p`, which on a
 * path like /proc/x retries forever), so that every way it can fail is one line naming the problem.
 */
export function prepareDataDir(dir: string): string {
  const flag = `--data-dir ${dir}`;
  if (dir === '') throw new UsageError('--data-dir: the path is empty; give a new or empty directory');
  const path = resolve(dir);
  const link = lstatOrNothing(path);
  if (link?.isSymbolicLink() && !existsSync(path)) {
    throw new UsageError(`${flag}: a symbolic link to ${readlinkSync(path)}, which does not exist`);
  }
  let info: Stats | undefined;
  try {
    info = existsSync(path) ? statSync(path) : undefined;
  } catch (error) {
    throw new UsageError(`${flag}: ${reason(error)}`);
  }
  if (info !== undefined) {
    if (!info.isDirectory()) throw new UsageError(`${flag}: is a file, not a directory`);
    let entries: string[];
    try {
      entries = readdirSync(path);
      accessSync(path, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new UsageError(`${flag}: cannot use it: ${reason(error)}`);
    }
    if (entries.length > 0) {
      throw new UsageError(`${flag}: is not empty; give a new or empty directory so no data is mixed`);
    }
    return dir;
  }
  // Climb to the nearest part of the path that exists; it must be a directory.
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    let found: Stats | undefined;
    try {
      found = lstatOrNothing(existing);
      if (found?.isSymbolicLink()) found = statSync(existing);
    } catch (error) {
      throw new UsageError(`${flag}: cannot look at ${existing}: ${reason(error)}`);
    }
    if (found !== undefined) {
      if (!found.isDirectory()) throw new UsageError(`${flag}: ${existing} is a file, not a directory`);
      break;
    }
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const part of missing) {
    try {
      mkdirSync(part);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new UsageError(
          `${flag}: cannot create ${part}: ${dirname(part)} does not take new directories`,
        );
      }
      throw new UsageError(`${flag}: cannot create ${part}: ${reason(error)}`);
    }
  }
  return dir;
}
