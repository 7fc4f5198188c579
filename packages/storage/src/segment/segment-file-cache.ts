import { closeSync } from 'node:fs';
import { OPEN_READ, openRegular } from '../io/io.js';

/**
 * Read-only file descriptors of inactive segments, opened on first read and kept
 * for at most `capacity` files, least recently used closed first. A log with 25,000
 * segments then holds a bounded number of open files (Kafka keeps every segment open
 * and asks for a high `ulimit -n`; klog does not need one). One cache can serve every
 * log of a `LogManager`, so the bound holds for the whole data directory.
 *
 * A descriptor is only valid until the next `fd()` call for another path: callers
 * ask again for each read, never keep one across a `yield`.
 */
export class SegmentFileCache {
  /** Insertion order is recency: the first entry is the least recently used. */
  readonly #open = new Map<string, number>();

  constructor(readonly capacity = 64) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`the open segment file cache needs a capacity >= 1, got ${capacity}`);
    }
  }

  /** A read-only descriptor of `path` (a regular file, never through a symbolic link). */
  fd(path: string): number {
    const cached = this.#open.get(path);
    if (cached !== undefined) {
      this.#open.delete(path);
      this.#open.set(path, cached);
      return cached;
    }
    while (this.#open.size >= this.capacity) {
      const [oldest, fd] = this.#open.entries().next().value as [string, number];
      this.#open.delete(oldest);
      closeSync(fd);
    }
    const fd = openRegular(path, OPEN_READ, 'segment file');
    this.#open.set(path, fd);
    return fd;
  }

  /** Close `path` if it is open (its segment was closed, replaced or deleted). */
  forget(path: string): void {
    const fd = this.#open.get(path);
    if (fd === undefined) return;
    this.#open.delete(path);
    closeSync(fd);
  }

  /** Files open now. */
  get size(): number {
    return this.#open.size;
  }

  closeAll(): void {
    for (const fd of this.#open.values()) closeSync(fd);
    this.#open.clear();
  }
}
