// The lab of chapter 7: the idempotent producer's window, written by you.
// `klog lab check` grades this file stage by stage; `klog serve --window` puts it behind a real broker.
// Each TODO names the section of docs/07-idem.mdx it comes from. Keep the exported names and signatures:
// they are @klog/core's WindowModule, which the checker and the broker call.
// biome-ignore lint/style/useImportType: BatchMetadata is a value: your appendBatch makes one with `new`.
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

function todo(section: string): never {
  throw new Error(`TODO: not written yet (lesson: ${section})`);
}

/** `sequence + increment`, wrapping past 2^31-1 (MAX_SEQUENCE) to 0, never to a negative number. */
export function incrementSequence(sequence: Sequence, increment: number): Sequence {
  return todo('sequence ถึง 2147483647 แล้ววนกลับเป็น 0');
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
    return todo('สามช่องในหัว batch ที่เว้นไว้ตั้งแต่บทที่ 1');
  }

  /** Push a batch into the window; when the window is full, the oldest batch leaves first. */
  record(batch: BatchMetadata): void {
    todo('หน้าต่างห้า batch');
  }

  /** The sequence the next batch must start at: 0 for a producer that has written nothing yet. */
  expectedFirstSeq(): Sequence {
    return todo('หน้าต่างห้า batch');
  }

  /** The retained batch with exactly this range under this epoch, if there is one. */
  findDuplicateBatch(epoch: ProducerEpoch, firstSeq: Sequence, lastSeq: Sequence): BatchMetadata | undefined {
    return todo('สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ');
  }
}

/** Append, Duplicate (with the first write's offsets and timestamp) or OutOfOrderSequence (expected, got). */
export function judge(
  entry: ProducerStateEntry,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): Verdict {
  return todo('สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ');
}

/**
 * Judge first, then write: only an Append calls `log.append(batch.records)`, and the window learns of the
 * batch (BatchMetadata: lastSeq, lastOffset, offsetDelta, timestamp) once it is on the log.
 */
export function appendBatch(entry: ProducerStateEntry, batch: ProducerBatch, log: BatchLog): AppendAnswer {
  return todo('สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ');
}

/**
 * The rebuild on open, one header of the active segment at a time: skip a batch without a producer
 * (producerId -1), find or make the producer's entry in `state`, and add the batch as its header tells it.
 */
export function addBatchFromHeader(
  state: Map<ProducerId, ProducerStateEntry>,
  header: BatchHeaderFields,
): void {
  todo('สร้างสถานะใหม่ตอนเปิด และส่วนที่การอ่านย้อนมองไม่เห็น');
}
