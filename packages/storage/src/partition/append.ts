import {
  type Append,
  type Duplicate,
  type InvalidProducerEpoch,
  type OutOfOrderSequence,
  type SequenceRule,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import type { RecordInput } from '../format/record.js';
import type { LogAppendInfo } from '../log/log.js';
import type { Partition } from './partition.js';

// The chapters' two ways of writing records klog builds into a batch, both over `Partition.append`, the one
// append path (a client's bytes go through `Partition.appendProducerBatch`, over it too).

/** Append records with no producer (the three producer fields -1): chapter 3's write path, over `Partition.append`. */
export function appendRecords(
  partition: Partition,
  records: readonly RecordInput[],
  nowMs: number,
): LogAppendInfo {
  const result = partition.append({ origin: 'klog', records, nowMs });
  // A batch without a producer is never judged: always appended.
  return (result as Extract<typeof result, { kind: 'Append' }>).appended;
}

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

/**
 * The chapter's idempotent append, over `Partition.append` (judge first, then write): the
 * producer's numbers checked at the boundary, the records built into one batch, judged by
 * `batch.rule` (the chapter's by default).
 */
export function appendIdempotent(partition: Partition, batch: IdempotentBatch): IdempotentAppend {
  const producer = {
    producerId: toProducerId(batch.producerId),
    producerEpoch: toProducerEpoch(batch.producerEpoch),
    baseSequence: toSequence(batch.firstSequence, 'first sequence'),
  };
  const { records, nowMs } = batch;
  const rule = batch.rule;
  const result = partition.append({
    origin: 'klog',
    records,
    nowMs,
    producer,
    ...(rule === undefined ? {} : { rule }),
  });
  if (result.kind !== 'Append') return result;
  return { kind: 'Append', firstOffset: result.appended.firstOffset, lastOffset: result.appended.lastOffset };
}
