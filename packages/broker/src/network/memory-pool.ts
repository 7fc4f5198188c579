/**
 * One budget of bytes for every connection's requests and responses (Kafka's `SimpleMemoryPool`, sized by
 * `queued.max.request.bytes`): a connection reserves a request's whole frame as soon as its size is read,
 * before the frame's bytes are buffered, and a response's bytes before they are written; each goes back
 * once the request is handled, or once the kernel took the response's bytes. A connection that cannot
 * reserve stops reading its socket and waits its turn (first come, first served), so that memory stays
 * bounded whatever the clients do, and TCP holds the rest. As in Kafka's pool, a reservation larger than
 * the whole budget is granted when nothing else is held, so no frame waits for ever.
 */
export class MemoryPool {
  #used = 0;
  #peak = 0;
  readonly #waiting: (() => boolean)[] = [];

  constructor(readonly capacity: number) {}

  get used(): number {
    return this.#used;
  }

  /** The most ever held at once (for the bench and the tests). */
  get peak(): number {
    return this.#peak;
  }

  /** What may still be reserved now. */
  get available(): number {
    return Math.max(0, this.capacity - this.#used);
  }

  /** Reserves `bytes` if they fit (or nothing is held), unless others wait before: true when reserved. */
  tryReserve(bytes: number): boolean {
    if (this.#waiting.length > 0 || !this.#fits(bytes)) return false;
    this.#take(bytes);
    return true;
  }

  /** Reserves `bytes` whatever is held: for a response already built, which must go out. */
  reserve(bytes: number): void {
    this.#take(bytes);
  }

  release(bytes: number): void {
    this.#used -= bytes;
    if (this.#used < 0) throw new Error(`memory pool released ${-this.#used} bytes more than it reserved`);
    // In order: each waiter retries; the first that still cannot reserve keeps its place and the rest wait.
    while (this.#waiting.length > 0) {
      if (!this.#waiting[0]!()) return;
      this.#waiting.shift();
    }
  }

  /** Waits for `bytes`: `granted` runs once they are reserved. Returns a function that gives up the place. */
  waitFor(bytes: number, granted: () => void): () => void {
    const retry = () => {
      if (!this.#fits(bytes)) return false;
      this.#take(bytes);
      // Not from inside release(): the connection resumes, and may release again, on its own turn.
      queueMicrotask(granted);
      return true;
    };
    this.#waiting.push(retry);
    return () => {
      const i = this.#waiting.indexOf(retry);
      if (i !== -1) this.#waiting.splice(i, 1);
      // The one at the head may have been held back by this one.
      if (i === 0) this.release(0);
    };
  }

  #fits(bytes: number): boolean {
    return this.#used === 0 || this.#used + bytes <= this.capacity;
  }

  #take(bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
  }
}
