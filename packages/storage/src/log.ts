import { mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type AppendedHeader, type AppendOrigin, validateForAppend } from './batch-validator.js';
import { DecodeError, StorageError } from './errors.js';
import { DirectoryLock } from './file-lock.js';
import { fsyncDirectory } from './fsync.js';
import { io, ioError } from './io.js';
import { listLogDir } from './log-dir.js';
import {
  BATCH_FIELD,
  batchSize,
  DEFAULT_MAX_BATCH_BYTES,
  decodeRecordBatch,
  LOG_OVERHEAD,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
  type RecordBatchHeader,
  TIMESTAMP_TYPE_MASK,
} from './record-batch.js';
import { type RecoveryReport, recoverSegment } from './recovery.js';
import { LogSegment } from './segment.js';
import { SegmentFileCache } from './segment-file-cache.js';
import { writeInt64BE } from './varint.js';
import { LOG_START_OFFSET_FILE, readLogStartOffset, writeLogStartOffset } from './log-start-offset.js';

export { fsyncDirectory } from './fsync.js';

/**
 * When appended data is forced to disk (Kafka's `flush.messages`):
 * - `'os'`, the default, as in Kafka (`flush.messages` = Long.MAX_VALUE): each append
 *   is a `write` into the OS page cache and the OS writes it back when it chooses. An
 *   acknowledged append survives a crash of the process (`kill -9`): the page cache
 *   is the kernel's, not the process's. It may be lost, or torn, by a power cut or a
 *   kernel crash; Kafka answers that with replication, klog (one node) does not.
 * - `'every-append'`: fsync after each batch, before the append returns. An
 *   acknowledged append survives a power cut too, at the cost of one fsync per batch.
 * - `{ everyMessages: n }`: fsync once n records have been appended since the last
 *   fsync; what came after the last fsync is as safe as under `'os'`.
 * Whatever the policy, a segment is fsynced before a roll creates the next one, and on
 * close; recovery on open cuts a torn last batch (see recovery.ts).
 */
export type FlushPolicy = 'every-append' | 'os' | { readonly everyMessages: number };

export interface LogConfig {
  /** Roll a new segment when the next batch would take the active one past this size (Kafka's `segment.bytes`). */
  readonly segmentBytes: number;
  readonly flush: FlushPolicy;
  /**
   * The largest batch an append accepts (Kafka's `message.max.bytes`), at most
   * DEFAULT_MAX_BATCH_BYTES. It limits what is accepted, never what is read back:
   * a log reopened with a smaller value keeps and serves its larger batches.
   */
  readonly maxBatchBytes: number;
}

/** Kafka's defaults: `segment.bytes` = 1 GiB, `message.max.bytes` = 1048588, flush left to the OS. */
export const DEFAULT_LOG_CONFIG: LogConfig = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  flush: 'os',
  maxBatchBytes: 1_048_588,
});

/** Where an appended batch went. */
export interface LogAppendInfo {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly segmentBaseOffset: number;
  readonly position: number;
  readonly size: number;
  readonly rolled: boolean;
}

function invalidConfig(message: string): StorageError {
  return new StorageError('INVALID_CONFIG', message);
}

function validateConfig(config: LogConfig): LogConfig {
  if (!Number.isSafeInteger(config.segmentBytes) || config.segmentBytes < 61) {
    throw invalidConfig(`segment.bytes must be an integer >= 61, got ${config.segmentBytes}`);
  }
  if (
    !Number.isSafeInteger(config.maxBatchBytes) ||
    config.maxBatchBytes < 61 ||
    config.maxBatchBytes > DEFAULT_MAX_BATCH_BYTES
  ) {
    throw invalidConfig(
      `max batch bytes must be an integer in 61..${DEFAULT_MAX_BATCH_BYTES} (what klog can read back), got ${config.maxBatchBytes}`,
    );
  }
  const flush: unknown = config.flush;
  if (typeof flush === 'object' && flush !== null) {
    const n = (flush as { everyMessages?: unknown }).everyMessages;
    if (!Number.isSafeInteger(n) || (n as number) < 1) {
      throw invalidConfig(`flush every N messages needs N >= 1, got ${String(n)}`);
    }
  } else if (flush !== 'os' && flush !== 'every-append') {
    throw invalidConfig(`flush must be 'os', 'every-append' or { everyMessages: n }, got ${String(flush)}`);
  }
  return config;
}

/** How a log is opened, apart from its config. */
export interface LogOpenOptions {
  /**
   * Where inactive segments get their (read-only) file descriptors: a `LogManager`
   * shares one over all its logs. A log opened alone gets its own, of 64 files.
   */
  readonly segmentFiles?: SegmentFileCache;
}

/** The largest offset an index entry can hold relative to its segment's base offset (an i32). */
const MAX_RELATIVE_OFFSET = 0x7fffffff;

/** The partition leader epoch klog stamps on a client's batch: one node, never a new leader. */
const PARTITION_LEADER_EPOCH = 0;

/** Set by `Log`'s static block, so that only this package can reach the write paths below. */
let writeBuiltBatch: (log: Log, batch: Buffer, header: AppendedHeader) => LogAppendInfo;
let swapInCleaned: (log: Log, baseOffsets: readonly number[]) => void;
let writeClientBatch: (log: Log, batch: Buffer, header: AppendedHeader) => number;

/**
 * Append a batch a client built, which the caller (`Partition.appendProducerBatch`)
 * decoded, CRC-checked and checked with `validateForAppend` against this log's end
 * offset in the same synchronous call (so nothing is checked twice on the hot path):
 * the bytes are written as received, with the base offset and the partition leader
 * epoch (0: one node) assigned in place (outside the CRC), as Kafka's leader does.
 * Returns the batch's base offset; its last is `logEndOffset - 1` after the call.
 */
export function appendValidatedClientBatch(log: Log, batch: Buffer, header: AppendedHeader): number {
  return writeClientBatch(log, batch, header);
}

/**
 * Append a batch that this package's own builder produced in the same call and that
 * never left the package: its structure and CRC-32C were written a moment ago, so
 * decoding and checking them again would only add to the cost of every append. Kafka
 * does the same: the leader validates the CRC of a client's batch (`LogValidator`)
 * but not of batches it builds itself. Its size and offsets are still checked
 * against the log's limits before a byte is written. Not exported from the package:
 * bytes from outside go through `Log.appendBatch`, which checks everything.
 */
export function appendBuiltBatch(log: Log, batch: Buffer, header: AppendedHeader): LogAppendInfo {
  return writeBuiltBatch(log, batch, header);
}

/**
 * Replace inactive segments by their cleaned copies (`<base>.log.swap`, written and
 * fsynced by compaction), in offset order. Each rename replaces one segment whole,
 * so a crash leaves every segment either cleaned or not; `Log.open` finishes the swap.
 */
export function replaceWithCleaned(log: Log, baseOffsets: readonly number[]): void {
  swapInCleaned(log, baseOffsets);
}

/**
 * A partition's log: ordered segments, the last of which is active and takes
 * appends (Kafka's `UnifiedLog` over `LocalLog`). The log end offset is the offset
 * the next record will get. One `Log` at a time writes a directory: opening takes its
 * lock (`.lock`), which the kernel releases when the holder closes it or dies.
 */
export class Log {
  readonly #segments: LogSegment[];
  readonly #lock: DirectoryLock;
  readonly #files: SegmentFileCache;
  readonly #ownsFiles: boolean;
  #logEndOffset: number;
  #unflushedMessages = 0;
  #closed = false;
  /** Called after each roll with the new active segment's base offset (a Partition writes its producer snapshot). */
  rollListener: ((baseOffset: number) => void) | undefined;

  #config: LogConfig;
  /** Where the log begins for readers (Kafka's log start offset): at or after the first segment's base. */
  #logStartOffset: number;

  private constructor(
    readonly dir: string,
    config: LogConfig,
    lock: DirectoryLock,
    files: SegmentFileCache,
    ownsFiles: boolean,
    segments: LogSegment[],
    logEndOffset: number,
    /**
     * What recovery on open had to cut from the active segment, or undefined when it
     * was whole: the file, the byte, why, how many bytes, and where they were saved.
     */
    readonly recovery: RecoveryReport | undefined,
  ) {
    this.#lock = lock;
    this.#files = files;
    this.#ownsFiles = ownsFiles;
    this.#segments = segments;
    this.#logEndOffset = logEndOffset;
    this.#config = config;
    const kept = readLogStartOffset(join(dir, LOG_START_OFFSET_FILE));
    // A checkpoint past the end (a log cut by recovery) is clamped: the log never starts after it ends.
    this.#logStartOffset = Math.min(Math.max(segments[0]!.baseOffset, kept ?? 0), logEndOffset);
  }

  /** segment.bytes, message.max.bytes and the flush policy, as now (`reconfigure` changes them). */
  get config(): LogConfig {
    return this.#config;
  }

  /**
   * A topic's config changed (AlterConfigs): the next appends and rolls follow the new values; nothing on
   * disk is rewritten (Kafka's `UnifiedLog.updateConfig`). Checked as `Log.open` checks a config.
   */
  reconfigure(config: Partial<LogConfig>): void {
    this.#checkOpen();
    const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
    this.#config = validateConfig({ ...this.#config, ...given });
  }

  /**
   * Open the log in `dir` (created if missing), finding its segments and log end
   * offset on disk. The directory's lock is taken first: a second opener, in this
   * process or another, is refused with StorageError `LOCKED` naming the holder's pid.
   * The active segment is recovered (`recoverSegment`): a torn or corrupt tail is saved
   * next to it and cut, and `recovery` says what was done, so the log end offset and a
   * producer-state rebuild see only whole batches. Inactive segments are not read: their
   * files are opened when first read, through a bounded cache.
   */
  static open(dir: string, config: Partial<LogConfig> = {}, options: LogOpenOptions = {}): Log {
    // A key given as undefined (from JavaScript) means the default, as a missing one does.
    const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
    const full = validateConfig({ ...DEFAULT_LOG_CONFIG, ...given });
    io('create partition directory', dir, () => mkdirSync(dir, { recursive: true }));
    const lock = DirectoryLock.acquire(dir, 'partition directory');
    const files = options.segmentFiles ?? new SegmentFileCache();
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
      return new Log(
        dir,
        full,
        lock,
        files,
        options.segmentFiles === undefined,
        segments,
        logEndOffset,
        recovery.kind === 'clean' ? undefined : recovery,
      );
    } catch (error) {
      for (const segment of segments) segment.close();
      if (options.segmentFiles === undefined) files.closeAll();
      lock.release();
      throw error;
    }
  }

  get segments(): readonly LogSegment[] {
    return this.#segments;
  }

  get activeSegment(): LogSegment {
    return this.#segments.at(-1)!;
  }

  get logStartOffset(): number {
    return this.#logStartOffset;
  }

  /**
   * DeleteRecords (Kafka's `UnifiedLog.maybeIncrementLogStartOffset`): the log now starts at `offset`, at
   * most the log end offset; readers below it get OFFSET_OUT_OF_RANGE. The new start is written durably
   * (`log-start-offset`, the partition's own copy of Kafka's `log-start-offset-checkpoint`) before any
   * segment wholly below it is deleted. A start below the current one changes nothing. Returns the start.
   */
  advanceLogStartOffset(offset: number): number {
    this.#checkOpen();
    if (!Number.isSafeInteger(offset) || offset > this.#logEndOffset) {
      throw new StorageError(
        'OFFSET_OUT_OF_RANGE',
        `cannot start the log at ${String(offset)}: it ends at ${this.#logEndOffset}`,
      );
    }
    if (offset <= this.#logStartOffset) return this.#logStartOffset;
    this.#moveStart(offset);
    this.#deleteSegments((segment) => (segment.nextBaseOffset ?? Number.POSITIVE_INFINITY) <= offset);
    return this.#logStartOffset;
  }

  /**
   * Retention (Kafka's `UnifiedLog.deleteOldSegments`): deletes inactive segments from the oldest on, while
   * `breached(segment, bytesOfLogLeft)` holds, and moves the log start offset to the first one left. The
   * active segment is never deleted. Returns the base offsets deleted.
   */
  deleteOldSegments(breached: (segment: LogSegment, logBytes: number) => boolean): number[] {
    this.#checkOpen();
    let bytes = this.size;
    const doomed: LogSegment[] = [];
    for (const segment of this.#segments.slice(0, -1)) {
      if (!breached(segment, bytes)) break;
      doomed.push(segment);
      bytes -= segment.size;
    }
    if (doomed.length === 0) return [];
    const next = this.#segments[doomed.length]!.baseOffset;
    if (next > this.#logStartOffset) this.#moveStart(next);
    return this.#deleteSegments((segment) => doomed.includes(segment));
  }

  /**
   * Rolls a new, empty active segment now (Kafka's `segment.ms` roll), unless the active one is empty.
   * Returns whether it rolled.
   */
  roll(): boolean {
    this.#checkOpen();
    if (this.activeSegment.size === 0) return false;
    return this.#maybeRoll(Number.MAX_SAFE_INTEGER, this.#logEndOffset);
  }

  #moveStart(offset: number): void {
    writeLogStartOffset(this.dir, offset);
    this.#logStartOffset = offset;
  }

  /** Deletes the inactive segments `doomed` picks, from the front: the file, then its index files. */
  #deleteSegments(doomed: (segment: LogSegment) => boolean): number[] {
    const deleted: number[] = [];
    while (this.#segments.length > 1 && doomed(this.#segments[0]!)) {
      const segment = this.#segments.shift()!;
      segment.close();
      io('delete old segment', segment.path, () => unlinkSync(segment.path));
      removeIndexFiles(segment.path);
      deleted.push(segment.baseOffset);
    }
    if (deleted.length > 0) fsyncDirectory(this.dir);
    return deleted;
  }

  get logEndOffset(): number {
    return this.#logEndOffset;
  }

  /** Total bytes on disk over all segments. */
  get size(): number {
    return this.#segments.reduce((sum, s) => sum + s.size, 0);
  }

  /**
   * Append one encoded batch from outside. It is checked whole first, as Kafka's
   * `LogValidator` does for a client's batch: length, magic, CRC and every record,
   * the count against the offsets, the producer fields, and the size against
   * `message.max.bytes`, so bytes a reader would refuse never reach the file. The log
   * gives it its offsets: the base offset it is written with (outside the CRC) is the
   * log end offset; the caller's buffer is not changed.
   */
  appendBatch(batch: Buffer): LogAppendInfo {
    this.#checkOpen();
    if (batch.length > this.config.maxBatchBytes) {
      throw new StorageError(
        'MESSAGE_TOO_LARGE',
        `batch of ${batch.length} bytes exceeds the limit of ${this.config.maxBatchBytes} (message.max.bytes)`,
      );
    }
    const header = decodeRecordBatch(batch, 0);
    if (batchSize(header) !== batch.length) {
      throw new DecodeError(
        'batchLength',
        8,
        `says ${batchSize(header)} bytes but the buffer holds ${batch.length}`,
      );
    }
    return this.#accept(batch, header, 'client', false);
  }

  /** Check a batch against the log's limits, then place it at the log end offset. */
  #accept(batch: Buffer, header: AppendedHeader, origin: AppendOrigin, inPlace: boolean): LogAppendInfo {
    const baseOffset = this.#logEndOffset;
    validateForAppend(header, batch.length, baseOffset, this.config.maxBatchBytes, origin);
    return this.#place(batch, baseOffset, header, inPlace);
  }

  /** Put a checked batch on the active segment (rolling first if it would not fit) and move the log end offset. */
  #place(batch: Buffer, baseOffset: number, header: AppendedHeader, inPlace: boolean): LogAppendInfo {
    const lastOffset = baseOffset + header.lastOffsetDelta;
    const rolled = this.#maybeRoll(batch.length, lastOffset);
    const segment = this.activeSegment;
    const position = segment.size;
    if (inPlace) {
      this.#write(batch, baseOffset, lastOffset, header, undefined);
    } else {
      // Not the log's buffer to change: the base offset goes to the file in a head of its own.
      const head = Buffer.from(batch.subarray(0, 8));
      stampBatchHead(head, baseOffset, undefined);
      segment.append(batch, lastOffset, head, header.maxTimestamp);
      this.#logEndOffset = lastOffset + 1;
      this.#maybeFlush(header.recordsCount);
    }
    return {
      firstOffset: baseOffset,
      lastOffset,
      segmentBaseOffset: segment.baseOffset,
      position,
      size: batch.length,
      rolled,
    };
  }

  /**
   * The append itself, for a buffer that is the log's to change (a batch it built, or a
   * client's batch handed over by `appendProducerBatch`, as Kafka's leader assigns
   * offsets in place): baseOffset, and the partition leader epoch when given (both
   * outside the CRC), stamped into the batch, then one write. The caller rolled.
   */
  #write(
    batch: Buffer,
    baseOffset: number,
    lastOffset: number,
    header: AppendedHeader,
    leaderEpoch: number | undefined,
  ): void {
    stampBatchHead(batch, baseOffset, leaderEpoch);
    this.activeSegment.append(batch, lastOffset, undefined, header.maxTimestamp);
    this.#logEndOffset = lastOffset + 1;
    this.#maybeFlush(header.recordsCount);
  }

  static {
    writeBuiltBatch = (log, batch, header) => {
      log.#checkOpen();
      return log.#accept(batch, header, 'klog', true);
    };
    swapInCleaned = (log, baseOffsets) => log.#swapInCleaned(baseOffsets);
    writeClientBatch = (log, batch, header) => {
      log.#checkOpen();
      const baseOffset = log.#logEndOffset;
      const lastOffset = baseOffset + header.lastOffsetDelta;
      log.#maybeRoll(batch.length, lastOffset);
      log.#write(batch, baseOffset, lastOffset, header, PARTITION_LEADER_EPOCH);
      return baseOffset;
    };
  }

  // #region maybe-roll
  /** Kafka's roll rule on size: a new segment when this batch would take the active one past `segment.bytes`. */
  #maybeRoll(nextBatchBytes: number, lastOffset: number): boolean {
    const active = this.activeSegment;
    // Also when the batch's last offset would not fit the index's relative offset (Kafka's canConvertToRelativeOffset).
    const fits = lastOffset - active.baseOffset <= MAX_RELATIVE_OFFSET;
    if (active.size === 0 || (fits && active.size + nextBatchBytes <= this.#config.segmentBytes)) return false;
    active.seal(this.#logEndOffset, this.#files);
    this.#unflushedMessages = 0;
    this.#segments.push(LogSegment.create(this.dir, this.#logEndOffset));
    fsyncDirectory(this.dir);
    this.rollListener?.(this.#logEndOffset);
    return true;
  }
  // #endregion maybe-roll

  #maybeFlush(records: number): void {
    const flush = this.config.flush;
    if (flush === 'os') return;
    this.#unflushedMessages += records;
    if (flush === 'every-append' || this.#unflushedMessages >= flush.everyMessages) this.flush();
  }

  /** fsync the active segment. */
  flush(): void {
    this.#checkOpen();
    this.activeSegment.flush();
    this.#unflushedMessages = 0;
  }

  #swapInCleaned(baseOffsets: readonly number[]): void {
    this.#checkOpen();
    for (const base of baseOffsets) {
      const i = this.#segments.findIndex((s) => s.baseOffset === base);
      const old = this.#segments[i];
      if (old === undefined || old === this.activeSegment) {
        throw new StorageError('INVALID_REQUEST', `no inactive segment at offset ${base} in ${this.dir}`);
      }
      old.close();
      removeIndexFiles(old.path);
      io('swap in cleaned segment', old.path, () => renameSync(`${old.path}.swap`, old.path));
      this.#segments[i] = LogSegment.open(old.path, base, {
        readOnly: true,
        cache: this.#files,
        nextBaseOffset: this.#segments[i + 1]!.baseOffset,
      });
    }
    fsyncDirectory(this.dir);
  }

  /** The segment that holds `offset`, or undefined if the offset is outside the log. */
  segmentFor(offset: number): LogSegment | undefined {
    if (offset < this.logStartOffset || offset >= this.#logEndOffset) return undefined;
    let lo = 0;
    let hi = this.#segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.#segments[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.#segments[lo];
  }

  /**
   * Raw bytes of whole batches from the one holding `offset`, up to `maxBytes`
   * (at least one batch, as Kafka's fetch returns one oversized batch rather than
   * none). Empty when `offset` is the log end offset. Every batch is checked (its
   * CRC, and its offsets against its neighbours) before it is served: a bad batch
   * ends the read, which returns the batches before it, and a read that starts at
   * it throws its DecodeError, naming the file and the byte.
   */
  read(offset: number, maxBytes = 1024 * 1024): Buffer {
    const slices = this.#slices(offset, maxBytes);
    return Buffer.concat(
      slices.map((s) => s.bytes),
      slices.reduce((sum, s) => sum + s.bytes.length, 0),
    );
  }

  /** Decoded batches from the one holding `offset`, up to `maxBytes`, checked as `read` checks them. */
  readBatches(offset: number, maxBytes = 1024 * 1024): RecordBatch[] {
    const batches: RecordBatch[] = [];
    for (const { segment, position, bytes } of this.#slices(offset, maxBytes)) {
      try {
        batches.push(decodeRecordBatch(bytes, 0, { base: position }));
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
        if (batches.length > 0) return batches;
        throw error.inFile(segment.path);
      }
    }
    return batches;
  }

  #slices(offset: number, maxBytes: number): { segment: LogSegment; position: number; bytes: Buffer }[] {
    this.#checkOpen();
    checkReadArguments(offset, maxBytes);
    if (offset === this.#logEndOffset) return [];
    const first = this.segmentFor(offset);
    if (first === undefined) {
      throw new StorageError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside the log [${this.logStartOffset}, ${this.#logEndOffset})`,
      );
    }
    const slices: { segment: LogSegment; position: number; bytes: Buffer }[] = [];
    let total = 0;
    try {
      for (let i = this.#segments.indexOf(first); i < this.#segments.length; i++) {
        const segment = this.#segments[i]!;
        for (const { position, size } of segment.positionsFrom(segment === first ? offset : 0)) {
          if (total > 0 && total + size > maxBytes) return slices;
          slices.push({ segment, position, bytes: segment.readBatchAt(position).bytes });
          total += size;
        }
      }
    } catch (error) {
      // Serve what came before the bad batch; the next read, which starts at it, gets the error.
      if (error instanceof DecodeError && slices.length > 0) return slices;
      throw error;
    }
    return slices;
  }

  /** Every batch of every segment, in offset order, decoded and CRC-checked; stops with a DecodeError at a bad one. */
  *batches(): Generator<{ segment: LogSegment; position: number; batch: RecordBatch }> {
    this.#checkOpen();
    for (const segment of this.#segments) {
      for (const { position, header } of segment.batches()) {
        yield { segment, position, batch: header };
      }
    }
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Every batch header from the batch holding `offset` (or the first after it) to the
   * end of the log, across segments, reading headers only: what a producer-state replay
   * needs. Stops with the DecodeError of a batch that cannot be read.
   */
  *headersFrom(offset: number): Generator<{ readonly position: number; readonly header: RecordBatchHeader }> {
    this.#checkOpen();
    for (const segment of this.#segments) {
      if (segment.nextBaseOffset !== undefined && segment.nextBaseOffset <= offset) continue;
      // From the index entry at or below `offset` (the segment's start for an offset before it): one scan.
      for (const entry of segment.headers(segment.sparseIndex().lookup(offset))) {
        if (lastOffsetOf(entry.header) >= offset) yield entry;
      }
    }
  }

  /**
   * Raw bytes of whole batches from the one holding `offset`, from one segment, up to
   * `maxBytes` (but at least one batch, as Kafka's fetch returns one oversized batch
   * rather than none), read with one `pread` of a contiguous range: bytes ready to send
   * (Kafka's `LocalLog.read`). Batches are not decoded and their CRC is not checked
   * here, as Kafka's broker does not on fetch (the consumer checks it); their framing and
   * offsets come from the segment's index. Empty at the log end offset; StorageError
   * `OFFSET_OUT_OF_RANGE` outside [log start, log end].
   */
  fetch(offset: number, maxBytes: number): Buffer {
    this.#checkOpen();
    checkReadArguments(offset, maxBytes);
    if (offset === this.#logEndOffset) return Buffer.alloc(0);
    const first = this.segmentFor(offset);
    if (first === undefined) {
      throw new StorageError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside the log [${this.logStartOffset}, ${this.#logEndOffset}]`,
      );
    }
    for (let i = this.#segments.indexOf(first); i < this.#segments.length; i++) {
      const segment = this.#segments[i]!;
      // The index and a short header scan find where the batch holding `offset` starts ...
      const start = segment.positionOfOffset(segment === first ? offset : segment.baseOffset);
      if (start === undefined) continue;
      // ... then one read of up to maxBytes from there, cut after the last whole batch in it.
      const bytes = segment.read(start, Math.max(maxBytes, LOG_OVERHEAD));
      let end = 0;
      while (end + LOG_OVERHEAD <= bytes.length) {
        const size = LOG_OVERHEAD + bytes.readInt32BE(end + BATCH_FIELD.batchLength);
        if (size < RECORD_BATCH_OVERHEAD || end + size > bytes.length) break;
        end += size;
      }
      if (end > 0) return bytes.subarray(0, end);
      // The first batch alone is larger than maxBytes: served whole, as Kafka does.
      const { bytes: whole } = segment.readBatchFraming(start);
      return whole;
    }
    return Buffer.alloc(0);
  }

  /**
   * The first record whose timestamp is at or after `timestampMs`, and its timestamp
   * (Kafka's `fetchOffsetByTimestamp` for ListOffsets): the first batch whose max
   * timestamp reaches it, then the first record in it that does. Undefined if none.
   */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | undefined {
    this.#checkOpen();
    const found = this.#offsetForTimestamp(timestampMs);
    // Records below the log start offset are gone for readers even while their segment is kept.
    if (found === undefined || found.offset >= this.#logStartOffset) return found;
    return { offset: this.#logStartOffset, timestamp: found.timestamp };
  }

  #offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | undefined {
    if (!Number.isSafeInteger(timestampMs)) {
      throw new StorageError(
        'INVALID_REQUEST',
        `timestamp must be a safe integer, got ${String(timestampMs)}`,
      );
    }
    for (const segment of this.#segments) {
      if (segment.maxTimestamp() < timestampMs) continue;
      for (const { position, header } of segment.headersFromTimestamp(timestampMs)) {
        if (header.maxTimestamp < timestampMs) continue;
        const batch = decodeRecordBatch(segment.readBatchAt(position).bytes, 0, { base: position });
        const logAppendTime = (batch.attributes & TIMESTAMP_TYPE_MASK) !== 0;
        for (const record of batch.records) {
          const timestamp = logAppendTime ? batch.maxTimestamp : batch.baseTimestamp + record.timestampDelta;
          if (timestamp >= timestampMs) return { offset: batch.baseOffset + record.offsetDelta, timestamp };
        }
      }
    }
    return undefined;
  }

  /** Flush and close every segment, and release the directory's lock. The log can be opened again. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.activeSegment.flush();
    } finally {
      for (const segment of this.#segments) segment.close({ writeIndex: segment === this.activeSegment });
      if (this.#ownsFiles) this.#files.closeAll();
      this.#lock.release();
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('CLOSED', `log ${this.dir} is closed`, { path: this.dir });
  }
}

/**
 * What the log assigns, written over a batch's first bytes: baseOffset, and the
 * partition leader epoch when given (both outside the CRC). `head` is the batch, or a
 * copy of its first 8 (16 with an epoch) bytes.
 */
function stampBatchHead(head: Buffer, baseOffset: number, leaderEpoch: number | undefined): void {
  writeInt64BE(head, BATCH_FIELD.baseOffset, baseOffset);
  if (leaderEpoch !== undefined) head.writeInt32BE(leaderEpoch, BATCH_FIELD.partitionLeaderEpoch);
}

/** Remove a segment's `.index` and `.timeindex` (derived data: rebuilt from the segment when missing). */
function removeIndexFiles(segmentPath: string): void {
  const stem = segmentPath.slice(0, -'.log'.length);
  for (const path of [`${stem}.index`, `${stem}.timeindex`]) {
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('remove index file', path, error);
    }
  }
}

/** An offset and a byte budget from a caller: safe integers, the budget >= 0. */
function checkReadArguments(offset: number, maxBytes: number): void {
  if (!Number.isSafeInteger(offset)) {
    throw new StorageError('INVALID_REQUEST', `offset must be a safe integer, got ${String(offset)}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new StorageError(
      'INVALID_REQUEST',
      `max bytes must be a safe integer >= 0, got ${String(maxBytes)}`,
    );
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
    const target = swap.path.slice(0, -'.swap'.length);
    // The old segment's index would point into the old bytes: removed first, rebuilt from the cleaned segment.
    removeIndexFiles(target);
    io('finish the swap of cleaned segment', swap.path, () => renameSync(swap.path, target));
  }
  fsyncDirectory(dir);
  return listLogDir(dir);
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
