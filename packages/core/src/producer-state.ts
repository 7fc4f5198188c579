import type { ProducerId } from './numbers.js';
import { ProducerStateEntry } from './producer-state-entry.js';

/**
 * Every producer the partition has heard from: producer id → entry. The in-memory
 * half of Kafka's `ProducerStateManager` (klog has no `.snapshot` files; see
 * `rebuildProducerState` in @klog/storage for how it survives a restart).
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

  /** Producer ids with state, ascending. */
  producerIds(): ProducerId[] {
    return [...this.#entries.keys()].sort((a, b) => a - b);
  }

  get size(): number {
    return this.#entries.size;
  }
}
