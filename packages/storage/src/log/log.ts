import { mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crcMismatch, DecodeError, namingFile, StorageError } from '../errors.js';
import type { ProducedBatch } from '../format/produced-batch.js';
import {
  BATCH_FIELD,
  batchSize,
  computeBatchCrc,
  decodeRecordBatch,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
  type RecordBatchHeader,
  TIMESTAMP_TYPE_MASK,
} from '../format/record-batch.js';
import { writeInt64BE } from '../format/varint.js';
import { DirectoryLock } from '../io/file-lock.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io } from '../io/io.js';
import type { ReadAllocator } from '../segment/file-records.js';
import { LogSegment } from '../segment/log-segment.js';
import type { RecoveryReport } from '../segment/recovery.js';
import { SegmentFileCache } from '../segment/segment-file-cache.js';
import { swapPathOf } from '../segment/segment-name.js';
import { type LogConfig, logConfigOf } from './log-config.js';
import { loadLog, type OffsetGap, removeIndexFiles } from './log-loader.js';
import { LOG_START_OFFSET_FILE, readLogStartOffset, writeLogStartOffset } from './log-start-offset.js';
import {
  type AppendedHeader,
  keylessRecords,
  needsRecompression,
  validateBatch,
  validateForAppend,
  validateRecords,
} from './log-validator.js';

export { DEFAULT_LOG_CONFIG, type FlushPolicy, type LogConfig } from './log-config.js';

/** Where an appended batch went. */
export interface LogAppendInfo {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly segmentBaseOffset: number;
  readonly position: number;
  readonly size: number;
  readonly rolled: boolean;
}

/**
 * A batch to append and where it comes from, which decides what is checked (Kafka's
 * `AppendOrigin`, see `validateForAppend`):
 * - `client`: a Kafka client's batch as a Produce carried it (`readProducedBatch`: header
 *   read, length checked): its size, CRC-32C and Kafka's `LogValidator` rules on the
 *   header; written as received, with the offsets and leader epoch stamped in place;
 * - `raw`: bytes from outside whose header nobody has read (a tool, a test): decoded
 *   whole, every record and the CRC, then the client's rules; the caller's buffer is not
 *   written to;
 * - `klog`: a batch this package built a moment ago from records it was given: its
 *   structure and CRC are right by construction, so only its size and offsets are
 *   checked (Kafka's leader does not validate batches it builds itself either).
 */
export type LogAppend =
  | { readonly origin: 'client'; readonly batch: ProducedBatch }
  | { readonly origin: 'raw'; readonly bytes: Buffer }
  | { readonly origin: 'klog'; readonly bytes: Buffer; readonly header: AppendedHeader };

/** A batch that passed its origin's checks against the log end offset `baseOffset` (`Log.check`). */
export interface CheckedBatch {
  readonly bytes: Buffer;
  readonly header: AppendedHeader;
  readonly baseOffset: number;
  /**
   * How the log's offsets reach the file: stamped into `bytes` (a buffer that is the log's
   * to change), or written from a head of its own (the caller's buffer stays as it was).
   */
  readonly stamp: 'in-place' | 'own-head';
  /** The partition leader epoch stamped with them, or undefined to keep the batch's. */
  readonly leaderEpoch: number | undefined;
}

function messageTooLarge(size: number, maxBatchBytes: number): StorageError {
  return new StorageError(
    'MESSAGE_TOO_LARGE',
    `batch of ${size} bytes exceeds the limit of ${maxBatchBytes} (message.max.bytes)`,
  );
}

/**
 * What a reader of a partition's log may use (`Partition.log`): every read and what
 * the log holds, no write. A partition's writes go through `Partition.append`, under
 * its producers' windows; `Log.append` is for a log opened on its own.
 */
export type LogReader = Pick<
  Log,
  | 'dir'
  | 'config'
  | 'recovery'
  | 'gaps'
  | 'segments'
  | 'activeSegment'
  | 'logStartOffset'
  | 'logEndOffset'
  | 'size'
  | 'isClosed'
  | 'segmentFor'
  | 'readChecked'
  | 'readCheckedBatches'
  | 'readRaw'
  | 'batches'
  | 'headersFrom'
  | 'offsetForTimestamp'
  | 'offsetOfMaxTimestamp'
>;

/** How a log is opened, apart from its config. */
export interface LogOpenOptions {
  /**
   * Where inactive segments get their (read-only) file descriptors: a `LogManager`
   * shares one over all its logs. A log opened alone gets its own, of 64 files.
   */
  readonly segmentFiles?: SegmentFileCache;
  /** Called after each roll with the new active segment's base offset (a Partition writes its producer snapshot). */
  readonly onRoll?: (baseOffset: number) => void;
  /**
   * The log's clock (Kafka's `Time`, default `Date.now`): retention's age of a segment, and a roll on
   * `segment.ms` for an active segment whose batches carry no timestamp.
   */
  readonly time?: () => number;
}

/** The largest offset an index entry can hold relative to its segment's base offset (an i32). */
const MAX_RELATIVE_OFFSET = 0x7fffffff;

/** The partition leader epoch klog stamps on a client's batch: one node, never a new leader. */
const PARTITION_LEADER_EPOCH = 0;

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
  readonly #onRoll: ((baseOffset: number) => void) | undefined;
  readonly #time: () => number;
  /**
   * The active segment's rolling-based timestamp (Kafka's `LogSegment.rollingBasedTimestamp`: its first
   * batch's max timestamp), for the segment of that base offset; read once, when first needed.
   */
  #rollingBase: { readonly base: number; readonly timestamp: number } | undefined;
  /** When the active segment was created or, for one found on open, opened (Kafka's `LogSegment.created`). */
  #activeCreatedMs: number;
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
    /** Offsets no segment holds, found on open (see `findGaps` in log-loader.ts). */
    readonly gaps: readonly OffsetGap[],
    onRoll: ((baseOffset: number) => void) | undefined,
    time: () => number,
  ) {
    this.#onRoll = onRoll;
    this.#time = time;
    this.#activeCreatedMs = time();
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
    this.#config = logConfigOf({ ...this.#config, ...config });
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
    const full = logConfigOf(config);
    io('create partition directory', dir, () => mkdirSync(dir, { recursive: true }));
    const lock = DirectoryLock.acquire(dir, 'partition directory');
    const files = options.segmentFiles ?? new SegmentFileCache();
    try {
      const loaded = loadLog(dir, files);
      return new Log(
        dir,
        full,
        lock,
        files,
        options.segmentFiles === undefined,
        loaded.segments,
        loaded.logEndOffset,
        loaded.recovery,
        loaded.gaps,
        options.onRoll,
        options.time ?? Date.now,
      );
    } catch (error) {
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
   * Retention by the log's own config (Kafka's `UnifiedLog.deleteOldSegments()`): when `cleanup.policy`
   * has `delete`, the oldest inactive segments whose newest record is older than `retention.ms`, then
   * those beyond `retention.bytes`, are deleted, and the log start offset moves to the first one left.
   * A segment without a timestamp (−1) is never too old. Returns the base offsets deleted, oldest first.
   */
  deleteRetentionBreachedSegments(): number[] {
    this.#checkOpen();
    const { delete: deletes, retentionMs, retentionBytes } = this.#config;
    if (!deletes) return [];
    const deleted: number[] = [];
    if (retentionMs >= 0) {
      const now = this.#time();
      deleted.push(
        ...this.deleteOldSegments((segment) => {
          const newest = segment.maxTimestamp();
          return newest >= 0 && now - newest > retentionMs;
        }),
      );
    }
    if (retentionBytes >= 0) {
      deleted.push(...this.deleteOldSegments((segment, bytes) => bytes - segment.size >= retentionBytes));
    }
    return deleted;
  }

  /**
   * Deletes inactive segments from the oldest on, while `breached(segment, bytesOfLogLeft)` holds, and
   * moves the log start offset to the first one left (Kafka's `UnifiedLog.deleteOldSegments(predicate)`,
   * which the retention rules above use). The active segment is never deleted. Returns the base offsets
   * deleted.
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

  /** Rolls a new, empty active segment now (Kafka's `UnifiedLog.roll`), unless the active one is empty. */
  roll(): boolean {
    this.#checkOpen();
    if (this.activeSegment.size === 0) return false;
    const rolled = this.#maybeRoll(Number.MAX_SAFE_INTEGER, this.#logEndOffset);
    if (rolled) this.#activeCreatedMs = this.#time();
    return rolled;
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
   * A compacted topic's rule for clients' records (Kafka's `LogValidator.validateKey`): every record without
   * a key is a RecordError, and the batch is refused whole with INVALID_RECORD and Kafka's message
   * (`processRecordErrors`: the count, then at most the first three).
   */
  #refuseKeyless(bytes: Buffer, header: RecordBatchHeader): void {
    const keyless = keylessRecords(bytes, header);
    if (keyless.length === 0) return;
    const message = `Compacted topic cannot accept message without key in topic partition ${basename(this.dir)}`;
    const recordErrors = keyless.map((batchIndex) => ({ batchIndex, message }));
    const shown = recordErrors
      .slice(0, 3)
      .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`)
      .join(', ');
    throw new StorageError(
      'INVALID_RECORD',
      `One or more records have been rejected due to ${recordErrors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
      { recordErrors },
    );
  }

  /**
   * The checks a batch from `request.origin` must pass before it is written (Kafka's
   * `LogValidator`, by `AppendOrigin`), against the log end offset: the offset the batch
   * will get. Nothing is written: `append` writes the batch, and must be called before
   * anything else is appended (a producer's append judges the batch in between).
   */
  check(request: LogAppend): CheckedBatch {
    this.#checkOpen();
    const baseOffset = this.#logEndOffset;
    const maxBatchBytes = this.config.maxBatchBytes;
    switch (request.origin) {
      case 'client': {
        // The size first, as Kafka reports it (an oversized batch with a bad CRC is MESSAGE_TOO_LARGE).
        const { bytes, header } = request.batch;
        if (bytes.length > maxBatchBytes) throw messageTooLarge(bytes.length, maxBatchBytes);
        const computed = computeBatchCrc(bytes, 0, header);
        if (computed !== header.crc) throw crcMismatch(header.crc, computed, BATCH_FIELD.crc);
        validateForAppend(header, bytes.length, baseOffset, maxBatchBytes, 'client');
        if (needsRecompression(header.attributes, this.config.compression)) {
          // In the topic's codec (compression.type): a new buffer, measured again as Kafka's UnifiedLog.append does.
          const rewritten = validateBatch(bytes, header, this.config.compression);
          if (this.config.compact) this.#refuseKeyless(bytes, header);
          if (rewritten.bytes.length > maxBatchBytes)
            throw messageTooLarge(rewritten.bytes.length, maxBatchBytes);
          return { ...rewritten, baseOffset, stamp: 'in-place', leaderEpoch: PARTITION_LEADER_EPOCH };
        }
        // Every record walked, the max timestamp set from them (log-validator.ts).
        const validated = validateRecords(bytes, header);
        if (this.config.compact) this.#refuseKeyless(bytes, validated);
        // The Produce's buffer is the broker's to give: offsets and leader epoch stamped into it, as Kafka's leader does.
        return {
          bytes,
          header: validated,
          baseOffset,
          stamp: 'in-place',
          leaderEpoch: PARTITION_LEADER_EPOCH,
        };
      }
      case 'raw': {
        const { bytes } = request;
        if (bytes.length > maxBatchBytes) throw messageTooLarge(bytes.length, maxBatchBytes);
        const header = decodeRecordBatch(bytes, 0);
        if (batchSize(header) !== bytes.length) {
          throw new DecodeError(
            'batchLength',
            BATCH_FIELD.batchLength,
            `says ${batchSize(header)} bytes but the buffer holds ${bytes.length}`,
          );
        }
        validateForAppend(header, bytes.length, baseOffset, maxBatchBytes, 'raw');
        // Not the log's buffer to change: the base offset goes to the file in a head of its own.
        return { bytes, header, baseOffset, stamp: 'own-head', leaderEpoch: undefined };
      }
      case 'klog':
        validateForAppend(request.header, request.bytes.length, baseOffset, maxBatchBytes, 'klog');
        // Built field by field: a spread of the request here made every append of klog's own batches twice as slow.
        return {
          bytes: request.bytes,
          header: request.header,
          baseOffset,
          stamp: 'in-place',
          leaderEpoch: undefined,
        };
    }
  }

  /**
   * Append one batch at the log end offset, which gives it its offsets: checked as its
   * origin says (`check`) unless it is a batch `check` returned a moment ago; on the active
   * segment, rolling first if it would not fit (`maybe-roll`).
   */
  append(request: LogAppend | CheckedBatch): LogAppendInfo {
    const batch = 'stamp' in request ? request : this.check(request);
    this.#checkOpen();
    const baseOffset = this.#logEndOffset;
    if (batch.baseOffset !== baseOffset) {
      throw new StorageError(
        'INVALID_REQUEST',
        `a batch checked at offset ${batch.baseOffset} cannot be appended at ${baseOffset}: check it again`,
      );
    }
    const { bytes, header } = batch;
    const lastOffset = baseOffset + header.lastOffsetDelta;
    // On time first (segment.ms), then on size: whichever path appended, as Kafka's UnifiedLog.maybeRoll.
    const rolledOnTime = this.#maybeRollOnTime(header.maxTimestamp);
    const rolled = this.#maybeRoll(bytes.length, lastOffset) || rolledOnTime;
    if (rolled) this.#activeCreatedMs = this.#time();
    const segment = this.activeSegment;
    const position = segment.size;
    if (batch.stamp === 'in-place') {
      stampBatchHead(bytes, baseOffset, batch.leaderEpoch);
      segment.append(bytes, lastOffset, undefined, header.maxTimestamp);
    } else {
      // The head is the base offset field (8 bytes: what `stampBatchHead` writes without an epoch).
      const head = Buffer.from(bytes.subarray(0, BATCH_FIELD.batchLength));
      stampBatchHead(head, baseOffset, batch.leaderEpoch);
      segment.append(bytes, lastOffset, head, header.maxTimestamp);
    }
    try {
      this.#maybeFlush(header.recordsCount);
    } catch (error) {
      // An append is one unit: its fsync failed, so it is not acknowledged, and nothing of it stays.
      this.#unflushedMessages = Math.max(0, this.#unflushedMessages - header.recordsCount);
      segment.undoAppend(position);
      throw error;
    }
    this.#logEndOffset = lastOffset + 1;
    if (position === 0) this.#rollingBase = { base: segment.baseOffset, timestamp: header.maxTimestamp };
    return {
      firstOffset: baseOffset,
      lastOffset,
      segmentBaseOffset: segment.baseOffset,
      position,
      size: bytes.length,
      rolled,
    };
  }

  // #region maybe-roll
  /** Kafka's roll rule on size: a new segment when this batch would take the active one past `segment.bytes`. */
  #maybeRoll(nextBatchBytes: number, lastOffset: number): boolean {
    const active = this.activeSegment;
    // Also when the batch's last offset would not fit the index's relative offset (Kafka's canConvertToRelativeOffset).
    const fits = lastOffset - active.baseOffset <= MAX_RELATIVE_OFFSET;
    if (active.size === 0 || (fits && active.size + nextBatchBytes <= this.config.segmentBytes)) return false;
    // The next segment first, then the seal: a failure of either leaves the active segment active.
    const next = LogSegment.create(this.dir, this.#logEndOffset);
    try {
      active.seal(this.#logEndOffset, this.#files);
    } catch (error) {
      next.discard();
      throw error;
    }
    this.#unflushedMessages = 0;
    this.#segments.push(next);
    fsyncDirectory(this.dir);
    this.#onRoll?.(this.#logEndOffset);
    return true;
  }
  // #endregion maybe-roll

  /**
   * Kafka's roll rule on time (`LogSegment.shouldRoll` with `segment.ms`, no jitter): a new segment when the
   * active one is not empty and the batch's max timestamp is more than `segment.ms` past the active
   * segment's first batch's; when that first batch has no timestamp, the log's clock against when the
   * segment was created.
   */
  #maybeRollOnTime(batchMaxTimestamp: number): boolean {
    const active = this.activeSegment;
    if (active.size === 0) return false;
    const first = this.#rollingBasedTimestamp(active);
    const waited = first >= 0 ? batchMaxTimestamp - first : this.#time() - this.#activeCreatedMs;
    if (waited <= this.#config.segmentMs) return false;
    return this.#maybeRoll(Number.MAX_SAFE_INTEGER, this.#logEndOffset);
  }

  #rollingBasedTimestamp(active: LogSegment): number {
    if (this.#rollingBase?.base !== active.baseOffset) {
      this.#rollingBase = {
        base: active.baseOffset,
        timestamp: active.readCheckedBatchAt(0).header.maxTimestamp,
      };
    }
    return this.#rollingBase.timestamp;
  }

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

  /**
   * Replace groups of adjacent inactive segments, each by its cleaned copy (`<first base>.log.swap`,
   * written, fsynced and committed by compaction), in offset order, as Kafka's `LocalLog.replaceSegments`:
   * a group's other segments are removed first, then the swap is renamed over its first segment. A crash
   * in between leaves the committed swap, and `Log.open` removes the segments it covers before renaming it,
   * so each group ends up either all old or cleaned, never both.
   */
  replaceWithCleaned(groups: readonly (readonly number[])[]): void {
    this.#checkOpen();
    for (const group of groups) {
      const i = this.#segments.findIndex((s) => s.baseOffset === group[0]);
      const members = this.#segments.slice(i, i + group.length);
      if (
        i < 0 ||
        members.length !== group.length ||
        members.some((s, k) => s.baseOffset !== group[k] || s === this.activeSegment)
      ) {
        throw new StorageError(
          'INVALID_REQUEST',
          `no inactive segments at offsets ${group.join(', ')} in ${this.dir}`,
        );
      }
      const first = members[0]!;
      for (const old of members.slice(1)) {
        old.close();
        removeIndexFiles(old.path);
        io('remove cleaned-away segment', old.path, () => unlinkSync(old.path));
      }
      first.close();
      removeIndexFiles(first.path);
      io('swap in cleaned segment', first.path, () => renameSync(swapPathOf(first.path), first.path));
      const cleaned = LogSegment.open(first.path, first.baseOffset, {
        readOnly: true,
        cache: this.#files,
        nextBaseOffset: this.#segments[i + group.length]!.baseOffset,
      });
      this.#segments.splice(i, group.length, cleaned);
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
   * Bytes of whole batches from the one holding `offset`, up to `maxBytes` (at least
   * one batch, as Kafka's fetch returns one oversized batch rather than none), each
   * checked before it is served: its CRC, and its offsets against its neighbours. A bad
   * batch ends the read, which returns the batches before it, and a read that starts at
   * it throws its DecodeError, naming the file and the byte. Empty at the log end
   * offset; StorageError `OFFSET_OUT_OF_RANGE` outside [log start, log end].
   */
  readChecked(offset: number, maxBytes = 1024 * 1024): Buffer {
    const slices = this.#checkedSlices(offset, maxBytes);
    return Buffer.concat(
      slices.map((s) => s.bytes),
      slices.reduce((sum, s) => sum + s.bytes.length, 0),
    );
  }

  /** Decoded batches from the one holding `offset`, up to `maxBytes`, checked as `readChecked` checks them. */
  readCheckedBatches(offset: number, maxBytes = 1024 * 1024): RecordBatch[] {
    const batches: RecordBatch[] = [];
    for (const { segment, position, bytes } of this.#checkedSlices(offset, maxBytes)) {
      try {
        batches.push(decodeRecordBatch(bytes, 0, { base: position }));
      } catch (error) {
        if (error instanceof DecodeError && batches.length > 0) return batches;
        throw namingFile(error, segment.path);
      }
    }
    return batches;
  }

  #checkedSlices(
    offset: number,
    maxBytes: number,
  ): { segment: LogSegment; position: number; bytes: Buffer }[] {
    const first = this.#firstSegmentToRead(offset, maxBytes);
    if (first === undefined) return [];
    const slices: { segment: LogSegment; position: number; bytes: Buffer }[] = [];
    let total = 0;
    try {
      for (let i = this.#segments.indexOf(first); i < this.#segments.length; i++) {
        const segment = this.#segments[i]!;
        for (const { position, size } of segment.checkedPositionsFrom(segment === first ? offset : 0)) {
          if (total > 0 && total + size > maxBytes) return slices;
          slices.push({ segment, position, bytes: segment.readCheckedBatchAt(position).bytes });
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

  /**
   * The segment a read from `offset` starts in, after the checks every read makes: `offset`
   * and `maxBytes` safe integers, the budget >= 0, `offset` in [log start, log end].
   * Undefined at the log end offset: nothing to read yet.
   */
  #firstSegmentToRead(offset: number, maxBytes: number): LogSegment | undefined {
    this.#checkOpen();
    checkReadArguments(offset, maxBytes);
    if (offset === this.#logEndOffset) return undefined;
    const first = this.segmentFor(offset);
    if (first === undefined) {
      throw new StorageError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside the log [${this.logStartOffset}, ${this.#logEndOffset}]`,
      );
    }
    return first;
  }

  /** Every batch of every segment, in offset order, decoded and CRC-checked; stops with a DecodeError at a bad one. */
  *batches(): Generator<{ segment: LogSegment; position: number; batch: RecordBatch }> {
    this.#checkOpen();
    for (const segment of this.#segments) {
      for (const { position, batch } of segment.batches()) yield { segment, position, batch };
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
   * Raw bytes of whole batches from the one holding `offset`, from one segment (more only while
   * what was read holds emptied batches alone), up to `maxBytes` (but at least one batch): bytes ready to send
   * (Kafka's `LocalLog.read` over `LogSegment.read`). Not CRC-checked, as Kafka's broker
   * does not check on fetch (the consumer does); their framing and offsets come from the
   * segment's index. Empty at the log end offset; StorageError `OFFSET_OUT_OF_RANGE`
   * outside [log start, log end].
   */
  readRaw(offset: number, maxBytes: number, allocate?: ReadAllocator): Buffer {
    const first = this.#firstSegmentToRead(offset, maxBytes);
    if (first === undefined) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    let total = 0;
    for (let i = this.#segments.indexOf(first); i < this.#segments.length; i++) {
      const segment = this.#segments[i]!;
      const from = segment === first ? offset : segment.baseOffset;
      if (parts.length === 0) {
        const bytes = segment.readRaw(from, maxBytes, allocate);
        if (bytes.length === 0) continue;
        parts.push(bytes);
        total = bytes.length;
      } else {
        // Only the first batch may pass the budget (Kafka's minOneMessage); later ones must fit.
        if (maxBytes - total < RECORD_BATCH_OVERHEAD) break;
        const bytes = segment.readRaw(from, maxBytes - total);
        if (bytes.length > maxBytes - total) break;
        if (bytes.length === 0) continue;
        parts.push(bytes);
        total += bytes.length;
      }
      // A read of emptied batches alone (compaction keeps a producer's last batch without its records) goes
      // on into the next segments: a client given no record doubles its fetch size each time (librdkafka),
      // and a run of such segments took it past its limit, to MSG_SIZE_TOO_LARGE.
      if (holdsRecord(parts.at(-1)!)) break;
    }
    if (parts.length <= 1) return parts[0] ?? Buffer.alloc(0);
    return Buffer.concat(parts, total);
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
        const batch = decodeRecordBatch(segment.readCheckedBatchAt(position).bytes, 0, { base: position });
        const logAppendTime = (batch.attributes & TIMESTAMP_TYPE_MASK) !== 0;
        for (const record of batch.records) {
          const timestamp = logAppendTime ? batch.maxTimestamp : batch.baseTimestamp + record.timestampDelta;
          if (timestamp >= timestampMs) return { offset: batch.baseOffset + record.offsetDelta, timestamp };
        }
      }
    }
    return undefined;
  }

  /**
   * The record with the largest timestamp and that timestamp (ListOffsets' MAX_TIMESTAMP, −3, KIP-734), as
   * Kafka's `UnifiedLog.fetchOffsetByTimestamp` finds it: the first segment holding the largest timestamp,
   * the first batch in it whose max timestamp is that, and the first record in that batch carrying it (every
   * record of a LogAppendTime batch carries the batch's time: its first). Undefined for an empty log.
   */
  offsetOfMaxTimestamp(): { offset: number; timestamp: number } | undefined {
    this.#checkOpen();
    let latest: LogSegment | undefined;
    for (const segment of this.#segments) {
      if (segment.size > 0 && (latest === undefined || segment.maxTimestamp() > latest.maxTimestamp()))
        latest = segment;
    }
    if (latest === undefined) return undefined;
    const max = latest.maxTimestamp();
    for (const { position, header } of latest.headersFromTimestamp(max)) {
      if (header.maxTimestamp !== max) continue;
      const batch = decodeRecordBatch(latest.readCheckedBatchAt(position).bytes, 0, { base: position });
      const logAppendTime = (batch.attributes & TIMESTAMP_TYPE_MASK) !== 0;
      for (const record of batch.records) {
        const timestamp = logAppendTime ? batch.maxTimestamp : batch.baseTimestamp + record.timestampDelta;
        if (timestamp === max) return { offset: batch.baseOffset + record.offsetDelta, timestamp };
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

/** Whether any batch in `bytes` (whole batches, as `LogSegment.readRaw` cuts them) holds a record. */
function holdsRecord(bytes: Buffer): boolean {
  let at = 0;
  while (at + RECORD_BATCH_OVERHEAD <= bytes.length) {
    if (bytes.readInt32BE(at + BATCH_FIELD.recordsCount) > 0) return true;
    const size = batchSize({ batchLength: bytes.readInt32BE(at + BATCH_FIELD.batchLength) });
    // Framing a reader would refuse: served as it is, with no reading past it.
    if (size < RECORD_BATCH_OVERHEAD) return true;
    at += size;
  }
  return false;
}
