import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DecodeError, StorageError } from './errors.js';
import { fsyncDirectory } from './fsync.js';
import {
  batchSize,
  DEFAULT_MAX_BATCH_BYTES,
  decodeBatchHeader,
  decodeRecordBatch,
  type RecordBatch,
} from './record-batch.js';
import { type RecoveryReport, recoverSegment } from './recovery.js';
import { LogSegment, parseSegmentFileName } from './segment.js';
import { writeInt64 } from './varint.js';

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

function validateConfig(config: LogConfig): LogConfig {
  if (!Number.isSafeInteger(config.segmentBytes) || config.segmentBytes < 61) {
    throw new StorageError(`segment.bytes must be an integer >= 61, got ${config.segmentBytes}`);
  }
  if (
    !Number.isSafeInteger(config.maxBatchBytes) ||
    config.maxBatchBytes < 61 ||
    config.maxBatchBytes > DEFAULT_MAX_BATCH_BYTES
  ) {
    throw new StorageError(
      `max batch bytes must be an integer in 61..${DEFAULT_MAX_BATCH_BYTES} (what klog can read back), got ${config.maxBatchBytes}`,
    );
  }
  const flush: unknown = config.flush;
  if (typeof flush === 'object' && flush !== null) {
    const n = (flush as { everyMessages?: unknown }).everyMessages;
    if (!Number.isSafeInteger(n) || (n as number) < 1) {
      throw new StorageError(`flush every N messages needs N >= 1, got ${String(n)}`);
    }
  } else if (flush !== 'os' && flush !== 'every-append') {
    throw new StorageError(
      `flush must be 'os', 'every-append' or { everyMessages: n }, got ${String(flush)}`,
    );
  }
  return config;
}

/**
 * Where a compaction of the log in `dir` writes the cleaned log (`cleaned`) and parks
 * the old one during the swap (`old`): siblings of `dir` named by a hash of its name,
 * so that they stay within the file system's 255-byte name limit even for a
 * 249-character topic, and can never be mistaken for a `<topic>-<partition>` directory.
 */
export function swapDirs(dir: string): { readonly cleaned: string; readonly old: string } {
  const id = createHash('sha256').update(basename(dir)).digest('hex').slice(0, 16);
  return { cleaned: join(dirname(dir), `.${id}.cleaned`), old: join(dirname(dir), `.${id}.old`) };
}

/**
 * A compaction writes the cleaned log next to the partition, then swaps directories.
 * Finish or undo a swap a crash interrupted, so that a log is always either wholly
 * before or wholly after a clean.
 */
function completeInterruptedSwap(dir: string): void {
  const { cleaned, old } = swapDirs(dir);
  if (!existsSync(dir) && existsSync(cleaned)) renameSync(cleaned, dir);
  if (existsSync(cleaned)) rmSync(cleaned, { recursive: true, force: true });
  if (existsSync(old) && existsSync(dir)) rmSync(old, { recursive: true, force: true });
}

/** Set by `Log`'s static block, so that only this package can reach the write path below. */
let writeBuiltBatch: (log: Log, batch: Buffer) => LogAppendInfo;

/**
 * Append a batch that this package's own builder produced in the same call and that
 * never left the package: its header and CRC-32C were written a moment ago, so
 * decoding and checking them again would only add to the cost of every append. Kafka does the same: the
 * leader validates the CRC of a client's batch (`LogValidator`) but not of batches it
 * builds itself. Not exported from the package: bytes from outside go through
 * `Log.appendBatch`, which checks everything.
 */
export function appendBuiltBatch(log: Log, batch: Buffer): LogAppendInfo {
  return writeBuiltBatch(log, batch);
}

/**
 * A partition's log: ordered segments, the last of which is active and takes
 * appends (Kafka's `UnifiedLog` over `LocalLog`). The log end offset is the offset
 * the next record will get.
 */
export class Log {
  readonly #segments: LogSegment[];
  #logEndOffset: number;
  #unflushedMessages = 0;
  #closed = false;

  private constructor(
    readonly dir: string,
    readonly config: LogConfig,
    segments: LogSegment[],
    logEndOffset: number,
    /**
     * What recovery on open had to cut from the active segment, or undefined when it
     * was whole: the file, the byte, why, how many bytes, and where they were saved.
     */
    readonly recovery: RecoveryReport | undefined,
  ) {
    this.#segments = segments;
    this.#logEndOffset = logEndOffset;
  }

  /**
   * Open the log in `dir` (created if missing), finding its segments and log end
   * offset on disk. The active segment is recovered first (`recoverSegment`): a torn
   * or corrupt tail is saved next to it and cut, and `recovery` says what was done,
   * so the log end offset and a producer-state rebuild see only whole batches.
   */
  static open(dir: string, config: Partial<LogConfig> = {}): Log {
    // A key given as undefined (from JavaScript) means the default, as a missing one does.
    const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
    const full = validateConfig({ ...DEFAULT_LOG_CONFIG, ...given });
    completeInterruptedSwap(dir);
    mkdirSync(dir, { recursive: true });
    const found = readdirSync(dir)
      .map((name) => ({ name, base: parseSegmentFileName(name) }))
      .filter((s): s is { name: string; base: number } => s.base !== undefined)
      .sort((a, b) => a.base - b.base);
    const segments: LogSegment[] = [];
    try {
      for (const s of found) segments.push(LogSegment.open(join(dir, s.name), s.base));
      if (segments.length === 0) {
        segments.push(LogSegment.create(dir, 0));
        fsyncDirectory(dir);
      }
      // Each segment's offsets end before the next one's base offset: a check on baseOffset, which the CRC does not cover.
      for (let i = 0; i + 1 < segments.length; i++) segments[i]!.nextBaseOffset = segments[i + 1]!.baseOffset;
      const active = segments.at(-1)!;
      // Recovery reads with the readers' limit, not the setting: what an append once accepted is never cut for its size.
      const recovery = recoverSegment(active);
      // An empty active segment was rolled at the log end offset, so its base offset is the LEO.
      const logEndOffset = recovery.nextOffset ?? active.baseOffset;
      return new Log(dir, full, segments, logEndOffset, recovery.kind === 'clean' ? undefined : recovery);
    } catch (error) {
      for (const segment of segments) segment.close();
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
    return this.#segments[0]!.baseOffset;
  }

  get logEndOffset(): number {
    return this.#logEndOffset;
  }

  /** Total bytes on disk over all segments. */
  get size(): number {
    return this.#segments.reduce((sum, s) => sum + s.size, 0);
  }

  /**
   * Append one encoded batch. The log gives it its offsets: the base offset field
   * (outside the CRC) is set to the log end offset.
   */
  appendBatch(batch: Buffer): LogAppendInfo {
    return this.#write(batch, this.#logEndOffset);
  }

  static {
    // The builder wrote a valid header and CRC moments ago: give the batch its offset and place it.
    writeBuiltBatch = (log, batch) => {
      log.#checkOpen();
      const baseOffset = log.#logEndOffset;
      writeInt64(new DataView(batch.buffer, batch.byteOffset, 8), 0, baseOffset);
      return log.#place(batch, baseOffset, batch.readInt32BE(23), batch.readInt32BE(57));
    };
  }

  /**
   * Append a batch keeping the base offset it carries, which must be at or past the
   * log end offset. Compaction uses it: a cleaned log keeps every record's offset,
   * with gaps where records were removed.
   */
  appendBatchKeepingOffsets(batch: Buffer): LogAppendInfo {
    const header = decodeBatchHeader(batch, 0, { maxBatchBytes: this.config.maxBatchBytes });
    if (header.baseOffset < this.#logEndOffset) {
      throw new StorageError(
        `batch at offset ${header.baseOffset} is below the log end offset ${this.#logEndOffset}`,
      );
    }
    return this.#write(batch, header.baseOffset);
  }

  /**
   * Write a batch from outside at `baseOffset`. It is checked whole first, as
   * Kafka's `LogValidator` does: length, magic, CRC and every record, so bytes that
   * are not a batch never reach the file; then the segment may roll.
   */
  #write(batch: Buffer, baseOffset: number): LogAppendInfo {
    this.#checkOpen();
    writeInt64(new DataView(batch.buffer, batch.byteOffset, 8), 0, baseOffset);
    const header = decodeRecordBatch(batch, 0, { maxBatchBytes: this.config.maxBatchBytes });
    if (batchSize(header) !== batch.length) {
      throw new DecodeError(
        'batchLength',
        8,
        `says ${batchSize(header)} bytes but the buffer holds ${batch.length}`,
      );
    }
    return this.#place(batch, baseOffset, header.lastOffsetDelta, header.recordsCount);
  }

  /** Put a checked batch on the active segment (rolling first if it would not fit) and move the log end offset. */
  #place(batch: Buffer, baseOffset: number, lastOffsetDelta: number, records: number): LogAppendInfo {
    const rolled = this.#maybeRoll(batch.length);
    const segment = this.activeSegment;
    const position = segment.size;
    const lastOffset = baseOffset + lastOffsetDelta;
    segment.append(batch, lastOffset);
    this.#logEndOffset = lastOffset + 1;
    this.#maybeFlush(records);
    return {
      firstOffset: baseOffset,
      lastOffset,
      segmentBaseOffset: segment.baseOffset,
      position,
      size: batch.length,
      rolled,
    };
  }

  // #region maybe-roll
  /** Kafka's roll rule on size: a new segment when this batch would take the active one past `segment.bytes`. */
  #maybeRoll(nextBatchBytes: number): boolean {
    const active = this.activeSegment;
    if (active.size === 0 || active.size + nextBatchBytes <= this.config.segmentBytes) return false;
    active.flush();
    this.#unflushedMessages = 0;
    this.#segments.push(LogSegment.create(this.dir, this.#logEndOffset));
    fsyncDirectory(this.dir);
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
    if (offset === this.#logEndOffset) return [];
    const first = this.segmentFor(offset);
    if (first === undefined) {
      throw new StorageError(
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

  get isOpen(): boolean {
    return !this.#closed;
  }

  /** Flush and close every segment. The log can be opened again from its directory. */
  close(): void {
    if (this.#closed) return;
    this.activeSegment.flush();
    for (const segment of this.#segments) segment.close();
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError(`log ${this.dir} is closed`);
  }
}
