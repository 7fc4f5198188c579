import {
  type Append,
  type Duplicate,
  type InvalidProducerEpoch,
  incrementSequence,
  judgeBatch,
  type OutOfOrderSequence,
  recordAppendedBatch,
  type SequenceRule,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import { BatchScratch, buildProducerBatch } from './batch-builder.js';
import { validateTimestamp } from './batch-validator.js';
import { StorageError } from './errors.js';
import type { Partition } from './partition.js';
import type { RecordInput } from './record.js';

/** What an idempotent append did: the verdict, with the offsets it wrote when it wrote. */
export type IdempotentAppend =
  | (Append & { readonly firstOffset: number; readonly lastOffset: number })
  | Duplicate
  | OutOfOrderSequence
  | InvalidProducerEpoch;

export type { SequenceRule } from '@klog/core';

/** One batch from an idempotent producer, as the records it holds (klog builds the bytes). */
export interface IdempotentBatch {
  readonly producerId: number;
  readonly producerEpoch: number;
  /** The sequence of the first record; the others follow, wrapping at 2^31 - 1. */
  readonly firstSequence: number;
  readonly records: readonly RecordInput[];
  /** The broker's clock: the batch's timestamp. */
  readonly nowMs: number;
  readonly rule?: SequenceRule;
}

/** One build buffer for every append in the process: each batch is written out before the next is built. */
const scratch = new BatchScratch();

// #region append-head fragment
/**
 * Judge first, then write. Only an Append touches the log: a Duplicate answers
 * with the first write's offsets and an OutOfOrderSequence refuses, and neither
 * writes a byte, so the log end offset stays where it was (Kafka's `UnifiedLog.append`
 * skips `localLog.append` when `maybeDuplicate` is present).
 */
export function appendIdempotent(partition: Partition, batch: IdempotentBatch): IdempotentAppend {
  const pid = toProducerId(batch.producerId);
  const epoch = toProducerEpoch(batch.producerEpoch);
  const first = toSequence(batch.firstSequence, 'first sequence');
  const { records, nowMs } = batch;
  if (records.length === 0) throw new StorageError('INVALID_RECORD', 'a batch needs at least one record');
  validateTimestamp(nowMs);
  const last = incrementSequence(first, records.length - 1);
  const state = partition.producerState;
  const verdict = judgeBatch(batch.rule ?? 'chapter', state, pid, epoch, first, last);

  switch (verdict.kind) {
    case 'Duplicate':
      return verdict;
    case 'OutOfOrderSequence':
    case 'InvalidProducerEpoch':
      return verdict;
    // #endregion append-head fragment
    case 'Append': {
      const log = partition.log;
      const producer = { producerId: pid, producerEpoch: epoch, baseSequence: first };
      // Built in a reused buffer: appendBatch writes it out before another batch is built.
      const bytes = buildProducerBatch(records, log.logEndOffset, nowMs, producer, scratch.allocate);
      const header = {
        attributes: 0,
        lastOffsetDelta: records.length - 1,
        recordsCount: records.length,
        maxTimestamp: nowMs,
        ...producer,
      };
      const written = log.appendBuiltBatch(bytes, header);
      // The window learns of the batch only once it is on the log.
      recordAppendedBatch(state, pid, epoch, last, written.lastOffset, records.length - 1, nowMs);
      return { kind: 'Append', firstOffset: written.firstOffset, lastOffset: written.lastOffset };
    }
  }
}
