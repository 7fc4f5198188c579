import { hash } from 'node:crypto';

/** Bytes of a key's hash in the map: MD5, as Kafka's cleaner uses by default. */
const HASH_BYTES = 16;
/** One slot: the key's hash, then the offset + 1 (0 marks an empty slot) as a double. */
const SLOT_BYTES = HASH_BYTES + 8;
/** Kafka's `log.cleaner.io.buffer.load.factor`: the map counts as full at 90 % of its slots. */
const LOAD_FACTOR = 0.9;

/**
 * Key → latest offset for compaction, in a fixed amount of memory: Kafka's
 * `SkimpyOffsetMap`. Keys are stored by their MD5 hash, not their bytes, so each
 * costs 24 bytes whatever its size; a map that is full ends a cleaning pass and the
 * next pass takes the keys that follow (Kafka's `LogCleaner` does the same with its
 * `log.cleaner.dedupe.buffer.size`). Two keys with the same MD5 would be taken for
 * one; Kafka accepts that risk, and so does klog.
 */
export class OffsetMap {
  readonly #slots: Buffer;
  readonly #capacity: number;
  readonly #view: DataView;
  #size = 0;

  /** A map in `bytes` of memory (at least one slot). */
  constructor(bytes: number) {
    const slots = Math.max(1, Math.floor(bytes / SLOT_BYTES));
    this.#slots = Buffer.alloc(slots * SLOT_BYTES);
    this.#view = new DataView(this.#slots.buffer, this.#slots.byteOffset, this.#slots.length);
    this.#capacity = Math.max(1, Math.floor(slots * LOAD_FACTOR));
  }

  /** Bytes a map needs to hold `keys` keys without counting as full. */
  static bytesFor(keys: number): number {
    return (Math.ceil(keys / LOAD_FACTOR) + 1) * SLOT_BYTES;
  }

  /** How many keys fit before the map counts as full. */
  get capacity(): number {
    return this.#capacity;
  }

  get size(): number {
    return this.#size;
  }

  /** Memory the map holds, in bytes. */
  get bytes(): number {
    return this.#slots.length;
  }

  clear(): void {
    this.#slots.fill(0);
    this.#size = 0;
  }

  /** Record `offset` as the latest for `key` (offsets are put in increasing order). */
  put(key: Uint8Array, offset: number): void {
    const digest = hash('md5', key, 'buffer');
    const slot = this.#find(digest);
    if (this.#view.getFloat64(slot + HASH_BYTES) === 0) {
      if (this.#size >= this.#capacity) throw new RangeError('the offset map is full');
      digest.copy(this.#slots, slot);
      this.#size++;
    }
    this.#view.setFloat64(slot + HASH_BYTES, offset + 1);
  }

  /** The latest offset put for `key`, or -1. */
  get(key: Uint8Array): number {
    const slot = this.#find(hash('md5', key, 'buffer'));
    return this.#view.getFloat64(slot + HASH_BYTES) - 1;
  }

  /** The slot holding `digest`, or the empty slot where it would go (linear probing from its first 4 bytes). */
  #find(digest: Buffer): number {
    const slots = this.#slots.length / SLOT_BYTES;
    let i = digest.readUInt32BE(0) % slots;
    for (;;) {
      const at = i * SLOT_BYTES;
      if (this.#view.getFloat64(at + HASH_BYTES) === 0) return at;
      if (this.#slots.compare(digest, 0, HASH_BYTES, at, at + HASH_BYTES) === 0) return at;
      i = i + 1 === slots ? 0 : i + 1;
    }
  }
}
