import { closeSync, existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { DecodeError } from './errors.js';
import { fsyncDirectory } from './fsync.js';
import { DEFAULT_MAX_BATCH_BYTES, lastOffsetOf, MAGIC_V2, RECORD_BATCH_OVERHEAD } from './record-batch.js';
import type { LogSegment } from './segment.js';

const MAGIC_OFFSET = 16;

/**
 * Recovery on open, like Kafka's `LogLoader` / `LogSegment.recover` after an
 * unclean shutdown, with one difference: nothing is deleted. What is cut from the
 * segment is first saved, whole, next to it.
 *
 * Which segment: only the active one. Kafka recovers the segments after its
 * recovery point (the last flushed offset, in `recovery-point-offset-checkpoint`);
 * klog has no checkpoint, but it needs none: a segment stops being active only at
 * a roll, and a roll fsyncs it before the next segment is created, so every older
 * segment reached the disk whole. Damage that happens later (a bad disk, a stray
 * write) is found when the batch is read: `Log.read` raises a DecodeError naming
 * the file and byte, serving the batches before it; `klog dump-log` shows it.
 *
 * What the active segment may hold after a crash, and what recovery calls it:
 * - `torn-tail`: the last batch is incomplete. The file ends inside it, or it ends
 *   at the end of the file but fails its CRC (its last pages never reached the
 *   disk), or the rest of the file is zeros (space the filesystem allocated but
 *   never wrote). This is the normal result of a crash in the middle of an append:
 *   that append was never acknowledged under `flush: 'every-append'`.
 * - `corruption`: bytes that could be batches follow the first invalid one (a
 *   whole batch with a bad CRC in the middle of the file, or a header that is
 *   garbage with valid batches after it). With `flush: 'os'` a power cut can leave
 *   this (pages reach the disk in any order); otherwise it means damage. Like Kafka,
 *   recovery still cuts at the first invalid batch, since offsets after a hole cannot
 *   be trusted to follow on; the report says how many valid batches were in the
 *   part cut off, and they are in the saved file.
 */

/** What recovery found in a segment and what it did about it. */
export interface RecoveryReport {
  readonly segmentPath: string;
  /** `clean` when the segment was whole and nothing was done. */
  readonly kind: 'clean' | 'torn-tail' | 'corruption';
  /** Whole, valid batches kept. */
  readonly batches: number;
  /** Bytes of valid batches, from the start of the file: where the file was cut. */
  readonly validBytes: number;
  /** Bytes cut from the end of the file (0 when the segment was whole). */
  readonly truncatedBytes: number;
  /** Why the byte at `validBytes` was not the start of a valid batch; names the file and byte. */
  readonly error: DecodeError | undefined;
  /** Valid-looking batches found in the bytes cut off (0 for a torn tail). */
  readonly batchesAfter: number;
  /** Where the cut bytes were saved, so nothing is deleted silently. */
  readonly savedTo: string | undefined;
  /** The offset after the last valid batch; undefined for a segment with no batch. */
  readonly nextOffset: number | undefined;
}

/** One line for a person: what was cut, where, why, and where the bytes are. */
export function describeRecovery(report: RecoveryReport): string {
  const name = basename(report.segmentPath);
  if (report.kind === 'clean') return `${name}: ${report.batches} batches, nothing to recover`;
  const what = report.kind === 'torn-tail' ? 'a torn last batch' : 'corrupt data';
  const after =
    report.batchesAfter > 0
      ? `, ${report.batchesAfter} valid-looking batch${report.batchesAfter === 1 ? '' : 'es'} after it`
      : '';
  const why =
    report.error === undefined
      ? ''
      : ` (${report.error.field} at byte ${report.error.offset}: ${report.error.reason})`;
  return (
    `${name}: found ${what} at byte ${report.validBytes}${why}${after}; ` +
    `cut ${report.truncatedBytes} bytes, kept ${report.batches} batches, saved the cut bytes to ${report.savedTo}`
  );
}

/** What `checkSegment` found: the valid prefix of a segment and, if it is not all of it, why. */
export interface SegmentCheck {
  readonly kind: RecoveryReport['kind'];
  readonly batches: number;
  readonly validBytes: number;
  readonly error: DecodeError | undefined;
  readonly batchesAfter: number;
  readonly nextOffset: number | undefined;
}

/**
 * Validate a segment batch by batch, reading only (`LogSegment.inspect`: length
 * bounds, magic, batch inside the file, CRC-32C, offsets increasing), and find
 * where its valid batches end and why. When a batch starts below where the one
 * before it ended, the one before is not kept either: both baseOffsets are outside
 * the CRC, and either may be the wrong one.
 */
export function checkSegment(segment: LogSegment, maxBatchBytes = DEFAULT_MAX_BATCH_BYTES): SegmentCheck {
  let batches = 0;
  let validBytes = 0;
  let nextOffset: number | undefined;
  // The state before the last kept batch, in case the next one disagrees with it on offsets.
  let before = { validBytes: 0, nextOffset: undefined as number | undefined };
  let error: DecodeError | undefined;
  /** Where the invalid part ends, if it is a whole batch; else where a search for the next batch starts. */
  let resume: { readonly at: number; readonly search: boolean } | undefined;
  let torn = false;
  for (const entry of segment.inspect({ maxBatchBytes })) {
    if (entry.kind === 'stop') {
      error = entry.error;
      resume = { at: entry.position + 1, search: true };
      torn = /^truncated/.test(error.reason) || allZero(segment, entry.position);
      break;
    }
    if (entry.problem !== undefined || entry.header === undefined) {
      error = entry.problem;
      const end = entry.position + entry.bytes.length;
      resume = { at: end, search: false };
      // A whole last batch whose bytes did not all reach the disk; offsets out of order are never a torn write.
      torn = !entry.crcValid && end === segment.size;
      if (entry.previousSuspect) {
        batches--;
        ({ validBytes, nextOffset } = before);
      }
      break;
    }
    before = { validBytes, nextOffset };
    batches++;
    validBytes = entry.position + entry.bytes.length;
    nextOffset = lastOffsetOf(entry.header) + 1;
  }
  if (validBytes === segment.size) {
    return { kind: 'clean', batches, validBytes, error: undefined, batchesAfter: 0, nextOffset };
  }
  const batchesAfter =
    resume === undefined ? 0 : countBatchesAfter(segment, resume.at, resume.search, maxBatchBytes);
  const kind = torn && batchesAfter === 0 ? 'torn-tail' : 'corruption';
  return { kind, batches, validBytes, error, batchesAfter, nextOffset };
}

/**
 * Recover a segment: `checkSegment`, then cut it after the last valid batch. The
 * cut bytes are first copied to `<segment>.log.dropped-<position>` and fsynced,
 * then the segment is truncated and fsynced: a crash during recovery loses nothing
 * either.
 */
export function recoverSegment(segment: LogSegment, maxBatchBytes = DEFAULT_MAX_BATCH_BYTES): RecoveryReport {
  const check = checkSegment(segment, maxBatchBytes);
  const truncatedBytes = segment.size - check.validBytes;
  let savedTo: string | undefined;
  if (truncatedBytes > 0) {
    savedTo = saveDropped(segment, check.validBytes);
    segment.truncateTo(check.validBytes);
    segment.flush();
  }
  return { segmentPath: segment.path, ...check, truncatedBytes, savedTo };
}

function allZero(segment: LogSegment, from: number): boolean {
  const chunk = 1024 * 1024;
  for (let pos = from; pos < segment.size; pos += chunk) {
    const bytes = segment.read(pos, chunk);
    for (const byte of bytes) if (byte !== 0) return false;
  }
  return true;
}

/**
 * Whole batches with a good CRC in the part recovery cuts off, after the invalid
 * one, counted for the report. After a whole bad batch the next one starts where
 * it ends; after a header that is garbage, the bytes are searched for the next
 * position where a whole batch with a good CRC starts.
 */
function countBatchesAfter(
  segment: LogSegment,
  from: number,
  search: boolean,
  maxBatchBytes: number,
): number {
  const start = search ? findBatchStart(segment, from, maxBatchBytes) : from;
  if (start === undefined) return 0;
  let count = 0;
  for (const entry of segment.inspect({ maxBatchBytes }, start, 0)) {
    if (entry.kind === 'stop') break;
    if (entry.crcValid) count++;
  }
  return count;
}

/**
 * The first position at or after `from` where a whole batch with a good CRC starts,
 * if any: how `klog dump-log` and recovery find their footing again after a header
 * that is garbage. A candidate needs a magic byte of 2 first, so most positions
 * cost one comparison.
 */
export function findBatchStart(
  segment: LogSegment,
  from: number,
  maxBatchBytes = DEFAULT_MAX_BATCH_BYTES,
): number | undefined {
  const chunkSize = 64 * 1024;
  for (let chunkStart = from; chunkStart + RECORD_BATCH_OVERHEAD <= segment.size; chunkStart += chunkSize) {
    const magics = segment.read(chunkStart + MAGIC_OFFSET, chunkSize);
    for (let i = 0; i < magics.length; i++) {
      if (magics[i] !== MAGIC_V2) continue;
      const position = chunkStart + i;
      if (position + RECORD_BATCH_OVERHEAD > segment.size) return undefined;
      const first = segment.inspect({ maxBatchBytes }, position, 0).next();
      if (!first.done && first.value.kind === 'batch' && first.value.crcValid) return position;
    }
  }
  return undefined;
}

/**
 * Copy `segment[from..]` to `<segment>.dropped-<from>` (a new file, never
 * overwriting one an earlier recovery left: `.dropped-<from>.1`, `.2`, …), fsynced
 * with its directory before the caller cuts the segment.
 */
function saveDropped(segment: LogSegment, from: number): string {
  let path = `${segment.path}.dropped-${from}`;
  for (let n = 1; existsSync(path); n++) path = `${segment.path}.dropped-${from}.${n}`;
  const fd = openSync(path, 'wx');
  try {
    const chunk = 1024 * 1024;
    for (let pos = from; pos < segment.size; pos += chunk) {
      const bytes = segment.read(pos, chunk);
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDirectory(dirname(path));
  return path;
}
