import { lstatSync, readdirSync, type Stats, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  type LogDirListing,
  listLogDir,
  PARTITION_METADATA_FILE,
  parseSegmentFileName,
  SEGMENT_SUFFIX,
} from '@klog/storage/internals';
import { UsageError } from '../errors.js';

/** One file to dump: where it is, the base offset its name gives, and the next segment's, if known. */
export interface SegmentFile {
  readonly kind: 'segment';
  readonly path: string;
  /** From a `<20-digit offset>.log` name; undefined for any other name (a `.dropped-N` file, a copy). */
  readonly baseOffset: number | undefined;
  /** The base offset of the segment after it in the same partition directory. */
  readonly nextBaseOffset: number | undefined;
}

/** A file given by path whose name is not a segment's: Kafka's tool says "Ignoring unknown file". */
export interface UnknownFile {
  readonly kind: 'unknown';
  readonly path: string;
}

/** Something in a partition directory named like a segment that is no regular file (a FIFO, a directory): never opened. */
export interface NotAFile {
  readonly kind: 'not-a-file';
  readonly path: string;
  /** What it is instead: `a FIFO`, `a directory`, … */
  readonly type: string;
}

export type DumpItem = SegmentFile | UnknownFile | NotAFile;

/** What `klog dump-log` was pointed at: the files to dump and, for a directory, what else is in it. */
export interface DumpPlan {
  readonly files: readonly DumpItem[];
  /** Files recovery left next to the segments (`<segment>.log.dropped-<position>`): not part of the log. */
  readonly dropped: readonly string[];
  /** Other regular files found in a partition directory (a README.md): named on stderr, as Kafka's tool does. */
  readonly ignored: readonly string[];
}

const DROPPED = /\.log\.dropped-\d+(\.\d+)?$/;

/**
 * Whether a file given by path is dumped: a `.log` file (Kafka's rule, by suffix) or
 * the bytes recovery cut and saved. Anything else is not a segment, whatever it holds.
 */
function isDumpable(name: string): boolean {
  return name.endsWith(SEGMENT_SUFFIX) || DROPPED.test(name);
}

function typeOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a directory';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
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

function list(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (error) {
    throw new UsageError(`dump-log ${path}: cannot list it: ${(error as Error).message}`);
  }
}

/** Subdirectories of `path` that hold segment files: the partitions of a data directory. */
function partitionDirsIn(path: string, names: readonly string[]): string[] {
  return names
    .filter((name) => {
      try {
        const dir = join(path, name);
        return (
          statSync(dir).isDirectory() && readdirSync(dir).some((n) => parseSegmentFileName(n) !== undefined)
        );
      } catch {
        return false;
      }
    })
    .sort();
}

/**
 * The segments of a partition directory in offset order, and what else it holds: the
 * same listing `Log.open` makes (storage's `listLogDir`), taken leniently, so that an
 * entry the log would refuse (a FIFO named like a segment) is shown as a problem
 * instead of ending the dump.
 */
function planDirectory(path: string, files: DumpItem[], dropped: string[], ignored: string[]): void {
  let listing: LogDirListing;
  try {
    listing = listLogDir(path, { strict: false });
  } catch (error) {
    throw new UsageError(`dump-log ${path}: cannot list it: ${(error as Error).message}`);
  }
  const notFiles = listing.refused
    .map((r) => ({ path: r.path, base: parseSegmentFileName(basename(r.path)) }))
    .filter((r): r is { path: string; base: number } => r.base !== undefined);
  if (listing.segments.length === 0 && notFiles.length === 0) {
    const names = list(path);
    const partitions = partitionDirsIn(path, names);
    if (partitions.length > 0) {
      const shown = partitions.slice(0, 5).join(', ') + (partitions.length > 5 ? ', …' : '');
      throw new UsageError(
        `dump-log ${path}: this is a data directory, not a partition: it holds ${partitions.length} ` +
          `partition director${partitions.length === 1 ? 'y' : 'ies'} (${shown}); dump one, e.g. ` +
          `klog dump-log ${join(path, partitions[0]!)}`,
      );
    }
    throw new UsageError(`dump-log ${path}: no segment files (<20-digit offset>.log) in this directory`);
  }
  const items = [
    ...listing.segments.map((s) => ({ base: s.baseOffset, path: s.path, file: true })),
    ...notFiles.map((n) => ({ base: n.base, path: n.path, file: false })),
  ].sort((x, y) => x.base - y.base);
  const bases = listing.segments.map((s) => s.baseOffset);
  for (const item of items) {
    if (!item.file) {
      files.push({ kind: 'not-a-file', path: item.path, type: typeOf(lstatSync(item.path)) });
      continue;
    }
    const next = bases.find((b) => b > item.base);
    files.push({ kind: 'segment', path: item.path, baseOffset: item.base, nextBaseOffset: next });
  }
  dropped.push(...listing.dropped);
  const misnamed = listing.refused
    .filter((r) => parseSegmentFileName(basename(r.path)) === undefined)
    .map((r) => r.path);
  // partition.metadata (the topic id, Kafka's PartitionMetadataFile) is in every partition directory Kafka
  // or klog serve writes: part of the partition, not an unknown file.
  const others = listing.others.filter((p) => basename(p) !== PARTITION_METADATA_FILE);
  ignored.push(
    ...[...others, ...misnamed, ...listing.unfinished, ...listing.swaps.map((s) => s.path)].sort(),
  );
}

/**
 * A segment file is dumped as it is; a partition directory is dumped segment by
 * segment, in offset order, each knowing the next one's base offset. A file that is
 * not a segment is named and left alone, as Kafka's tool does, never read as one.
 */
export function planDump(paths: readonly string[]): DumpPlan {
  const files: DumpItem[] = [];
  const dropped: string[] = [];
  const ignored: string[] = [];
  for (const path of paths) {
    const info = stat(path);
    if (info.isDirectory()) {
      planDirectory(path, files, dropped, ignored);
    } else if (!info.isFile()) {
      throw new UsageError(`dump-log ${path}: ${typeOf(info)}, not a segment file or a partition directory`);
    } else if (isDumpable(basename(path))) {
      files.push({
        kind: 'segment',
        path,
        baseOffset: parseSegmentFileName(basename(path)),
        nextBaseOffset: undefined,
      });
    } else {
      files.push({ kind: 'unknown', path });
    }
  }
  return { files, dropped, ignored };
}
