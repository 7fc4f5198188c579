// Negative fixture `first-seq-only`: lab/starter.ts solved, with one mistake a learner makes.
// A duplicate is matched on its first sequence alone, not on the whole range.
import {
  type AppendAnswer,
  type BatchHeaderFields,
  type BatchLog,
  BatchMetadata,
  MAX_SEQUENCE,
  NO_PRODUCER_EPOCH,
  NUM_BATCHES_TO_RETAIN,
  type ProducerBatch,
  type ProducerEpoch,
  type ProducerId,
  type Sequence,
  type Verdict,
} from '@klog/core';

/** `sequence + increment`, wrapping past 2^31-1 (MAX_SEQUENCE) to 0, never to a negative number. */
export function incrementSequence(sequence: Sequence, increment: number): Sequence {
  if (sequence > MAX_SEQUENCE - increment) return (increment - (MAX_SEQUENCE - sequence) - 1) as Sequence;
  return (sequence + increment) as Sequence;
}

/** One producer's window on one partition: at most NUM_BATCHES_TO_RETAIN batches, oldest first. */
export class ProducerStateEntry {
  readonly #batches: BatchMetadata[] = [];
  #producerEpoch: ProducerEpoch | typeof NO_PRODUCER_EPOCH = NO_PRODUCER_EPOCH;

  constructor(readonly producerId: ProducerId) {}

  get producerEpoch(): ProducerEpoch | typeof NO_PRODUCER_EPOCH {
    return this.#producerEpoch;
  }

  get batches(): readonly BatchMetadata[] {
    return this.#batches;
  }

  /** Record an appended batch under `epoch`. */
  addBatch(epoch: ProducerEpoch, batch: BatchMetadata): void {
    this.maybeUpdateProducerEpoch(epoch);
    this.record(batch);
  }

  /** A different epoch starts a new window: true when it changed. */
  maybeUpdateProducerEpoch(epoch: ProducerEpoch): boolean {
    if (this.#producerEpoch === epoch) return false;
    this.#batches.length = 0;
    this.#producerEpoch = epoch;
    return true;
  }

  /** Push a batch into the window; when the window is full, the oldest batch leaves first. */
  record(batch: BatchMetadata): void {
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) this.#batches.shift();
    this.#batches.push(batch);
  }

  /** The sequence the next batch must start at: 0 for a producer that has written nothing yet. */
  expectedFirstSeq(): Sequence {
    const last = this.#batches.at(-1);
    return last === undefined ? (0 as Sequence) : incrementSequence(last.lastSeq, 1);
  }

  /** The retained batch with exactly this range under this epoch, if there is one. */
  findDuplicateBatch(epoch: ProducerEpoch, firstSeq: Sequence, lastSeq: Sequence): BatchMetadata | undefined {
    if (epoch !== this.#producerEpoch) return undefined;
    return this.#batches.find((b) => b.firstSeq() === firstSeq);
  }
}

/** Append, Duplicate (with the first write's offsets and timestamp) or OutOfOrderSequence (expected, got). */
export function judge(
  entry: ProducerStateEntry,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): Verdict {
  const original = entry.findDuplicateBatch(epoch, firstSeq, lastSeq);
  if (original !== undefined) {
    return {
      kind: 'Duplicate',
      firstOffset: original.firstOffset(),
      lastOffset: original.lastOffset,
      timestamp: original.timestamp,
    };
  }
  const expected = entry.expectedFirstSeq();
  if (firstSeq === expected) return { kind: 'Append' };
  return { kind: 'OutOfOrderSequence', expected, got: firstSeq };
}

/**
 * Judge first, then write: only an Append calls `log.append(batch.records)`, and the window learns of the
 * batch (BatchMetadata: lastSeq, lastOffset, offsetDelta, timestamp) once it is on the log.
 */
export function appendBatch(entry: ProducerStateEntry, batch: ProducerBatch, log: BatchLog): AppendAnswer {
  const lastSeq = incrementSequence(batch.firstSeq, batch.records - 1);
  const verdict = judge(entry, batch.epoch, batch.firstSeq, lastSeq);
  if (verdict.kind !== 'Append') return verdict;
  const written = log.append(batch.records);
  entry.addBatch(
    batch.epoch,
    new BatchMetadata(lastSeq, written.lastOffset, batch.records - 1, written.timestamp),
  );
  return { kind: 'Append', firstOffset: written.firstOffset, lastOffset: written.lastOffset };
}

/**
 * The rebuild on open, one header of the active segment at a time: skip a batch without a producer
 * (producerId -1), find or make the producer's entry in `state`, and add the batch as its header tells it.
 */
export function addBatchFromHeader(
  state: Map<ProducerId, ProducerStateEntry>,
  header: BatchHeaderFields,
): void {
  if (header.producerId < 0) return;
  const producerId = header.producerId as ProducerId;
  let entry = state.get(producerId);
  if (entry === undefined) {
    entry = new ProducerStateEntry(producerId);
    state.set(producerId, entry);
  }
  const lastSeq = incrementSequence(header.baseSequence as Sequence, header.lastOffsetDelta);
  entry.addBatch(
    header.producerEpoch as ProducerEpoch,
    new BatchMetadata(
      lastSeq,
      header.baseOffset + header.lastOffsetDelta,
      header.lastOffsetDelta,
      header.maxTimestamp,
    ),
  );
}
