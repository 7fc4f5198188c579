import { closeSync, fsyncSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { ProducerState } from '@klog/core';
import { StorageError } from '../errors.js';
import { rewriteBatch } from '../format/batch-builder.js';
import type { Record } from '../format/record.js';
import { lastOffsetOf, type RecordBatch } from '../format/record-batch.js';
import { fsyncDirectory } from '../io/fsync.js';
import { CREATE_NEW, io, ioError, openRegular } from '../io/io.js';
import type { Log } from '../log/log.js';
import { addBatchFromHeader } from '../producer/producer-state-rebuild.js';
import type { LogSegment } from '../segment/log-segment.js';
import { DEFAULT_INDEX_INTERVAL_BYTES } from '../segment/segment-index.js';
import { cleanedPathOf, swapPathOf } from '../segment/segment-name.js';
import { OffsetMap } from './offset-map.js';

export interface CompactionOptions {
  /** Drop tombstones (null values) too, instead of keeping the latest one per key. Default false. */
  readonly removeTombstones?: boolean;
  /**
   * Memory for the key → offset map of one pass, in bytes (Kafka's
   * `log.cleaner.dedupe.buffer.size`, 128 MiB by default). Each distinct key costs 24
   * bytes; a log with more keys than fit is cleaned in several passes.
   */
  readonly dedupeBufferBytes?: number;
}

export interface CompactionReport {
  /** Segments compaction read and rewrote: every one but the active segment. */
  readonly segmentsCleaned: number;
  /** Passes over the log: one per fill of the dedupe buffer. */
  readonly passes: number;
  /** Bytes the dedupe buffer took in memory (at most `dedupeBufferBytes`). */
  readonly dedupeBufferBytes: number;
  readonly batchesBefore: number;
  readonly batchesAfter: number;
  readonly recordsBefore: number;
  readonly recordsAfter: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/** Kafka's `log.cleaner.dedupe.buffer.size`. */
export const DEFAULT_DEDUPE_BUFFER_BYTES = 128 * 1024 * 1024;

/**
 * Key-based compaction (chapter 6, Kafka's `LogCleaner`): for each key only the
 * record with the highest offset survives; a null value is a tombstone that hides
 * older values; records without a key are kept.
 *
 * As in Kafka, the active segment is never cleaned: it is where appends go, and it
 * is what the producer-state rebuild reads, so a restart after a clean finds exactly
 * the producer windows it would have found without one.
 *
 * Memory is bounded as in Kafka: each pass fills a fixed-size map of key hashes →
 * latest offset (`OffsetMap`, Kafka's `SkimpyOffsetMap`) from where the last pass
 * stopped, then rewrites every segment up to there, dropping each record whose key
 * the map has at a later offset. A key the map does not hold is kept for a later pass.
 *
 * Batches are rewritten with `rewriteBatch`, which keeps producerId, producerEpoch,
 * baseSequence and the batch's first and last offset. An emptied batch is dropped
 * unless it is its producer's last batch in the log (replayed over the whole log, epochs
 * included), as Kafka's cleaner keeps it.
 *
 * Crash safety, as Kafka's `.cleaned` / `.swap` files: each cleaned segment is written
 * to `<base>.log.cleaned` and fsynced; then, in offset order, each is renamed to
 * `.swap` (the commit) and over its segment. `Log.open` removes `.cleaned` files and
 * finishes `.swap` renames, so a crash leaves each segment either as it was or cleaned,
 * and the cleaned ones are always the first ones, never a mix that loses a value.
 */
export function compact(
  partition: { compact(options?: CompactionOptions): CompactionReport },
  options: CompactionOptions = {},
): CompactionReport {
  return partition.compact(options);
}

/** `compact` on the log itself: the cleaned segments replace the old ones through `Log.replaceWithCleaned`. */
export function compactLog(log: Log, options: CompactionOptions = {}): CompactionReport {
  const budget = options.dedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES;
  if (!Number.isSafeInteger(budget) || budget < 24) {
    throw new StorageError(
      'INVALID_CONFIG',
      `the dedupe buffer needs at least 24 bytes, got ${String(budget)}`,
    );
  }
  const cleanable = log.segments.slice(0, -1);
  const report = {
    segmentsCleaned: cleanable.length,
    passes: 0,
    dedupeBufferBytes: 0,
    batchesBefore: 0,
    batchesAfter: 0,
    recordsBefore: 0,
    recordsAfter: 0,
    bytesBefore: cleanable.reduce((sum, s) => sum + s.size, 0),
    bytesAfter: 0,
  };
  const end = log.activeSegment.baseOffset;
  const windows = mustKeep(log);
  let keyed = 0;
  for (const segment of cleanable) {
    for (const { batch } of segment.batches()) {
      report.batchesBefore++;
      report.recordsBefore += batch.records.length;
      for (const record of batch.records) if (record.key !== null) keyed++;
    }
  }
  if (cleanable.length === 0) return report;
  const map = new OffsetMap(Math.min(budget, OffsetMap.bytesFor(keyed)));
  report.dedupeBufferBytes = map.bytes;
  let start = log.logStartOffset;
  while (start < end) {
    map.clear();
    // Each pass replaces segment objects: take the log's current ones.
    const current = log.segments.slice(0, -1);
    const mapEnd = fillMap(current, map, start, end);
    const touched = current.filter((s) => s.baseOffset < mapEnd);
    const groups = groupSegmentsBySize(touched, log.config.segmentBytes);
    const counts = rewrite(log, groups, map, windows, options.removeTombstones === true);
    report.passes++;
    // The last pass saw the final state of every segment it rewrote.
    if (mapEnd >= end) Object.assign(report, counts);
    start = mapEnd;
  }
  report.bytesAfter = log.segments.slice(0, -1).reduce((sum, s) => sum + s.size, 0);
  return report;
}

// #region compaction-must-keep
/**
 * The batches compaction keeps even when it empties them: each producer's last batch in
 * the log (Kafka's `LogCleaner` keeps a batch while it is its producer's last, so that a
 * rebuild from the log finds the producer's last sequence and epoch). Found by replaying
 * the batch headers into core's `ProducerState` (a new epoch starts a new window, as in
 * Kafka). An emptied batch its producer wrote after goes: the `.snapshot` files and the
 * uncleaned active segment hold the rest of the window. Known by their last offset.
 */
function mustKeep(log: Log): Set<number> {
  const state = new ProducerState();
  for (const segment of log.segments) {
    for (const { header } of segment.headers()) addBatchFromHeader(state, header);
  }
  const kept = new Set<number>();
  for (const pid of state.producerIds()) {
    const last = state.get(pid)!.batches.at(-1);
    if (last !== undefined) kept.add(last.lastOffset);
  }
  return kept;
}
// #endregion compaction-must-keep

/**
 * Fill `map` with the keys of the batches from offset `start` on, up to `end` or
 * until the next batch's keys would not fit; returns the offset the map reaches
 * (every key of every batch below it is in the map).
 */
function fillMap(segments: readonly LogSegment[], map: OffsetMap, start: number, end: number): number {
  for (const segment of segments) {
    if (segment.nextBaseOffset !== undefined && segment.nextBaseOffset <= start) continue;
    for (const { batch } of segment.batches()) {
      if (lastOffsetOf(batch) < start) continue;
      let keys = 0;
      for (const record of batch.records) if (record.key !== null) keys++;
      if (map.size + keys > map.capacity) {
        if (map.size === 0) {
          throw new StorageError(
            'DEDUPE_BUFFER_TOO_SMALL',
            `the dedupe buffer holds ${map.capacity} keys, and the batch at offset ${batch.baseOffset} has ${keys}`,
          );
        }
        return batch.baseOffset;
      }
      for (const record of batch.records) {
        if (record.key !== null) map.put(record.key, batch.baseOffset + record.offsetDelta);
      }
    }
  }
  return end;
}

/** Kafka's `segment.index.bytes` default (10 MiB) over its 8-byte entries: what one segment's offset index holds. */
const MAX_INDEX_ENTRIES = (10 * 1024 * 1024) / 8;
/** Offsets in one segment are stored relative to its base offset in 4 bytes (Kafka's `OffsetIndex`). */
const MAX_RELATIVE_OFFSET = 2 ** 31 - 1;

/**
 * Kafka's `LogCleaner.groupSegmentsBySize`: adjacent segments, in offset order, go into one group
 * while their bytes stay within `segment.bytes`, their index entries within one index, and their
 * offsets within one segment's relative-offset range. Each group is cleaned into one segment named
 * for its first base offset, so repeated cleaning does not leave a file per small segment.
 * (The index entries are estimated from the bytes: klog indexes one entry per 4 KiB or less.)
 */
export function groupSegmentsBySize(segments: readonly LogSegment[], maxBytes: number): LogSegment[][] {
  const groups: LogSegment[][] = [];
  let i = 0;
  while (i < segments.length) {
    const first = segments[i]!;
    const group = [first];
    let bytes = first.size;
    let entries = indexEntriesOf(first);
    i++;
    while (i < segments.length) {
      const next = segments[i]!;
      // The group would reach up to the offset before the segment after `next`.
      const lastOffset = (next.nextBaseOffset ?? next.baseOffset + 1) - 1;
      if (
        bytes + next.size > maxBytes ||
        entries + indexEntriesOf(next) > MAX_INDEX_ENTRIES ||
        lastOffset - first.baseOffset > MAX_RELATIVE_OFFSET
      ) {
        break;
      }
      group.push(next);
      bytes += next.size;
      entries += indexEntriesOf(next);
      i++;
    }
    groups.push(group);
  }
  return groups;
}

function indexEntriesOf(segment: LogSegment): number {
  return Math.ceil(segment.size / DEFAULT_INDEX_INTERVAL_BYTES);
}

/** The last offset of the last batch in `group`, or undefined when its segments hold no batch. */
function lastOffsetOfGroup(group: readonly LogSegment[]): number | undefined {
  for (let i = group.length - 1; i >= 0; i--) {
    let last: number | undefined;
    for (const { header } of group[i]!.headers(group[i]!.lastIndexedPosition())) last = lastOffsetOf(header);
    if (last !== undefined) return last;
  }
  return undefined;
}

/**
 * Write one cleaned segment per group (`<first base>.log.cleaned`), then commit them all and
 * swap them in. Returns the counts of what the rewritten segments hold now.
 *
 * A group of several segments keeps its last batch, emptied if need be: recovery finds which
 * old segments a committed `.swap` replaces from the offsets it holds (Kafka's `LogLoader` deletes
 * the segments in [swap base, swap next offset)), so the swap must reach into its last segment.
 */
function rewrite(
  log: Log,
  groups: readonly (readonly LogSegment[])[],
  map: OffsetMap,
  windows: ReadonlySet<number>,
  removeTombstones: boolean,
): Pick<CompactionReport, 'batchesAfter' | 'recordsAfter'> {
  const survives = (batch: RecordBatch, record: Record) => {
    if (record.key === null) return true;
    const offset = batch.baseOffset + record.offsetDelta;
    const latest = map.get(record.key);
    if (latest === -1 || offset > latest) return true;
    if (offset < latest) return false;
    return !(removeTombstones && record.value === null);
  };
  const counts = { batchesAfter: 0, recordsAfter: 0 };
  const written: string[] = [];
  try {
    for (const group of groups) {
      const path = cleanedPathOf(group[0]!.path);
      const groupEnd = group.length > 1 ? lastOffsetOfGroup(group) : undefined;
      written.push(path);
      const fd = openRegular(path, CREATE_NEW, 'cleaned segment');
      try {
        for (const segment of group) {
          for (const { position, batch } of segment.batches()) {
            const kept = batch.records.filter((r) => survives(batch, r));
            const last = lastOffsetOf(batch);
            if (kept.length === 0 && !windows.has(last) && last !== groupEnd) continue;
            // A batch that loses nothing is copied byte for byte, as it was written.
            const out =
              kept.length === batch.records.length
                ? segment.readCheckedBatchAt(position).bytes
                : rewriteBatch(batch, kept);
            let done = 0;
            while (done < out.length) done += writeSync(fd, out, done, out.length - done);
            counts.batchesAfter++;
            counts.recordsAfter += kept.length;
          }
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    fsyncDirectory(log.dir);
  } catch (error) {
    for (const path of written) {
      try {
        unlinkSync(path);
      } catch {
        // Removed on the next open anyway.
      }
    }
    throw ioError('write cleaned segment', log.dir, error);
  }
  // The commit: in offset order, so a crash leaves the first groups cleaned and the rest as they were.
  for (const group of groups) {
    const first = group[0]!;
    io('commit cleaned segment', first.path, () =>
      renameSync(cleanedPathOf(first.path), swapPathOf(first.path)),
    );
  }
  fsyncDirectory(log.dir);
  log.replaceWithCleaned(groups.map((g) => g.map((s) => s.baseOffset)));
  return counts;
}
