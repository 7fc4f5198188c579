import { closeSync, fsyncSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { DecodeError } from '../errors.js';
import { lastOffsetOf } from '../format/record-batch.js';
import { fsyncDirectory } from '../io/fsync.js';
import { CREATE_NEW, io, ioError, OPEN_READ, openRegular } from '../io/io.js';
import { findValidBatches } from './batch-search.js';
import type { LogSegment } from './log-segment.js';
import { droppedPathOf, temporaryPathOf } from './segment-name.js';

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
  /**
   * Whole batches with a good CRC-32C in the bytes cut off (0 for a torn tail): the
   * batches whose offsets disagree with their neighbours, and any found past damage.
   */
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
      ? `, ${report.batchesAfter} whole batch${report.batchesAfter === 1 ? '' : 'es'} with a good CRC in the cut bytes`
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
 * the CRC, and either may be the wrong one. The limits are the format's own, never
 * a setting: data on disk that passes them is never cut because a limit shrank.
 */
export function checkSegment(segment: LogSegment): SegmentCheck {
  let batches = 0;
  let validBytes = 0;
  let nextOffset: number | undefined;
  // The state before the last kept batch, in case the next one disagrees with it on offsets.
  let before = { validBytes: 0, nextOffset: undefined as number | undefined };
  let error: DecodeError | undefined;
  let torn = false;
  for (const entry of segment.inspect()) {
    if (entry.kind === 'stop') {
      error = entry.error;
      torn = /^truncated/.test(error.reason) || allZero(segment, entry.position);
      break;
    }
    if (entry.problem !== undefined || entry.header === undefined) {
      error = entry.problem;
      // A whole last batch whose bytes did not all reach the disk; offsets out of order are never a torn write.
      torn = !entry.crcValid && entry.position + entry.bytes.length === segment.size;
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
  const batchesAfter = countWholeBatches(segment, validBytes);
  const kind = torn && batchesAfter === 0 ? 'torn-tail' : 'corruption';
  return { kind, batches, validBytes, error, batchesAfter, nextOffset };
}

/**
 * Recover a segment: `checkSegment`, then cut it after the last valid batch. The
 * cut bytes are first saved whole to `<segment>.log.dropped-<position>` and fsynced,
 * then the segment is truncated and fsynced: a crash during recovery loses nothing
 * either.
 */
export function recoverSegment(segment: LogSegment): RecoveryReport {
  const check = checkSegment(segment);
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
 * Whole batches with a good CRC in `segment[from..]`, counted for the report: from
 * `from`, each one found leads to the next by its length; where none starts, the next
 * one found further on is taken. Linear in the bytes (`findValidBatches`).
 */
function countWholeBatches(segment: LogSegment, from: number): number {
  const found = findValidBatches(segment, from);
  let count = 0;
  let position = from;
  let i = 0;
  for (;;) {
    while (i < found.length && found[i]!.position < position) i++;
    const next = found[i];
    if (next === undefined) return count;
    count++;
    position = next.position + next.size;
  }
}

/**
 * Copy `segment[from..]` to `<segment>.dropped-<from>`, fsynced with its directory
 * before the caller cuts the segment. It is written under a temporary name and
 * renamed only once whole, so a crash leaves no partial copy that looks like a whole
 * one (`Log.open` removes the temporary), and a failure (a full disk) leaves nothing
 * behind. An earlier copy of the same bytes (a recovery interrupted after saving them
 * and before cutting) is kept as it is; different bytes get `.1`, `.2`, …
 */
function saveDropped(segment: LogSegment, from: number): string {
  const final = droppedPathOf(segment.path, from);
  const temporary = temporaryPathOf(final);
  const step = 'save the bytes recovery cuts to';
  removeIfThere(temporary);
  try {
    const fd = openRegular(temporary, CREATE_NEW, 'copy of cut bytes');
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
    let path = final;
    for (let n = 1; ; n++) {
      const same = sameBytes(path, segment, from);
      if (same === undefined) break;
      if (same) {
        unlinkSync(temporary);
        return path;
      }
      path = `${final}.${n}`;
    }
    renameSync(temporary, path);
    fsyncDirectory(dirname(path));
    return path;
  } catch (error) {
    try {
      removeIfThere(temporary);
    } catch {
      // The first error is the one to report.
    }
    throw ioError(step, temporary, error);
  }
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('remove', path, error);
  }
}

/** Whether the file at `path` holds exactly `segment[from..]`; undefined if there is no such file. */
function sameBytes(path: string, segment: LogSegment, from: number): boolean | undefined {
  let fd: number;
  try {
    fd = openRegular(path, OPEN_READ, 'copy of cut bytes');
  } catch (error) {
    if ((error as { errno?: string }).errno === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const chunk = 1024 * 1024;
    const theirs = Buffer.allocUnsafe(chunk);
    let pos = from;
    for (;;) {
      const n = io('read', path, () => readSync(fd, theirs, 0, chunk, pos - from));
      const ours = segment.read(pos, chunk);
      if (n !== ours.length || !ours.equals(theirs.subarray(0, n))) return false;
      if (n === 0) return true;
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}
