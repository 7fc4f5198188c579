import {
  BatchMetadata,
  incrementSequence,
  ProducerState,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import type { Log } from './log.js';
import { CONTROL_FLAG, lastOffsetOf, type RecordBatchHeader } from './record-batch.js';

// #region rebuild-producer-state
/**
 * Rebuild the producer state on open from the active segment's batch headers.
 * klog has no `.snapshot` files as Kafka does, so this scan is why dedup survives
 * a broker restart, and it sees only what the active segment still holds: a
 * producer whose batches rolled into older segments loses them from its window.
 * Every value comes from the 61-byte header; no record is decoded.
 */
export function rebuildProducerState(log: Log): ProducerState {
  const state = new ProducerState();
  for (const { header } of log.activeSegment.headers()) {
    addBatchFromHeader(state, header);
  }
  return state;
}
// #endregion rebuild-producer-state

// #region add-batch-from-header
/** Put one batch, known by its header alone, into its producer's window. */
export function addBatchFromHeader(state: ProducerState, header: RecordBatchHeader): void {
  // No producer (-1), or a transaction marker: nothing to deduplicate.
  if (header.producerId < 0 || header.baseSequence < 0 || header.attributes & CONTROL_FLAG) return;
  const entry = state.entry(toProducerId(header.producerId));
  const lastSeq = incrementSequence(toSequence(header.baseSequence), header.lastOffsetDelta);
  entry.addBatch(
    toProducerEpoch(header.producerEpoch),
    new BatchMetadata(lastSeq, lastOffsetOf(header), header.lastOffsetDelta, header.maxTimestamp),
  );
}
// #endregion add-batch-from-header
