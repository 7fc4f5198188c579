// klog's own window, in the shape `klog lab check` grades: @klog/core's ProducerStateEntry,
// judge and incrementSequence as they are, and the two steps storage takes around them
// (partition/append.ts's appendIdempotent, judge-then-write, producer-state-rebuild.ts's addBatchFromHeader)
// restated over the lab's plain log and header. `klog lab check` must pass it at every stage.
import {
  type AppendAnswer,
  type BatchHeaderFields,
  type BatchLog,
  BatchMetadata,
  incrementSequence,
  judge,
  type ProducerBatch,
  type ProducerEpoch,
  type ProducerId,
  ProducerStateEntry,
  type Sequence,
} from '@klog/core';

export { incrementSequence, judge, ProducerStateEntry };

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
  const lastOffset = header.baseOffset + header.lastOffsetDelta;
  entry.addBatch(
    header.producerEpoch as ProducerEpoch,
    new BatchMetadata(lastSeq, lastOffset, header.lastOffsetDelta, header.maxTimestamp),
  );
}
