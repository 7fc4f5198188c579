import { renameSync, unlinkSync } from 'node:fs';
import { DecodeError, StorageError } from '../errors.js';
import { lastOffsetOf } from '../format/record-batch.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io, ioError } from '../io/io.js';
import { LogSegment } from '../segment/log-segment.js';
import { type RecoveryReport, recoverSegment } from '../segment/recovery.js';
import type { SegmentFileCache } from '../segment/segment-file-cache.js';
import { indexPathsOf, segmentPathOfSwap } from '../segment/segment-name.js';
import { listLogDir } from './log-dir.js';

/** What `loadLog` found on disk: the segments, oldest first (the last one active), and where the log ends. */
export interface LoadedLog {
  readonly segments: LogSegment[];
  readonly logEndOffset: number;
  /** What recovery had to cut from the active segment; undefined when it was whole. */
  readonly recovery: RecoveryReport | undefined;
  /** Offsets no segment holds (a segment deleted, or records compacted away at a segment's end). */
  readonly gaps: readonly OffsetGap[];
}

/** Offsets `from`..`to` that no segment holds, and the segment after them. */
export interface OffsetGap {
  readonly from: number;
  readonly to: number;
  /** The segment the gap ends at. */
  readonly before: string;
}

/**
 * Kafka's `LogLoader`: load a partition directory whose lock the caller holds. Work a crash
 * interrupted is finished first (`finishInterruptedWork`); the segments are opened (inactive
 * ones lazily, through `files`); the active segment is recovered (`recoverSegment`: a torn or
 * corrupt tail is saved next to it and cut) and its index files written anew; and it must
 * follow on from the segment before it (`checkFollowsOn`). A directory with no segment gets
 * an empty one at offset 0. On failure every segment opened is closed again.
 */
export function loadLog(dir: string, files: SegmentFileCache): LoadedLog {
  const segments: LogSegment[] = [];
  try {
    const listing = finishInterruptedWork(dir);
    listing.segments.forEach((s, i) => {
      const last = i === listing.segments.length - 1;
      const nextBaseOffset = listing.segments[i + 1]?.baseOffset;
      segments.push(
        last
          ? LogSegment.open(s.path, s.baseOffset)
          : LogSegment.open(s.path, s.baseOffset, { readOnly: true, cache: files, nextBaseOffset }),
      );
    });
    const created = segments.length === 0;
    if (created) {
      segments.push(LogSegment.create(dir, 0));
      fsyncDirectory(dir);
    }
    const active = segments.at(-1)!;
    // Recovery reads with the readers' limit, not the setting: what an append once accepted is never cut for its size.
    const recovery = recoverSegment(active);
    // The active segment's index, from what recovery kept; its files, whatever a crash left in them, written anew.
    if (!created) active.startIndexFiles();
    // An empty active segment was rolled at the log end offset, so its base offset is the LEO.
    const logEndOffset = recovery.nextOffset ?? active.baseOffset;
    checkFollowsOn(segments);
    const gaps = findGaps(segments);
    return { segments, logEndOffset, recovery: recovery.kind === 'clean' ? undefined : recovery, gaps };
  } catch (error) {
    for (const segment of segments) segment.close();
    throw error;
  }
}

/** Remove a segment's `.index` and `.timeindex` (derived data: rebuilt from the segment when missing). */
export function removeIndexFiles(segmentPath: string): void {
  const { offsets, times } = indexPathsOf(segmentPath);
  for (const path of [offsets, times]) {
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('remove index file', path, error);
    }
  }
}

/**
 * Finish what a crash interrupted, before the log is read (Kafka's `LogLoader` does the
 * same with its `.swap`, `.cleaned` and `.deleted` files): a committed compaction's
 * `.swap` files replace their segments; half-written files (`.cleaned`, `.tmp`) are
 * removed, since nothing was cut or replaced on their account.
 */
function finishInterruptedWork(dir: string): ReturnType<typeof listLogDir> {
  const listing = listLogDir(dir);
  if (listing.swaps.length === 0 && listing.unfinished.length === 0) return listing;
  for (const path of listing.unfinished) io('remove unfinished file', path, () => unlinkSync(path));
  for (const swap of listing.swaps) {
    const target = segmentPathOfSwap(swap.path);
    // A swap that cleaned a group of segments replaces the ones after its first too: those whose base
    // offset lies below where the swap ends (Kafka's `LogLoader` deletes [swap base, swap next offset)).
    const end = nextOffsetOfSwap(swap.path, swap.baseOffset);
    for (const covered of listing.segments) {
      if (covered.baseOffset <= swap.baseOffset || covered.baseOffset >= end) continue;
      removeIndexFiles(covered.path);
      io('remove segment a cleaned swap replaces', covered.path, () => unlinkSync(covered.path));
    }
    // The old segment's index would point into the old bytes: removed first, rebuilt from the cleaned segment.
    removeIndexFiles(target);
    io('finish the swap of cleaned segment', swap.path, () => renameSync(swap.path, target));
  }
  fsyncDirectory(dir);
  return listLogDir(dir);
}

/** The offset after the last batch of a committed (so whole, fsynced) `.swap` file; its base offset when empty. */
function nextOffsetOfSwap(path: string, baseOffset: number): number {
  const swap = LogSegment.open(path, baseOffset, { readOnly: true });
  try {
    let end = baseOffset;
    for (const { header } of swap.headers()) end = lastOffsetOf(header) + 1;
    return end;
  } finally {
    swap.close();
  }
}

/**
 * Where the segments do not meet: offsets before the first segment (klog deletes no segment, so a log
 * that does not start at 0 lost its first), and between a segment's last offset and the next one's base
 * offset (a segment deleted by hand; or a compaction that removed a segment's last records, which is no
 * damage: the report says which it may be). Read from each segment's last index entry on, as
 * `checkFollowsOn` reads the one before the active segment. Kafka's `LogLoader` logs what it finds the same way.
 */
function findGaps(segments: readonly LogSegment[]): OffsetGap[] {
  const gaps: OffsetGap[] = [];
  if (segments[0]!.baseOffset > 0)
    gaps.push({ from: 0, to: segments[0]!.baseOffset - 1, before: segments[0]!.path });
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1]!;
    let last: number | undefined;
    try {
      for (const { header } of segment.headers(segment.lastIndexedPosition())) last = lastOffsetOf(header);
    } catch (error) {
      // A damaged segment is reported when it is read.
      if (!(error instanceof DecodeError)) throw error;
    }
    const from = last === undefined ? segment.baseOffset : last + 1;
    if (from < next.baseOffset) gaps.push({ from, to: next.baseOffset - 1, before: next.path });
  }
  return gaps;
}

/**
 * Each segment's offsets must end before the next one's base offset. The older
 * segments are checked when read (`nextBaseOffset`); the one before the active segment
 * is checked now, since the log end offset depends on it: an active segment whose
 * name is below where that one ends would hand out offsets the log already holds.
 */
function checkFollowsOn(segments: readonly LogSegment[]): void {
  const previous = segments.at(-2);
  if (previous === undefined) return;
  const active = segments.at(-1)!;
  let last: number | undefined;
  try {
    // From the last index entry on: opening a log does not scan its older segments.
    for (const { header } of previous.headers(previous.lastIndexedPosition())) last = lastOffsetOf(header);
  } catch (error) {
    // A damaged older segment is reported when it is read; what it holds before the damage still counts.
    if (!(error instanceof DecodeError)) throw error;
  }
  if (last !== undefined && last >= active.baseOffset) {
    throw new StorageError(
      'CORRUPT_MESSAGE',
      `${active.path} starts at offset ${active.baseOffset}, but ${previous.path} holds offsets up to ${last}: ` +
        'the active segment would hand out offsets the log already has',
      { path: active.path },
    );
  }
}
