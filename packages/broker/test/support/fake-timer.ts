import type { CoordinatorTimer } from '../../src/group/timer.js';

/** A clock that moves only when told: `advance(ms)` fires, in deadline order, every timer due. */
export class FakeTimer implements CoordinatorTimer {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<string, { at: number; seq: number; fire: () => void }>();

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  schedule(key: string, delayMs: number, fire: () => void): void {
    this.#timers.set(key, { at: this.#now + Math.max(0, delayMs), seq: this.#seq++, fire });
  }

  cancel(key: string): void {
    this.#timers.delete(key);
  }

  isScheduled(key: string): boolean {
    return this.#timers.has(key);
  }

  cancelAll(): void {
    this.#timers.clear();
  }

  /** The deadline of `key`, or undefined. */
  deadline(key: string): number | undefined {
    return this.#timers.get(key)?.at;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: [string, { at: number; seq: number; fire: () => void }] | undefined;
      for (const e of this.#timers) {
        if (e[1].at > end) continue;
        if (next === undefined || e[1].at < next[1].at || (e[1].at === next[1].at && e[1].seq < next[1].seq))
          next = e;
      }
      if (next === undefined) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      next[1].fire();
    }
    this.#now = end;
  }
}
