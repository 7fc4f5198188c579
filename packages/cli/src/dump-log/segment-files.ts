import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseSegmentFileName } from '@klog/storage';
import { UsageError } from '../errors.js';

/** One file to dump: where it is, the base offset its name gives, and the next segment's, if known. */
export interface SegmentFile {
  readonly path: string;
  /** From a `<20-digit offset>.log` name; undefined for any other name (a `.dropped-N` file, a copy). */
  readonly baseOffset: number | undefined;
  /** The base offset of the segment after it in the same partition directory. */
  readonly nextBaseOffset: number | undefined;
}

/** What `klog dump-log` was pointed at: the files to dump and, for a directory, what else is in it. */
export interface DumpPlan {
  readonly files: readonly SegmentFile[];
  /** Files recovery left next to the segments (`<segment>.log.dropped-<position>`): not part of the log. */
  readonly dropped: readonly string[];
}

function stat(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`dump-log ${path}: no such file or directory`);
    if (code === 'EACCES') throw new UsageError(`dump-log ${path}: permission denied`);
    throw new UsageError(`dump-log ${path}: ${(error as Error).message}`);
  }
}

/**
 * A segment file is dumped as it is; a partition directory is dumped segment by
 * segment, in offset order, each knowing the next one's base offset.
 */
export function planDump(paths: readonly string[]): DumpPlan {
  const files: SegmentFile[] = [];
  const dropped: string[] = [];
  for (const path of paths) {
    const info = stat(path);
    if (info.isFile()) {
      files.push({ path, baseOffset: parseSegmentFileName(basename(path)), nextBaseOffset: undefined });
      continue;
    }
    if (!info.isDirectory()) throw new UsageError(`dump-log ${path}: not a file or a directory`);
    let names: string[];
    try {
      names = readdirSync(path);
    } catch (error) {
      throw new UsageError(`dump-log ${path}: cannot list it: ${(error as Error).message}`);
    }
    const segments = names
      .map((name) => ({ name, base: parseSegmentFileName(name) }))
      .filter((s): s is { name: string; base: number } => s.base !== undefined)
      .sort((a, b) => a.base - b.base);
    if (segments.length === 0) {
      throw new UsageError(`dump-log ${path}: no segment files (<20-digit offset>.log) in this directory`);
    }
    segments.forEach((s, i) => {
      files.push({ path: join(path, s.name), baseOffset: s.base, nextBaseOffset: segments[i + 1]?.base });
    });
    dropped.push(
      ...names
        .filter((n) => /\.log\.dropped-\d+(\.\d+)?$/.test(n))
        .sort()
        .map((n) => join(path, n)),
    );
  }
  return { files, dropped };
}
