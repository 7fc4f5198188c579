import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { LOCK_FILE_NAME } from '../io/file-lock.js';
import { entryKind, io } from '../io/io.js';
import { parseSegmentFileName, SEGMENT_SUFFIX } from '../segment/segment-name.js';

/** One segment file found in a partition directory. */
export interface SegmentFileEntry {
  readonly name: string;
  readonly path: string;
  readonly baseOffset: number;
}

/** What a partition directory holds, by kind; segments in offset order. */
export interface LogDirListing {
  readonly segments: readonly SegmentFileEntry[];
  /** Bytes recovery cut from a segment and kept (`<segment>.log.dropped-<position>[.n]`): not part of the log. */
  readonly dropped: readonly string[];
  /** Files a crash left half-written (`*.tmp`, `*.cleaned`): never part of the log, removed on open. */
  readonly unfinished: readonly string[];
  /** Cleaned segments whose swap was committed (`<segment>.log.swap`): open completes it. */
  readonly swaps: readonly SegmentFileEntry[];
  /**
   * With `strict: false` only: entries named like segments that are not regular files,
   * and `.log` files whose name is not a segment's, each with why (strict listing throws).
   */
  readonly refused: readonly { readonly path: string; readonly error: StorageError }[];
  /** Regular files that are none of the above, nor the lock or the derived index and snapshot files. */
  readonly others: readonly string[];
}

const DERIVED = /^\d{20}\.(index|timeindex|snapshot)$/;

const DROPPED = /^\d{20}\.log\.dropped-\d+(\.\d+)?$/;
const SWAP = /^(\d{20}\.log)\.swap$/;
const UNFINISHED = /(\.tmp|\.cleaned)$/;

function notASegment(path: string, why: string): StorageError {
  return new StorageError('NOT_A_SEGMENT', `${path} ${why}`, { path });
}

/**
 * List a partition directory (Kafka's `LogLoader` does the same walk), without
 * following anything: a segment file, or anything named like one, must be a
 * regular file, and a `.log` file whose name is not a segment's is refused rather
 * than skipped, so no data is ever silently left out of the log.
 */
export function listLogDir(dir: string, options: { readonly strict?: boolean } = {}): LogDirListing {
  const strict = options.strict !== false;
  const entries = io('list partition directory', dir, () => readdirSync(dir, { withFileTypes: true }));
  const refused: { path: string; error: StorageError }[] = [];
  const others: string[] = [];
  const refuse = (error: StorageError) => {
    if (strict) throw error;
    refused.push({ path: error.path!, error });
  };
  const segments: SegmentFileEntry[] = [];
  const dropped: string[] = [];
  const unfinished: string[] = [];
  const swaps: SegmentFileEntry[] = [];
  const regular = (entry: Dirent, path: string, what: string): boolean => {
    if (!entry.isFile()) {
      refuse(
        notASegment(
          path,
          `is ${entryKind(entry)}, not a regular file: klog never follows one in place of ${what}`,
        ),
      );
      return false;
    }
    return true;
  };
  for (const entry of entries) {
    const name = entry.name;
    const path = join(dir, name);
    const baseOffset = parseSegmentFileName(name);
    if (baseOffset !== undefined) {
      if (regular(entry, path, 'a segment')) segments.push({ name, path, baseOffset });
    } else if (name.endsWith(SEGMENT_SUFFIX)) {
      refuse(
        notASegment(
          path,
          `is named like a segment but is not one: a segment is <20-digit offset>${SEGMENT_SUFFIX}`,
        ),
      );
    } else if (DROPPED.test(name)) {
      dropped.push(path);
    } else if (SWAP.test(name)) {
      if (regular(entry, path, 'a cleaned segment')) {
        const segment = SWAP.exec(name)![1]!;
        swaps.push({ name, path, baseOffset: parseSegmentFileName(segment)! });
      }
    } else if (UNFINISHED.test(name) && entry.isFile()) {
      unfinished.push(path);
    } else if (name !== LOCK_FILE_NAME && !DERIVED.test(name) && entry.isFile()) {
      others.push(path);
    }
  }
  segments.sort((a, b) => a.baseOffset - b.baseOffset);
  swaps.sort((a, b) => a.baseOffset - b.baseOffset);
  dropped.sort();
  others.sort();
  return { segments, dropped, unfinished, swaps, refused, others };
}
