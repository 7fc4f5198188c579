import type { ProducerId } from './numbers.js';
import { ProducerStateEntry } from './producer-state-entry.js';

/**
 * Every producer the partition has heard from: producer id → entry. The in-memory
 * half of Kafka's `ProducerStateManager` (see @klog/storage for how it survives a
 * restart: a rebuild from the active segment, or Kafka's `.snapshot` files).
 */
export class ProducerState {
  readonly #entries = new Map<ProducerId, ProducerStateEntry>();

  /** The entry for `producerId`, created empty on first use. */
  entry(producerId: ProducerId): ProducerStateEntry {
    let entry = this.#entries.get(producerId);
    if (entry === undefined) {
      entry = new ProducerStateEntry(producerId);
      this.#entries.set(producerId, entry);
    }
    return entry;
  }

  /** The entry for `producerId` if the partition has one. */
  get(producerId: ProducerId): ProducerStateEntry | undefined {
    return this.#entries.get(producerId);
  }

  /** Store an entry after a successful append (Kafka's `ProducerStateManager.update`). */
  update(entry: ProducerStateEntry): void {
    this.#entries.set(entry.producerId, entry);
  }

  /**
   * Kafka's `removeExpiredProducers` (`producer.id.expiration.ms`): forget every
   * producer whose last batch's timestamp is `expirationMs` or more before `nowMs`.
   * Returns the ids removed, ascending.
   */
  removeExpired(nowMs: number, expirationMs: number): ProducerId[] {
    const removed: ProducerId[] = [];
    for (const [id, entry] of this.#entries) {
      if (nowMs - entry.lastTimestamp >= expirationMs) removed.push(id);
    }
    for (const id of removed) this.#entries.delete(id);
    return removed.sort((a, b) => a - b);
  }

  /** Producer ids with state, ascending. */
  producerIds(): ProducerId[] {
    return [...this.#entries.keys()].sort((a, b) => a - b);
  }

  get size(): number {
    return this.#entries.size;
  }
}
