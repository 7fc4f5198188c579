import type { ReadAllocator } from '@klog/storage';

/** Reads smaller than this take Node's ordinary memory (its pooled slab under 4 KiB): no fault to save. */
const POOLED_MIN_BYTES = 64 * 1024;
/** Larger reads (a fetch past 8 MiB from one partition) are rare enough to take fresh memory. */
const POOLED_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The memory Fetch reads records into, used again once a response is sent. Kafka sends a fetch's records
 * straight from the file with `sendfile` (`FileRecords.writeTo`); Node cannot, so the records are read into
 * memory first, and a fresh megabyte per partition read cost more than the read itself: the kernel faults
 * and zeroes every page of it (issue 25's fetch profile: 4 of 7 ms per MB, against 0.05 into reused memory).
 *
 * Buffers come in power-of-two sizes; `take` lends a view of one exactly as long as asked, and `give`,
 * called with a chunk once the socket has written it, takes its buffer back. A buffer never given back
 * (a response dropped with its connection) is only garbage: the pool holds no reference to what is lent.
 * At most `retainBytes` wait in the pool; past that, returned buffers are let go.
 */
export class ReadBuffers {
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** What is lent now, so that `give` takes back only the pool's own buffers, each once. */
  readonly #lent = new WeakSet<ArrayBuffer>();
  #freeBytes = 0;
  #taken = 0;
  #reused = 0;

  constructor(readonly retainBytes: number = 32 * 1024 * 1024) {}

  /** A `ReadAllocator` for `LogSegment.readRaw`. */
  readonly take: ReadAllocator = (size) => {
    if (size < POOLED_MIN_BYTES || size > POOLED_MAX_BYTES) return Buffer.allocUnsafe(size);
    const capacity = 2 ** Math.ceil(Math.log2(size));
    const free = this.#free.get(capacity);
    let buffer = free?.pop();
    this.#taken++;
    if (buffer === undefined) buffer = new ArrayBuffer(capacity);
    else {
      this.#freeBytes -= capacity;
      this.#reused++;
    }
    this.#lent.add(buffer);
    return Buffer.from(buffer, 0, size);
  };

  /** Takes back the buffer under `chunk` if the pool lent it and it is not back yet; any other chunk is left alone. */
  give(chunk: Uint8Array): void {
    const buffer = chunk.buffer;
    if (!(buffer instanceof ArrayBuffer) || !this.#lent.delete(buffer)) return;
    if (this.#freeBytes + buffer.byteLength > this.retainBytes) return;
    const free = this.#free.get(buffer.byteLength);
    if (free === undefined) this.#free.set(buffer.byteLength, [buffer]);
    else free.push(buffer);
    this.#freeBytes += buffer.byteLength;
  }

  /** Bytes waiting in the pool to be lent again. */
  get freeBytes(): number {
    return this.#freeBytes;
  }

  /** Reads the pool served (those of pooled sizes), and how many of them went into memory used before. */
  get counts(): { readonly taken: number; readonly reused: number } {
    return { taken: this.#taken, reused: this.#reused };
  }
}
