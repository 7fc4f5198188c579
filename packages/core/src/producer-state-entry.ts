import type { BatchMetadata } from './batch-metadata.js';
import type { ProducerEpoch, ProducerId, Sequence } from './numbers.js';
import { incrementSequence } from './sequence.js';

// #region num-batches-to-retain
/**
 * Five batches, not five records: Kafka's `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`.
 * It is the same 5 that caps `max.in.flight.requests.per.connection` when
 * idempotence is on: a producer may have at most as many batches in flight as the
 * broker remembers, or an old batch could leave the window before its ack returns.
 */
export const NUM_BATCHES_TO_RETAIN = 5;
// #endregion num-batches-to-retain

/** Epoch of an entry that has seen no batch yet (Kafka's `RecordBatch.NO_PRODUCER_EPOCH`). */
export const NO_PRODUCER_EPOCH = -1;

/**
 * What the broker remembers of one producer on one partition: Kafka's
 * `ProducerStateEntry`. The window is ordered lowest sequence first; when it is
 * full, the oldest batch leaves to make room for the new one.
 */
export class ProducerStateEntry {
  readonly #batches: BatchMetadata[] = [];
  #producerEpoch: ProducerEpoch | typeof NO_PRODUCER_EPOCH = NO_PRODUCER_EPOCH;
  #lastTimestamp = -1;

  constructor(readonly producerId: ProducerId) {}

  get producerEpoch(): ProducerEpoch | typeof NO_PRODUCER_EPOCH {
    return this.#producerEpoch;
  }

  get lastTimestamp(): number {
    return this.#lastTimestamp;
  }

  /** The retained batches, oldest first (at most `NUM_BATCHES_TO_RETAIN`). */
  get batches(): readonly BatchMetadata[] {
    return this.#batches;
  }

  isEmpty(): boolean {
    return this.#batches.length === 0;
  }

  /** Record an appended batch under `epoch`; a new epoch starts a new window. */
  addBatch(epoch: ProducerEpoch, batch: BatchMetadata): void {
    this.maybeUpdateProducerEpoch(epoch);
    this.record(batch);
  }

  /** Kafka's `maybeUpdateProducerEpoch`: a different epoch clears the window. */
  maybeUpdateProducerEpoch(epoch: ProducerEpoch): boolean {
    if (this.#producerEpoch === epoch) return false;
    this.#batches.length = 0;
    this.#producerEpoch = epoch;
    return true;
  }

  // #region window-record
  /** Push a batch into the window; when it is full the oldest batch leaves, and a resend of it is no longer recognised. */
  record(batch: BatchMetadata): void {
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) {
      this.#batches.shift();
    }
    this.#lastTimestamp = batch.timestamp;
    this.#batches.push(batch);
  }
  // #endregion window-record

  // #region expected-first-seq
  /** The sequence the next batch must start at: 0 for a producer that has written nothing yet. */
  expectedFirstSeq(): Sequence {
    const last = this.#batches.at(-1);
    return last === undefined ? (0 as Sequence) : incrementSequence(last.lastSeq, 1);
  }
  // #endregion expected-first-seq

  // #region find-duplicate-batch
  /** Kafka's `findDuplicateBatch`: the epoch must match, then the exact [first, last] range. */
  findDuplicateBatch(epoch: ProducerEpoch, firstSeq: Sequence, lastSeq: Sequence): BatchMetadata | undefined {
    if (epoch !== this.#producerEpoch) return undefined;
    return this.#batches.find((b) => b.firstSeq() === firstSeq && b.lastSeq === lastSeq);
  }
  // #endregion find-duplicate-batch
}
