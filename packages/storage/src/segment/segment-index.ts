/**
 * A segment's sparse offset index and time index, in Kafka's own file formats
 * (`OffsetIndex`, `TimeIndex`, over `AbstractIndex`):
 *
 *   <base>.index      8-byte entries: relative offset i32 · position i32
 *   <base>.timeindex  12-byte entries: timestamp i64 · relative offset i32
 *
 * An entry is added as Kafka's `LogSegment.append` adds one: once more than
 * `index.interval.bytes` (4096) were appended since the last entry, the next batch gets
 * an offset entry (its last offset, its position) and the time index an entry (the
 * largest timestamp so far and its offset) if that timestamp grew. When the segment
 * stops being active, the time index gets the segment's largest timestamp
 * (`onBecomeInactiveSegment`), so its last entry says what the segment holds.
 * Offsets are relative to the segment's base offset: a batch whose last offset is more
 * than 2^31 - 1 past it goes to a new segment (`canConvertToRelativeOffset`).
 */

import { closeSync, ftruncateSync, readFileSync, writeSync } from 'node:fs';
import { CREATE_OR_OPEN, io, openRegular } from '../io/io.js';
import { writeFileWhole } from '../io/write-file-whole.js';

export { OFFSET_INDEX_SUFFIX, TIME_INDEX_SUFFIX } from './segment-name.js';
/** Kafka's `index.interval.bytes`. */
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;
/** Kafka's `segment.index.bytes`: the size an active segment's index files are preallocated to. */
export const DEFAULT_MAX_INDEX_BYTES = 10 * 1024 * 1024;
export const OFFSET_ENTRY_BYTES = 8;
export const TIME_ENTRY_BYTES = 12;
const TWO_32 = 4_294_967_296;

class Column<A extends Int32Array | Float64Array> {
  length = 0;
  constructor(public values: A) {}
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new (this.values.constructor as new (n: number) => A)(
        Math.max(16, this.values.length * 2),
      );
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  at(i: number): number {
    return this.values[i]!;
  }
}

export class SegmentIndex {
  readonly #offsets = new Column(new Int32Array(16));
  readonly #positions = new Column(new Int32Array(16));
  readonly #timestamps = new Column(new Float64Array(16));
  readonly #timeOffsets = new Column(new Int32Array(16));
  #bytesSinceLastEntry = 0;
  #maxTimestamp = -1;
  #offsetOfMaxTimestamp = -1;

  constructor(
    readonly baseOffset: number,
    readonly intervalBytes = DEFAULT_INDEX_INTERVAL_BYTES,
  ) {}

  get entries(): number {
    return this.#offsets.length;
  }

  get timeEntries(): number {
    return this.#timestamps.length;
  }

  /** The largest timestamp the indexed batches hold (-1 for none). */
  get maxTimestamp(): number {
    return this.#maxTimestamp;
  }

  /** Index the batch at `position` of `size` bytes (Kafka's `LogSegment.append` / `recover`). */
  onBatch(position: number, size: number, lastOffset: number, maxTimestamp: number): void {
    if (maxTimestamp > this.#maxTimestamp) {
      this.#maxTimestamp = maxTimestamp;
      this.#offsetOfMaxTimestamp = lastOffset;
    }
    if (this.#bytesSinceLastEntry > this.intervalBytes) {
      this.#offsets.push(lastOffset - this.baseOffset);
      this.#positions.push(position);
      this.#appendTime(this.#maxTimestamp, this.#offsetOfMaxTimestamp);
      this.#bytesSinceLastEntry = 0;
    }
    this.#bytesSinceLastEntry += size;
  }

  /** The segment stops being active: the time index gets its largest timestamp (Kafka's `onBecomeInactiveSegment`). */
  finish(): void {
    if (this.#maxTimestamp >= 0) this.#appendTime(this.#maxTimestamp, this.#offsetOfMaxTimestamp);
  }

  /** Kafka's `TimeIndex.maybeAppend`: only a larger timestamp is worth an entry. */
  #appendTime(timestamp: number, offset: number): void {
    const n = this.#timestamps.length;
    if (n > 0 && timestamp <= this.#timestamps.at(n - 1)) return;
    this.#timestamps.push(timestamp);
    this.#timeOffsets.push(offset - this.baseOffset);
  }

  /** Position to scan from for `offset`: the largest entry at or below it (Kafka's `OffsetIndex.lookup`); 0 if none. */
  lookup(offset: number): number {
    const found = this.#floor(offset - this.baseOffset);
    return found === -1 ? 0 : this.#positions.at(found);
  }

  /** The last offset entry whose relative offset is `relative` or less; -1 if none. */
  #floor(relative: number): number {
    let lo = 0;
    let hi = this.#offsets.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#offsets.at(mid) <= relative) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Offset to scan from for `timestamp`: the largest time entry at or below it (Kafka's `TimeIndex.lookup`). */
  lookupTime(timestamp: number): number {
    let lo = 0;
    let hi = this.#timestamps.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#timestamps.at(mid) <= timestamp) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found === -1 ? this.baseOffset : this.baseOffset + this.#timeOffsets.at(found);
  }

  /** The last offset entry's position, or 0: where a scan for the segment's last batch may start. */
  lastEntryPosition(): number {
    const n = this.#positions.length;
    return n === 0 ? 0 : this.#positions.at(n - 1);
  }

  /**
   * The offset entry at or below `offset` (Kafka's `OffsetIndex.lookup`) as an absolute
   * offset and a position, or undefined when there is none (scan from position 0).
   * The batch at that position ends at exactly that offset: the index's witness for
   * the batch's `baseOffset`, which the CRC does not cover.
   */
  entryAtOrBelow(offset: number): { readonly offset: number; readonly position: number } | undefined {
    const found = this.#floor(offset - this.baseOffset);
    return found === -1
      ? undefined
      : { offset: this.baseOffset + this.#offsets.at(found), position: this.#positions.at(found) };
  }

  /** The `.index` file's bytes: entries `from` (default 0) to the last. */
  encodeOffsetIndex(from = 0): Buffer {
    const bytes = Buffer.allocUnsafe((this.#offsets.length - from) * OFFSET_ENTRY_BYTES);
    for (let i = from; i < this.#offsets.length; i++) {
      bytes.writeInt32BE(this.#offsets.at(i), (i - from) * OFFSET_ENTRY_BYTES);
      bytes.writeInt32BE(this.#positions.at(i), (i - from) * OFFSET_ENTRY_BYTES + 4);
    }
    return bytes;
  }

  /** The `.timeindex` file's bytes: entries `from` (default 0) to the last. */
  encodeTimeIndex(from = 0): Buffer {
    const bytes = Buffer.allocUnsafe((this.#timestamps.length - from) * TIME_ENTRY_BYTES);
    for (let i = from; i < this.#timestamps.length; i++) {
      const t = this.#timestamps.at(i);
      const at = (i - from) * TIME_ENTRY_BYTES;
      bytes.writeInt32BE(Math.floor(t / TWO_32), at);
      bytes.writeUInt32BE(t >>> 0, at + 4);
      bytes.writeInt32BE(this.#timeOffsets.at(i), at + 8);
    }
    return bytes;
  }

  /**
   * The index of an inactive segment from its two files, or why they cannot be trusted
   * (Kafka's `sanityCheck`, and more): a length that is not a whole number of entries,
   * offsets or positions that do not grow, a position past the segment, an offset at or
   * past the next segment's base offset, timestamps that go back. Then the caller
   * rebuilds them from the segment.
   */
  static decode(
    offsetBytes: Uint8Array,
    timeBytes: Uint8Array,
    baseOffset: number,
    segmentSize: number,
    nextBaseOffset: number | undefined,
  ): SegmentIndex | string {
    if (offsetBytes.length % OFFSET_ENTRY_BYTES !== 0) {
      return `offset index of ${offsetBytes.length} bytes is not a whole number of 8-byte entries`;
    }
    if (timeBytes.length % TIME_ENTRY_BYTES !== 0) {
      return `time index of ${timeBytes.length} bytes is not a whole number of 12-byte entries`;
    }
    const view = Buffer.from(offsetBytes.buffer, offsetBytes.byteOffset, offsetBytes.length);
    const index = new SegmentIndex(baseOffset);
    const limit = nextBaseOffset === undefined ? Number.MAX_SAFE_INTEGER : nextBaseOffset - baseOffset;
    for (let at = 0; at < view.length; at += OFFSET_ENTRY_BYTES) {
      const relative = view.readInt32BE(at);
      const position = view.readInt32BE(at + 4);
      const n = index.#offsets.length;
      if (relative < 0 || relative >= limit || (n > 0 && relative <= index.#offsets.at(n - 1))) {
        return `offset index entry ${at / OFFSET_ENTRY_BYTES}: relative offset ${relative} is out of order or out of the segment`;
      }
      if (position < 0 || position >= segmentSize || (n > 0 && position <= index.#positions.at(n - 1))) {
        return `offset index entry ${at / OFFSET_ENTRY_BYTES}: position ${position} is out of order or past the segment`;
      }
      index.#offsets.push(relative);
      index.#positions.push(position);
    }
    const times = Buffer.from(timeBytes.buffer, timeBytes.byteOffset, timeBytes.length);
    for (let at = 0; at < times.length; at += TIME_ENTRY_BYTES) {
      const timestamp = times.readInt32BE(at) * TWO_32 + times.readUInt32BE(at + 4);
      const relative = times.readInt32BE(at + 8);
      const n = index.#timestamps.length;
      if (!Number.isSafeInteger(timestamp) || (n > 0 && timestamp <= index.#timestamps.at(n - 1))) {
        return `time index entry ${at / TIME_ENTRY_BYTES}: timestamp ${timestamp} is out of order`;
      }
      if (relative < 0 || relative >= limit) {
        return `time index entry ${at / TIME_ENTRY_BYTES}: relative offset ${relative} is out of the segment`;
      }
      index.#timestamps.push(timestamp);
      index.#timeOffsets.push(relative);
      index.#maxTimestamp = timestamp;
      index.#offsetOfMaxTimestamp = baseOffset + relative;
    }
    return index;
  }
}

/** Where a segment's two index files are. */
import type { IndexPaths } from './segment-name.js';

export type { IndexPaths } from './segment-name.js';

/**
 * The active segment's index files as appends go (Kafka appends its entries to the
 * mmapped files as it goes): entries are written, in place, once a page of them is
 * waiting (`PENDING_ENTRIES_BEFORE_WRITE`), always after the batches they point at
 * were written, so a crash of the process never leaves an entry past the data. They
 * are not fsynced: the active segment's index is never read back from its files. On
 * open it is rebuilt from the segment as recovery left it and the files written anew
 * (`start`), so an entry that a power cut left pointing past the data is gone before
 * anything could read it. At a roll or a close the files are written whole, trimmed
 * and fsynced (`writeIndexFiles`): only then are they trusted.
 */
export class ActiveIndexFiles {
  #offsetsWritten = 0;
  #timesWritten = 0;
  /** The two files, held open while the segment is active (Kafka keeps them mapped). */
  #offsetsFd: number;
  #timesFd: number;

  private constructor(
    readonly paths: IndexPaths,
    readonly index: SegmentIndex,
    offsetsFd: number,
    timesFd: number,
  ) {
    this.#offsetsFd = offsetsFd;
    this.#timesFd = timesFd;
  }

  /** The files of a segment becoming (or opened as) the active one: emptied, then `index`'s entries, preallocated. */
  static start(paths: IndexPaths, index: SegmentIndex): ActiveIndexFiles {
    const fds: number[] = [];
    try {
      for (const path of [paths.offsets, paths.times]) {
        const fd = openRegular(path, CREATE_OR_OPEN, 'index file');
        fds.push(fd);
        // Emptied first: stale entries from before (a crash, an earlier life of this name) never survive.
        io('preallocate index file', path, () => {
          ftruncateSync(fd, 0);
          ftruncateSync(fd, DEFAULT_MAX_INDEX_BYTES);
        });
      }
      const files = new ActiveIndexFiles(paths, index, fds[0]!, fds[1]!);
      files.writePending();
      return files;
    } catch (error) {
      for (const fd of fds) closeSync(fd);
      throw error;
    }
  }

  /**
   * After an append: write the waiting entries once a page of offset entries is there
   * (a time entry is only ever made with an offset entry, so the time index never has more waiting).
   */
  afterAppend(): void {
    if (this.index.entries - this.#offsetsWritten >= PENDING_ENTRIES_BEFORE_WRITE) this.writePending();
  }

  /** Write the entries not in the files yet, each at its place. */
  writePending(): void {
    const { index } = this;
    if (index.entries > this.#offsetsWritten) {
      const bytes = index.encodeOffsetIndex(this.#offsetsWritten);
      writeAt(this.#offsetsFd, this.paths.offsets, bytes, this.#offsetsWritten * OFFSET_ENTRY_BYTES);
      this.#offsetsWritten = index.entries;
    }
    if (index.timeEntries > this.#timesWritten) {
      const bytes = index.encodeTimeIndex(this.#timesWritten);
      writeAt(this.#timesFd, this.paths.times, bytes, this.#timesWritten * TIME_ENTRY_BYTES);
      this.#timesWritten = index.timeEntries;
    }
  }

  /** Let go of the files (the segment rolled, closed, or was cut by recovery). */
  close(): void {
    if (this.#offsetsFd === -1) return;
    closeSync(this.#offsetsFd);
    closeSync(this.#timesFd);
    this.#offsetsFd = -1;
    this.#timesFd = -1;
  }
}

/** A page of offset entries (4 KiB / 8 bytes): what waits in memory before it is written. */
export const PENDING_ENTRIES_BEFORE_WRITE = 512;

function writeAt(fd: number, path: string, bytes: Buffer, position: number): void {
  io('write index entries', path, () => {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  });
}

/** Write both files of `index`, trimmed to their entries: each under a temporary name, fsynced, renamed. */
export function writeIndexFiles(paths: IndexPaths, index: SegmentIndex): void {
  for (const [path, bytes] of [
    [paths.offsets, index.encodeOffsetIndex()],
    [paths.times, index.encodeTimeIndex()],
  ] as const) {
    writeFileWhole(path, bytes, 'write index file', 'index file');
  }
}

/** An inactive segment's index from its files, or why it cannot be used (missing, unreadable, failing the sanity check). */
export function readIndexFiles(
  paths: IndexPaths,
  baseOffset: number,
  segmentSize: number,
  nextBaseOffset: number | undefined,
): SegmentIndex | string {
  try {
    return SegmentIndex.decode(
      readFileSync(paths.offsets),
      readFileSync(paths.times),
      baseOffset,
      segmentSize,
      nextBaseOffset,
    );
  } catch (error) {
    return `index files cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}
