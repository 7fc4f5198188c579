import {
  BatchMetadata,
  incrementSequence,
  ProducerState,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import type { Log } from './log.js';
import { CONTROL_FLAG, lastOffsetOf } from './record-batch.js';

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
  for (const { header } of log.activeSegment.headers({ maxBatchBytes: log.config.maxBatchBytes })) {
    // No producer (-1), or a transaction marker: nothing to deduplicate.
    if (header.producerId < 0 || header.baseSequence < 0 || header.attributes & CONTROL_FLAG) continue;
    const pid = toProducerId(header.producerId);
    const entry = state.entry(pid);
    const lastSeq = incrementSequence(toSequence(header.baseSequence), header.lastOffsetDelta);
    entry.addBatch(
      toProducerEpoch(header.producerEpoch),
      new BatchMetadata(lastSeq, lastOffsetOf(header), header.lastOffsetDelta, header.maxTimestamp),
    );
  }
  return state;
}
// #endregion rebuild-producer-state
