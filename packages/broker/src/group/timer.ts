/**
 * The coordinator's clock and timers, keyed as Kafka's `CoordinatorTimer` keys them ("heartbeat-<group>-<member>",
 * "join-<group>"…): scheduling a key again replaces its timer. The group logic sees only this interface, so
 * its tests drive it with a fake clock and no real time passes.
 */
export interface CoordinatorTimer {
  now(): number;
  schedule(key: string, delayMs: number, fire: () => void): void;
  cancel(key: string): void;
  /** Whether `key` is scheduled (tests, and the join logic's "is a delayed join pending"). */
  isScheduled(key: string): boolean;
  /** Cancels every timer (shutdown). */
  cancelAll(): void;
}

/** Timers on Node's event loop; `unref`ed, so a timer never keeps a process alive. */
export class SystemTimer implements CoordinatorTimer {
  readonly #timers = new Map<string, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  schedule(key: string, delayMs: number, fire: () => void): void {
    this.cancel(key);
    const t = setTimeout(
      () => {
        this.#timers.delete(key);
        fire();
      },
      Math.max(0, delayMs),
    );
    t.unref();
    this.#timers.set(key, t);
  }

  cancel(key: string): void {
    const t = this.#timers.get(key);
    if (t === undefined) return;
    clearTimeout(t);
    this.#timers.delete(key);
  }

  isScheduled(key: string): boolean {
    return this.#timers.has(key);
  }

  cancelAll(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  get size(): number {
    return this.#timers.size;
  }
}
