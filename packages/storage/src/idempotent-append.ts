import {
  type Append,
  BatchMetadata,
  type Duplicate,
  type InvalidProducerEpoch,
  incrementSequence,
  judge,
  judgeWithFencing,
  type OutOfOrderSequence,
  type ProducerState,
  ProducerStateEntry,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import { BatchScratch, buildProducerBatch } from './batch-builder.js';
import { validateTimestamp } from './batch-validator.js';
import { StorageError } from './errors.js';
import { appendBuiltBatch } from './log.js';
import type { Partition } from './partition.js';
import type { RecordInput } from './record.js';

/** What an idempotent append did: the verdict, with the offsets it wrote when it wrote. */
export type IdempotentAppend =
  | (Append & { readonly firstOffset: number; readonly lastOffset: number })
  | Duplicate
  | OutOfOrderSequence
  | InvalidProducerEpoch;

export interface IdempotentAppendOptions {
  /** Apply Kafka's epoch fencing before judging (`judgeWithFencing`); the chapter's broker does not. */
  readonly fencing?: boolean;
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
export function appendIdempotent(
  partition: Partition,
  state: ProducerState,
  producerId: number,
  producerEpoch: number,
  firstSeq: number,
  records: readonly RecordInput[],
  nowMs: number,
  options: IdempotentAppendOptions = {},
): IdempotentAppend {
  const pid = toProducerId(producerId);
  const epoch = toProducerEpoch(producerEpoch);
  const first = toSequence(firstSeq, 'first sequence');
  if (records.length === 0) throw new StorageError('INVALID_RECORD', 'a batch needs at least one record');
  validateTimestamp(nowMs);
  const last = incrementSequence(first, records.length - 1);
  const entry = state.get(pid) ?? new ProducerStateEntry(pid);
  const verdict = options.fencing
    ? judgeWithFencing(entry, epoch, first, last)
    : judge(entry, epoch, first, last);

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
      const batch = buildProducerBatch(records, log.logEndOffset, nowMs, producer, scratch.allocate);
      const header = {
        attributes: 0,
        lastOffsetDelta: records.length - 1,
        recordsCount: records.length,
        ...producer,
      };
      const written = appendBuiltBatch(log, batch, header);
      // The window learns of the batch only once it is on the log.
      entry.addBatch(epoch, new BatchMetadata(last, written.lastOffset, records.length - 1, nowMs));
      state.update(entry);
      return { kind: 'Append', firstOffset: written.firstOffset, lastOffset: written.lastOffset };
    }
  }
}
