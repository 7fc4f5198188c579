/**
 * Fetches waiting for data: a Fetch that finds fewer than its MinBytes waits up to its MaxWaitMs for an
 * append to one of its partitions (Kafka's `DelayedFetch` in the fetch purgatory), instead of answering at
 * once and having the client ask again in a busy loop. Its connection waits with it: a connection handles
 * one request at a time.
 */
export class FetchPurgatory {
  readonly #waiting = new Map<string, Set<() => void>>();
  #closed = false;

  static key(topic: string, partition: number): string {
    return `${partition}:${topic}`;
  }

  /**
   * Resolves at the first append to one of `keys`, after `ms`, when the broker shuts down, or when `signal`
   * aborts (the connection that asked has gone).
   */
  wait(keys: readonly string[], ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || keys.length === 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        for (const k of keys) {
          const set = this.#waiting.get(k);
          set?.delete(done);
          if (set?.size === 0) this.#waiting.delete(k);
        }
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done);
      for (const k of keys) {
        let set = this.#waiting.get(k);
        if (set === undefined) {
          set = new Set();
          this.#waiting.set(k, set);
        }
        set.add(done);
      }
    });
  }

  /** Records were appended to this partition: wake every fetch waiting on it. */
  notify(key: string): void {
    const set = this.#waiting.get(key);
    if (set === undefined) return;
    for (const done of [...set]) done();
  }

  /** Wakes every waiting fetch now, and makes later waits return at once (shutdown). */
  close(): void {
    this.#closed = true;
    for (const set of [...this.#waiting.values()]) for (const done of [...set]) done();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Fetches waiting now (for tests and the shutdown log). */
  get size(): number {
    const all = new Set<() => void>();
    for (const set of this.#waiting.values()) for (const d of set) all.add(d);
    return all.size;
  }
}
