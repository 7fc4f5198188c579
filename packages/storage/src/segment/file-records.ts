import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  readSync,
  statSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { StorageError } from '../errors.js';
import {
  CREATE_NEW,
  checkRegularFile,
  io,
  ioError,
  OPEN_READ,
  OPEN_READ_WRITE,
  openRegular,
} from '../io/io.js';
import type { SegmentFileCache } from './segment-file-cache.js';

/**
 * Gives the memory a read goes into: a Buffer of exactly `size` bytes, which the caller then owns.
 * The default is a fresh one; a broker serving Fetch passes one from memory it reuses, since a fresh
 * megabyte per partition read costs more in page faults than the read itself (issue 25's fetch profile).
 */
export type ReadAllocator = (size: number) => Buffer;

/**
 * The bytes of one segment file on disk (Kafka's `FileRecords`): its descriptor, its
 * size, positioned reads and appends, fsync and truncation. It knows nothing of batches:
 * `LogSegment` reads them through it. I/O is synchronous on purpose: an append is one
 * `write` that no other append can interleave with.
 *
 * The descriptor is either pinned (the active segment's, or a file opened alone) or taken
 * from a `SegmentFileCache` on each read (an inactive segment's), so a log of many
 * segments holds a bounded number of open files.
 */
export class FileRecords {
  /** A descriptor held for the file's whole life; -1 if none (reads go through the cache). */
  #pinned: number;
  #cache: SegmentFileCache | undefined;
  #size: number;
  #writable: boolean;
  #closed = false;

  private constructor(
    readonly path: string,
    pinned: number,
    cache: SegmentFileCache | undefined,
    size: number,
    writable: boolean,
  ) {
    this.#pinned = pinned;
    this.#cache = cache;
    this.#size = size;
    this.#writable = writable;
  }

  /** Create an empty file, open for appends; fails if it already exists (a roll never overwrites). */
  static create(path: string): FileRecords {
    return new FileRecords(path, openRegular(path, CREATE_NEW, 'new segment file'), undefined, 0, true);
  }

  /**
   * Open an existing file. It must be a regular file: a symbolic link, a FIFO or a device
   * is refused (StorageError `NOT_A_SEGMENT`), never followed. Read-only with a cache: the
   * file is opened by the cache on first read; only its size is looked at now.
   */
  static open(
    path: string,
    options: { readonly readOnly: boolean; readonly cache?: SegmentFileCache | undefined },
  ): FileRecords {
    if (options.readOnly && options.cache !== undefined) {
      checkRegularFile(path, 'segment file');
      const size = io('look at segment file', path, () => statSync(path).size);
      return new FileRecords(path, -1, options.cache, size, false);
    }
    // O_NOFOLLOW and O_NONBLOCK (io.ts): a symlink is refused, and a FIFO opens at once and is refused as not a regular file.
    const fd = openRegular(path, options.readOnly ? OPEN_READ : OPEN_READ_WRITE, 'segment file');
    try {
      const size = io('look at segment file', path, () => fstatSync(fd).size);
      return new FileRecords(path, fd, undefined, size, !options.readOnly);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  get size(): number {
    return this.#size;
  }

  get writable(): boolean {
    return this.#writable;
  }

  /** Whether reads go through a cache of descriptors (an inactive segment of a log). */
  get cached(): boolean {
    return this.#cache !== undefined;
  }

  /** The descriptor to read or write through now (see SegmentFileCache: never keep it across a yield). */
  #fd(): number {
    if (this.#closed) throw new StorageError('CLOSED', `segment ${this.path} is closed`, { path: this.path });
    return this.#pinned !== -1 ? this.#pinned : this.#cache!.fd(this.path);
  }

  /**
   * Read `length` bytes at `position` (fewer only at the end of the file), into memory `allocate` gives
   * for exactly the bytes there are (a broker passes memory it reuses: see `ReadAllocator`).
   */
  read(position: number, length: number, allocate: ReadAllocator = Buffer.allocUnsafe): Buffer {
    const buf = allocate(Math.max(0, Math.min(length, this.#size - position)));
    const done = this.readInto(buf, position, buf.length);
    return done === buf.length ? buf : buf.subarray(0, done);
  }

  /** Read up to `length` bytes at `position` into the start of `buf`; returns how many were read. */
  readInto(buf: Buffer, position: number, length: number): number {
    const want = Math.max(0, Math.min(length, buf.length, this.#size - position));
    const fd = this.#fd();
    let done = 0;
    try {
      while (done < want) {
        const n = readSync(fd, buf, done, want - done, position + done);
        if (n === 0) break;
        done += n;
      }
    } catch (error) {
      throw ioError('read segment', this.path, error);
    }
    return done;
  }

  /**
   * Append `bytes` at the end of the file. `head`, when given, replaces their first bytes
   * on disk, so the caller's buffer is never written to. A short write (disk full, I/O
   * error) is cut off again: never half a batch behind the last good one.
   */
  append(bytes: Uint8Array, head?: Uint8Array): void {
    this.checkWritable();
    const fd = this.#pinned;
    let written = 0;
    try {
      if (head !== undefined) written = writevSync(fd, [head, bytes.subarray(head.length)], this.#size);
      while (written < bytes.length) {
        const source = head !== undefined && written < head.length ? head : bytes;
        written += writeSync(fd, source, written, source.length - written, this.#size + written);
      }
    } catch (error) {
      if (written > 0) ftruncateSync(fd, this.#size);
      throw ioError('append to segment', this.path, error);
    }
    this.#size += bytes.length;
  }

  /** fsync: the data is on disk when this returns. */
  flush(): void {
    const fd = this.#fd();
    io('fsync segment', this.path, () => fsyncSync(fd));
  }

  /** Cut the file to `size` bytes (recovery of a torn tail). */
  truncateTo(size: number): void {
    this.checkWritable();
    const fd = this.#pinned;
    io('truncate segment', this.path, () => ftruncateSync(fd, size));
    this.#size = size;
  }

  /** No more appends: the writable descriptor is closed, and reads go through `cache` from now on. */
  seal(cache: SegmentFileCache): void {
    this.checkWritable();
    closeSync(this.#pinned);
    this.#pinned = -1;
    this.#cache = cache;
    this.#writable = false;
  }

  /** Close the file (a pinned descriptor, or the cache's); reads and appends are refused after. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pinned !== -1) closeSync(this.#pinned);
    this.#pinned = -1;
    this.#cache?.forget(this.path);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Refuse a write to a closed or read-only file. */
  checkWritable(): void {
    this.#fd();
    if (!this.#writable) {
      throw new StorageError('INVALID_REQUEST', `segment ${this.path} is open for reading only`, {
        path: this.path,
      });
    }
  }
}
