import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { crcMismatch, DecodeError, namingFile, StorageError } from '../errors.js';
import {
  BATCH_FIELD,
  batchSize,
  computeBatchCrc,
  type DecodeOptions,
  decodeBatchFraming,
  decodeBatchHeader,
  decodeRecordBatch,
  LOG_OVERHEAD,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
  type RecordBatchHeader,
} from '../format/record-batch.js';
import { io } from '../io/io.js';
import { FileRecords, type ReadAllocator } from './file-records.js';
import type { SegmentFileCache } from './segment-file-cache.js';
import { ActiveIndexFiles, readIndexFiles, SegmentIndex, writeIndexFiles } from './segment-index.js';
import { type InspectionEntry, inspectSegment } from './segment-inspection.js';
import { indexPathsOf, segmentFileName } from './segment-name.js';
import { storedBatchOptions } from './stored-batch.js';

/**
 * One segment file, `<20-digit base offset>.log`, holding whole batches back to
 * back (Kafka's `LogSegment`): its bytes on disk (`FileRecords`, file-records.ts) and
 * its sparse `.index` / `.timeindex` (segment-index.ts), through which every read finds
 * its first batch. Names are in segment-name.ts, diagnostics in segment-inspection.ts.
 *
 * What makes the bytes of a segment trustworthy, checked in three places with the
 * same rules (`inspect` for recovery and `klog dump-log`, `checkedPositionsFrom` for
 * checked reads, `readCheckedBatchAt` for each batch they serve):
 * - structure: each header decodes (lengths within bounds, magic 2, a known compression,
 *   safe integers) and the batch lies wholly inside the file;
 * - the CRC-32C over attributes … end of batch;
 * - what the CRC does not cover. Kafka leaves `baseOffset` and `partitionLeaderEpoch`
 *   outside the CRC so a leader can stamp them without recomputing it; klog checks
 *   them against their neighbours instead: offsets only grow (the first batch starts
 *   at or after the segment's base offset, each batch after the previous one ends,
 *   the last one before the next segment's base offset) and an epoch is -1 or more.
 */

export { parseSegmentFileName, SEGMENT_SUFFIX, segmentFileName } from './segment-name.js';

/** A batch header found in a segment file, and the byte where its batch starts. */
export interface HeaderAt {
  /** Byte position of the batch in its segment file. */
  readonly position: number;
  readonly header: RecordBatchHeader;
}

/** A whole batch, decoded, and the byte of its segment file where it starts. */
export interface BatchAt {
  readonly position: number;
  readonly batch: RecordBatch;
}

/** Bytes read at a time by the header scan while batches are small: many headers share one read. */
const SCAN_CHUNK = 64 * 1024;
/**
 * After a batch larger than this, the scan reads only the next header's 61 bytes:
 * one small read costs less than copying a chunk of record bytes it would skip.
 */
const SCAN_HEADER_ONLY_AFTER = 4 * 1024;
/** Bytes read at a time when seeking from an index entry to an offset: entries are 4 KiB apart. */
const SEEK_CHUNK = 8 * 1024;
/**
 * The seek's buffer, one for the process: `translateOffset` runs to its end before it returns, so no
 * two seeks share it at once. A fresh 8 KiB buffer on every fetch, beside the fetch's own 1 MiB one,
 * cut fetch throughput from 0.98 to 0.69 of pread (bench:storage fetch, 1 GiB log): the allocator stopped
 * reusing the large buffers' memory, and every fetch paid for new pages.
 */
const SEEK_SCRATCH = Buffer.allocUnsafeSlow(SEEK_CHUNK);
const CRC_FIELD = BATCH_FIELD.crc;
const NO_PARTITION_LEADER_EPOCH = -1;

export interface SegmentOpenOptions {
  /** Open for reading only (`klog dump-log`, inactive segments): appends and truncation are refused. */
  readonly readOnly?: boolean;
  /**
   * The base offset of the segment after this one in its log: this segment's last
   * offset must be below it (a check on `baseOffset`, which the CRC does not cover).
   */
  readonly nextBaseOffset?: number | undefined;
  /**
   * For a read-only segment: open its file only when it is read, through this cache of
   * open files, instead of holding a descriptor for as long as the segment is open.
   */
  readonly cache?: SegmentFileCache;
}

export class LogSegment {
  /** The segment file's bytes: its descriptor (pinned, or the cache's), size, reads and appends. */
  readonly #file: FileRecords;
  #nextBaseOffset: number | undefined;
  /** The sparse offset and time index (Kafka's `.index` / `.timeindex`), made or loaded on first need. */
  #sparse: SegmentIndex | undefined;
  /** The active segment's index files, written as its entries are made (`startIndexFiles`). */
  #activeFiles: ActiveIndexFiles | undefined;
  /** Why this segment's index files were rebuilt rather than loaded, if they were. */
  #indexRebuiltBecause: string | undefined;

  private constructor(
    readonly baseOffset: number,
    file: FileRecords,
    nextBaseOffset: number | undefined,
  ) {
    this.#file = file;
    this.#nextBaseOffset = nextBaseOffset;
  }

  get path(): string {
    return this.#file.path;
  }

  /** Create an empty segment; fails if the file already exists (a roll never overwrites). */
  static create(dir: string, baseOffset: number): LogSegment {
    const segment = new LogSegment(
      baseOffset,
      FileRecords.create(join(dir, segmentFileName(baseOffset))),
      undefined,
    );
    segment.#sparse = new SegmentIndex(baseOffset);
    try {
      segment.startIndexFiles();
    } catch (error) {
      // Not half a segment: a retry of the roll must find the name free.
      segment.discard();
      throw error;
    }
    return segment;
  }

  /**
   * Open an existing segment file. It must be a regular file: a symbolic link, a FIFO
   * or a device is refused (StorageError `NOT_A_SEGMENT`), never followed.
   */
  static open(path: string, baseOffset: number, options: SegmentOpenOptions = {}): LogSegment {
    const file = FileRecords.open(path, { readOnly: options.readOnly === true, cache: options.cache });
    return new LogSegment(baseOffset, file, options.nextBaseOffset);
  }

  get size(): number {
    return this.#file.size;
  }

  /** The base offset of the next segment of the log, if this one is not the last. */
  get nextBaseOffset(): number | undefined {
    return this.#nextBaseOffset;
  }

  /**
   * This segment stops being the active one (a roll): it is fsynced, its writable
   * descriptor closed, and from now on it is read through `cache`.
   */
  seal(nextBaseOffset: number, cache: SegmentFileCache): void {
    this.#file.checkWritable();
    this.flush();
    this.#writeIndexFiles();
    this.#releaseActiveFiles();
    this.#file.seal(cache);
    this.#nextBaseOffset = nextBaseOffset;
  }

  /**
   * Append one batch (already validated) whose last record has offset `lastOffset`.
   * `head`, when given, replaces the batch's first bytes on disk (the offsets the log
   * assigns), so the caller's buffer is never written to.
   */
  append(batch: Uint8Array, lastOffset: number, head?: Uint8Array, maxTimestamp = -1): void {
    const position = this.#file.size;
    // A failed write is cut off again by FileRecords: nothing of the batch is left.
    this.#file.append(batch, head);
    this.#sparse?.onBatch(position, batch.length, lastOffset, maxTimestamp);
    // After the batch is written: an entry in the file never points past the data. A failure here (a full
    // disk) must not fail the append, whose batch is whole in the segment: the active segment's index files
    // are never read back (rebuilt from the segment on open), the entries stay pending and are written at
    // the next append, or whole at the roll or the close, which do fail if the disk is still full.
    try {
      this.#activeFiles?.afterAppend();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
    }
  }

  /**
   * Undo the last append, whose batch started at `position` (its fsync failed): the file cut back, the
   * index made again from what is left. The index files are started again if the disk lets them be.
   */
  undoAppend(position: number): void {
    this.truncateTo(position);
    try {
      this.startIndexFiles();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      // Without its files the index still lives in memory; on open it is rebuilt from the segment anyway.
    }
  }

  /** fsync: the data is on disk when this returns. */
  flush(): void {
    this.#file.flush();
  }

  /** Read `length` bytes at `position` (fewer only at the end of the file). */
  read(position: number, length: number): Buffer {
    return this.#file.read(position, length);
  }

  /**
   * Every batch header in the file, in order, reading only header bytes (the
   * records are skipped, not read). Checks structure only: each header decodes and
   * its batch lies inside the file; stops with a DecodeError naming the file and
   * byte at the first that does not. `from` must be the position of a batch (0, or
   * one this scan or the index gave).
   */
  *headers(from = 0): Generator<HeaderAt> {
    yield* this.#headersIn(Buffer.allocUnsafe(this.#chunkFrom(from, SCAN_CHUNK)), from);
  }

  /** A scan buffer's size: at most `max`, never larger than the file past `from` (a header that does not fit is reported truncated, not read past). */
  #chunkFrom(from: number, max: number): number {
    return Math.max(0, Math.min(max, this.#file.size - from));
  }

  /** The header scan of `headers`, from `from`, reading into `buffer` (refilled in place: a header is copied out before the next read). */
  *#headersIn(buffer: Buffer, from: number): Generator<HeaderAt> {
    const chunkBytes = buffer.length;
    let chunk = buffer.subarray(0, 0);
    let chunkStart = 0;
    let chunkOptions = storedBatchOptions(0);
    let size = 0;
    let position = from;
    while (position < this.#file.size) {
      if (position + RECORD_BATCH_OVERHEAD > chunkStart + chunk.length) {
        chunkStart = position;
        const want = size > SCAN_HEADER_ONLY_AFTER ? RECORD_BATCH_OVERHEAD : chunkBytes;
        chunk = buffer.subarray(0, this.#file.readInto(buffer, position, want));
        chunkOptions = storedBatchOptions(chunkStart);
      }
      const header = this.#wholeHeader(chunk, position - chunkStart, chunkOptions);
      size = batchSize(header);
      yield { position, header };
      position += size;
    }
  }

  /**
   * Every batch in the file checked as recovery and `klog dump-log` need it (see
   * `inspectSegment` in segment-inspection.ts): whole batches with their bytes, CRC and
   * problems, then a `stop` entry where no whole batch could be found.
   */
  inspect(from = 0, expectFrom = this.baseOffset): Generator<InspectionEntry> {
    return inspectSegment(this, from, expectFrom);
  }

  /**
   * The batch at `position` (a position the index gave), its bytes checked against
   * its CRC. A DecodeError names the file and the byte.
   */
  readCheckedBatchAt(position: number): { header: RecordBatchHeader; bytes: Buffer } {
    const header = this.#wholeHeader(
      this.read(position, RECORD_BATCH_OVERHEAD),
      0,
      storedBatchOptions(position),
    );
    const bytes = this.read(position, batchSize(header));
    const computed = computeBatchCrc(bytes, 0, header);
    if (computed !== header.crc) {
      throw crcMismatch(header.crc, computed, position + CRC_FIELD, this.path);
    }
    return { header, bytes };
  }

  /**
   * Position and size of each valid batch from the one holding `offset` (or that
   * would hold it) to the end of the segment; then throws the DecodeError of the
   * first batch past them that is not valid, if there is one. The scan starts at the
   * offset index entry at or below `offset` (as a fetch does), reads headers only, and
   * checks what the CRC does not cover: the first batch must end at the offset its
   * index entry names (or, from the start of the segment, begin at or after its base
   * offset), and each batch must begin after the one before it ends. A batch is given
   * out only once the next one agrees with it: when two neighbours disagree, either
   * baseOffset may be the wrong one, so neither is. The bytes of each batch are checked
   * against its CRC by `readCheckedBatchAt` when read.
   */
  *checkedPositionsFrom(offset: number): Generator<{ readonly position: number; readonly size: number }> {
    const entry = this.sparseIndex().entryAtOrBelow(offset);
    let held: { readonly position: number; readonly size: number; readonly lastOffset: number } | undefined;
    let nextOffset = this.baseOffset;
    let error: DecodeError | undefined;
    try {
      for (const { position, header } of this.headers(entry?.position ?? 0)) {
        const misplaced =
          entry !== undefined && position === entry.position
            ? this.#againstIndexEntry(header, position, entry.offset)
            : this.misplacement(header, position, nextOffset);
        if (misplaced !== undefined) {
          if (misplaced.neighbour) held = undefined;
          error = misplaced.error;
          break;
        }
        if (held !== undefined && held.lastOffset >= offset) yield held;
        nextOffset = lastOffsetOf(header) + 1;
        held = { position, size: batchSize(header), lastOffset: nextOffset - 1 };
      }
    } catch (thrown) {
      if (!(thrown instanceof DecodeError)) throw thrown;
      error = thrown;
    }
    if (held !== undefined && held.lastOffset >= offset) yield held;
    if (error !== undefined) throw error;
  }

  /** The batch an offset index entry points at must end at the entry's offset; then the checks of `misplacement`. */
  #againstIndexEntry(
    header: RecordBatchHeader,
    position: number,
    indexedOffset: number,
  ): { readonly error: DecodeError; readonly neighbour: boolean } | undefined {
    const last = lastOffsetOf(header);
    if (last !== indexedOffset) {
      const error = new DecodeError(
        'baseOffset',
        position,
        `the batch ends at offset ${last}, but the offset index says the batch at byte ${position} ends at ${indexedOffset}`,
        this.path,
      );
      return { error, neighbour: false };
    }
    return this.misplacement(header, position, header.baseOffset);
  }

  /** Every batch, fully decoded and CRC-checked; a DecodeError names the file and the byte. */
  *batches(): Generator<BatchAt> {
    for (const { position } of this.checkedPositionsFrom(this.baseOffset)) {
      const { bytes } = this.readCheckedBatchAt(position);
      try {
        yield {
          position,
          batch: decodeRecordBatch(bytes, 0, { ...storedBatchOptions(position), verifyCrc: false }),
        };
      } catch (error) {
        throw namingFile(error, this.path);
      }
    }
  }

  /**
   * Kafka's `LogSegment.translateOffset`: the position of the first batch whose last
   * offset is `offset` or more, found through the sparse index and a short header scan
   * (structure checked, no CRC); undefined when no batch of this segment reaches it.
   */
  translateOffset(offset: number): number | undefined {
    // Index entries are about index.interval.bytes apart: a small first read usually reaches the batch.
    const from = this.sparseIndex().lookup(offset);
    for (const { position, header } of this.#headersIn(
      SEEK_SCRATCH.subarray(0, this.#chunkFrom(from, SEEK_CHUNK)),
      from,
    )) {
      if (lastOffsetOf(header) >= offset) return position;
    }
    return undefined;
  }

  /**
   * Kafka's `LogSegment.read(startOffset, maxSize, maxPosition, minOneMessage = true)`:
   * whole batches from the one holding `startOffset`, up to `maxBytes` but at least one,
   * as one `pread` from where `translateOffset` puts it, cut after the last whole batch.
   * Raw bytes, as a Fetch serves them: framing checked, no CRC. Empty when no batch of
   * this segment holds `startOffset` or any later offset.
   */
  readRaw(startOffset: number, maxBytes: number, allocate?: ReadAllocator): Buffer {
    const start = this.translateOffset(startOffset);
    if (start === undefined) return Buffer.alloc(0);
    const bytes = this.#file.read(start, Math.max(maxBytes, LOG_OVERHEAD), allocate);
    let end = 0;
    while (end + LOG_OVERHEAD <= bytes.length) {
      const size = LOG_OVERHEAD + bytes.readInt32BE(end + BATCH_FIELD.batchLength);
      if (size < RECORD_BATCH_OVERHEAD || end + size > bytes.length) break;
      end += size;
    }
    if (end > 0) return bytes.subarray(0, end);
    // The first batch alone is larger than maxBytes: served whole, as Kafka does.
    const size = this.wholeBatchSize(this.read(start, RECORD_BATCH_OVERHEAD), 0, storedBatchOptions(start));
    return this.#file.read(start, size, allocate);
  }

  /** The largest timestamp the segment's batches hold (-1 for none), from its time index. */
  maxTimestamp(): number {
    return this.sparseIndex().maxTimestamp;
  }

  /** Batch headers from where a batch with a timestamp of `timestampMs` or more may first be (Kafka's `findOffsetByTimestamp`). */
  headersFromTimestamp(timestampMs: number): Generator<HeaderAt> {
    const index = this.sparseIndex();
    return this.headers(index.lookup(index.lookupTime(timestampMs)));
  }

  /** Where the last batch of the segment may start: the last index entry's position. */
  lastIndexedPosition(): number {
    return this.sparseIndex().lastEntryPosition();
  }

  /**
   * The size of the batch at `at` in `bytes` (which start at file position `base`): its
   * framing, and inside the file. For the modules that scan a segment; a DecodeError names the file.
   */
  wholeBatchSize(bytes: Uint8Array, at: number, options: DecodeOptions & { readonly base: number }): number {
    let size: number;
    try {
      size = decodeBatchFraming(bytes, at, options);
    } catch (error) {
      throw namingFile(error, this.path);
    }
    this.#checkInsideFile(options.base + at, size);
    return size;
  }

  #checkInsideFile(position: number, size: number): void {
    if (position + size > this.#file.size) {
      throw new DecodeError(
        'batchLength',
        position + BATCH_FIELD.batchLength,
        `truncated: batch needs ${size} bytes, the file has ${this.#file.size - position} left`,
        this.path,
      );
    }
  }

  /** Decode the header at `at` in `bytes` (which start at file position `base`) and check the batch is inside the file. */
  #wholeHeader(
    bytes: Uint8Array,
    at: number,
    options: DecodeOptions & { readonly base: number },
  ): RecordBatchHeader {
    const position = options.base + at;
    let header: RecordBatchHeader;
    try {
      header = decodeBatchHeader(bytes, at, options);
    } catch (error) {
      throw namingFile(error, this.path);
    }
    this.#checkInsideFile(position, batchSize(header));
    return header;
  }

  /**
   * What is wrong with a whole batch's fields outside the CRC, given the offset it
   * must not start below. `neighbour` is set when it disagrees with the batch before it.
   */
  misplacement(
    header: RecordBatchHeader,
    position: number,
    nextOffset: number,
  ): { readonly error: DecodeError; readonly neighbour: boolean } | undefined {
    if (header.baseOffset < nextOffset) {
      const first = nextOffset === this.baseOffset;
      const where = first
        ? `the segment's base offset ${this.baseOffset}`
        : `${nextOffset}, where the previous batch ended`;
      const error = new DecodeError(
        'baseOffset',
        position,
        `${header.baseOffset} is below ${where}`,
        this.path,
      );
      return { error, neighbour: !first };
    }
    const last = lastOffsetOf(header);
    if (this.#nextBaseOffset !== undefined && last >= this.#nextBaseOffset) {
      const error = new DecodeError(
        'baseOffset',
        position,
        `the batch ends at offset ${last}, not below the next segment's base offset ${this.#nextBaseOffset}`,
        this.path,
      );
      return { error, neighbour: false };
    }
    if (header.partitionLeaderEpoch < NO_PARTITION_LEADER_EPOCH) {
      const error = new DecodeError(
        'partitionLeaderEpoch',
        position + BATCH_FIELD.partitionLeaderEpoch,
        `${header.partitionLeaderEpoch} is below -1 (no epoch)`,
        this.path,
      );
      return { error, neighbour: false };
    }
    return undefined;
  }

  /** Cut the file to `size` bytes (recovery of a torn tail). */
  truncateTo(size: number): void {
    this.#file.truncateTo(size);
    // Rebuilt from what is left (and the files written anew) by `startIndexFiles`.
    this.#sparse = undefined;
    this.#releaseActiveFiles();
  }

  /**
   * Close the segment's file (a pinned descriptor, or the cache's). Reads and appends are
   * refused after. `writeIndex`: the log closes its active segment cleanly, so its index
   * files are written, trimmed.
   */
  close(options: { readonly writeIndex?: boolean } = {}): void {
    if (this.#file.closed) return;
    try {
      // The active segment's index files, trimmed to their entries, as Kafka's close leaves them.
      if (this.#file.writable && options.writeIndex === true) this.#writeIndexFiles();
    } finally {
      this.#releaseActiveFiles();
    }
    this.#file.close();
  }

  /**
   * Close and remove a segment that was created and never written (a roll that could not finish): its
   * file and its index files, so the directory is as it was before the roll began.
   */
  discard(): void {
    this.close();
    for (const path of [this.path, this.indexPaths.offsets, this.indexPaths.times]) {
      try {
        io('remove unused segment file', path, () => unlinkSync(path));
      } catch (error) {
        // Left behind, an empty segment is harmless: the next open takes it as the (empty) active one.
        if (!(error instanceof StorageError)) throw error;
      }
    }
  }

  /** `<base>.index` and `<base>.timeindex`, beside the segment. */
  get indexPaths(): { readonly offsets: string; readonly times: string } {
    return indexPathsOf(this.path);
  }

  /** Why the index files were rebuilt from the segment rather than loaded (missing, or failing a check). */
  get indexRebuiltBecause(): string | undefined {
    this.sparseIndex();
    return this.#indexRebuiltBecause;
  }

  /**
   * The segment's sparse index. The active segment's is made by a header scan of it
   * (its files may hold a crash's leftovers); an inactive segment's is loaded from its
   * files, or, when they are missing or fail the sanity check, rebuilt from a header
   * scan and written again (unless the segment was opened alone, read only).
   */
  sparseIndex(): SegmentIndex {
    if (this.#sparse !== undefined) return this.#sparse;
    if (!this.#file.writable) {
      const loaded = readIndexFiles(this.indexPaths, this.baseOffset, this.#file.size, this.#nextBaseOffset);
      if (typeof loaded !== 'string') {
        this.#sparse = loaded;
        return loaded;
      }
      this.#indexRebuiltBecause = loaded;
    }
    const index = new SegmentIndex(this.baseOffset);
    try {
      for (const { position, header } of this.headers()) {
        index.onBatch(position, batchSize(header), lastOffsetOf(header), header.maxTimestamp);
      }
    } catch (error) {
      // A damaged batch ends the index: reads past it report the damage, as before.
      if (!(error instanceof DecodeError)) throw error;
    }
    if (!this.#file.writable) {
      index.finish();
      if (this.#file.cached) writeIndexFiles(this.indexPaths, index);
    }
    this.#sparse = index;
    return index;
  }

  /**
   * This segment is (again) the active one: its index made from its bytes (a header
   * scan, unless it was just created), and its index files emptied and written with
   * those entries, preallocated; from now on each append's entries reach them as they
   * are made (`ActiveIndexFiles`). Called by `create`, and by `Log.open` after recovery,
   * so what a crash left in the files is never read.
   */
  startIndexFiles(): void {
    this.#file.checkWritable();
    this.#releaseActiveFiles();
    this.#activeFiles = ActiveIndexFiles.start(this.indexPaths, this.sparseIndex());
  }

  #releaseActiveFiles(): void {
    this.#activeFiles?.close();
    this.#activeFiles = undefined;
  }

  /** Write the active segment's index files, trimmed to their entries, and fsync them. */
  #writeIndexFiles(): void {
    const index = this.sparseIndex();
    index.finish();
    writeIndexFiles(this.indexPaths, index);
  }
}
