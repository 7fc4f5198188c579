import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DecodeError, StorageError } from './errors.js';
import {
  batchSize,
  type DecodeOptions,
  decodeBatchHeader,
  decodeRecordBatch,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
  type RecordBatchHeader,
} from './record-batch.js';

/**
 * One segment file, `<20-digit base offset>.log`, holding whole batches back to
 * back (Kafka's `LogSegment`, without the `.index` / `.timeindex` files: klog keeps
 * a batch index in memory, built on first read). I/O is synchronous on purpose: an
 * append is one `write` that no other append can interleave with.
 */

export const SEGMENT_SUFFIX = '.log';

export function segmentFileName(baseOffset: number): string {
  return String(baseOffset).padStart(20, '0') + SEGMENT_SUFFIX;
}

/** The base offset in a segment file name, or undefined if the name is not a segment's. */
export function parseSegmentFileName(name: string): number | undefined {
  if (!/^\d{20}\.log$/.test(name)) return undefined;
  const value = Number(name.slice(0, 20));
  return Number.isSafeInteger(value) ? value : undefined;
}

export interface BatchPosition<T> {
  /** Byte position of the batch in its segment file. */
  readonly position: number;
  readonly header: T;
}

/** Bytes read at a time by the header scan while batches are small: many headers share one read. */
const SCAN_CHUNK = 64 * 1024;
/**
 * After a batch larger than this, the scan reads only the next header's 61 bytes:
 * one small read costs less than copying a chunk of record bytes it would skip.
 */
const SCAN_HEADER_ONLY_AFTER = 4 * 1024;

export class LogSegment {
  #fd: number;
  #size: number;
  /** lastOffset and position of each batch, ascending; undefined until first needed. */
  #index: { lastOffsets: number[]; positions: number[] } | undefined;

  private constructor(
    readonly path: string,
    readonly baseOffset: number,
    fd: number,
    size: number,
  ) {
    this.#fd = fd;
    this.#size = size;
  }

  /** Create an empty segment; fails if the file already exists (a roll never overwrites). */
  static create(dir: string, baseOffset: number): LogSegment {
    const path = join(dir, segmentFileName(baseOffset));
    const fd = openSync(path, 'wx+');
    const segment = new LogSegment(path, baseOffset, fd, 0);
    segment.#index = { lastOffsets: [], positions: [] };
    return segment;
  }

  static open(path: string, baseOffset: number): LogSegment {
    const fd = openSync(path, 'r+');
    return new LogSegment(path, baseOffset, fd, fstatSync(fd).size);
  }

  get size(): number {
    return this.#size;
  }

  /** Append one batch (already validated) whose last record has offset `lastOffset`. */
  append(batch: Uint8Array, lastOffset: number): void {
    this.#checkOpen();
    let written = 0;
    try {
      while (written < batch.length) {
        written += writeSync(this.#fd, batch, written, batch.length - written, this.#size + written);
      }
    } catch (error) {
      // A short write (disk full, I/O error) must not leave half a batch behind the last good one.
      if (written > 0) ftruncateSync(this.#fd, this.#size);
      throw error;
    }
    this.#index?.lastOffsets.push(lastOffset);
    this.#index?.positions.push(this.#size);
    this.#size += batch.length;
  }

  /** fsync: the data is on disk when this returns. */
  flush(): void {
    this.#checkOpen();
    fsyncSync(this.#fd);
  }

  /** Read `length` bytes at `position` (fewer only at the end of the file). */
  read(position: number, length: number): Buffer {
    this.#checkOpen();
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.#size - position)));
    const done = this.#readInto(buf, position, buf.length);
    return done === buf.length ? buf : buf.subarray(0, done);
  }

  /** Read up to `length` bytes at `position` into the start of `buf`; returns how many were read. */
  #readInto(buf: Buffer, position: number, length: number): number {
    const want = Math.max(0, Math.min(length, buf.length, this.#size - position));
    let done = 0;
    while (done < want) {
      const n = readSync(this.#fd, buf, done, want - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  /**
   * Every batch header in the file, in order, reading only header bytes (the
   * records are skipped, not read). Stops with a DecodeError, naming the file
   * position, at a header that does not check out or a batch cut short by the end of the file.
   * `from` must be the position of a batch (0, or one this scan or the index gave).
   */
  *headers(options: DecodeOptions = {}, from = 0): Generator<BatchPosition<RecordBatchHeader>> {
    // One buffer for the whole scan, refilled in place: a header is copied out before the next read.
    const buffer = Buffer.allocUnsafe(
      Math.max(RECORD_BATCH_OVERHEAD, Math.min(SCAN_CHUNK, this.#size - from)),
    );
    let chunk = buffer.subarray(0, 0);
    let chunkStart = 0;
    let chunkOptions: DecodeOptions = options;
    let size = 0;
    let position = from;
    while (position < this.#size) {
      if (position + RECORD_BATCH_OVERHEAD > chunkStart + chunk.length) {
        this.#checkOpen();
        chunkStart = position;
        const want = size > SCAN_HEADER_ONLY_AFTER ? RECORD_BATCH_OVERHEAD : SCAN_CHUNK;
        chunk = buffer.subarray(0, this.#readInto(buffer, position, want));
        chunkOptions = { ...options, base: chunkStart };
      }
      const header = decodeBatchHeader(chunk, position - chunkStart, chunkOptions);
      size = batchSize(header);
      if (position + size > this.#size) {
        throw new DecodeError(
          'batchLength',
          position + 8,
          `truncated: batch needs ${size} bytes, the file has ${this.#size - position} left`,
        );
      }
      yield { position, header };
      position += size;
    }
  }

  /** Every batch, fully decoded and CRC-checked. */
  *batches(options: DecodeOptions = {}): Generator<BatchPosition<RecordBatch>> {
    for (const { position, header } of this.headers(options)) {
      const bytes = this.read(position, batchSize(header));
      yield { position, header: decodeRecordBatch(bytes, 0, { ...options, base: position }) };
    }
  }

  /** Position of the first batch whose last offset is >= `offset`, or undefined if none. */
  positionOf(offset: number): number | undefined {
    const index = this.#batchIndex();
    let lo = 0;
    let hi = index.lastOffsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (index.lastOffsets[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return index.positions[lo];
  }

  #batchIndex(): { lastOffsets: number[]; positions: number[] } {
    if (this.#index === undefined) {
      const index = { lastOffsets: [] as number[], positions: [] as number[] };
      for (const { position, header } of this.headers()) {
        index.lastOffsets.push(lastOffsetOf(header));
        index.positions.push(position);
      }
      this.#index = index;
    }
    return this.#index;
  }

  /** Cut the file to `size` bytes (recovery of a torn tail). */
  truncateTo(size: number): void {
    this.#checkOpen();
    ftruncateSync(this.#fd, size);
    this.#size = size;
    this.#index = undefined;
  }

  get isOpen(): boolean {
    return this.#fd !== -1;
  }

  close(): void {
    if (this.#fd === -1) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }

  #checkOpen(): void {
    if (this.#fd === -1) throw new StorageError(`segment ${this.path} is closed`);
  }
}
