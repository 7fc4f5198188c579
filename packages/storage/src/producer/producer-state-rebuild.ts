import {
  BatchMetadata,
  incrementSequence,
  ProducerState,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import { CONTROL_FLAG, lastOffsetOf, type RecordBatchHeader } from '../format/record-batch.js';
import type { LogReader } from '../log/log.js';

/** A batch the rebuild could not place in a window, and why: reported, never thrown. */
export interface SkippedBatch {
  /** Byte position of the batch in the active segment. */
  readonly position: number;
  readonly reason: string;
}

// #region rebuild-producer-state
/**
 * Rebuild the producer state on open from the active segment's batch headers.
 * Without `.snapshot` files, this scan is why dedup survives a broker restart, and
 * it sees only what the active segment still holds: a producer whose batches
 * rolled into older segments loses them from its window. Every value comes from
 * the 61-byte header; no record is decoded. A batch no producer could have sent is
 * passed to `onSkip` and left out; the rebuild never fails because of one.
 */
export function rebuildProducerState(
  log: LogReader,
  onSkip?: (skipped: SkippedBatch) => void,
): ProducerState {
  const state = new ProducerState();
  for (const { position, header } of log.activeSegment.headers()) {
    const reason = addBatchFromHeader(state, header);
    if (reason !== undefined) onSkip?.({ position, reason });
  }
  return state;
}
// #endregion rebuild-producer-state

// #region add-batch-from-header
/** Put one batch, known by its header alone, into its producer's window; returns why not if it cannot. */
export function addBatchFromHeader(state: ProducerState, header: RecordBatchHeader): string | undefined {
  // No producer (-1), or a transaction marker: nothing to deduplicate.
  if (header.producerId < 0 || header.attributes & CONTROL_FLAG) return undefined;
  const { producerId, producerEpoch, baseSequence } = header;
  if (producerEpoch < 0 || baseSequence < 0) {
    return `producer ${producerId} with epoch ${producerEpoch} and base sequence ${baseSequence}: no producer sends that`;
  }
  const entry = state.entry(toProducerId(producerId));
  const lastSeq = incrementSequence(toSequence(baseSequence), header.lastOffsetDelta);
  entry.addBatch(
    toProducerEpoch(producerEpoch),
    new BatchMetadata(lastSeq, lastOffsetOf(header), header.lastOffsetDelta, header.maxTimestamp),
  );
  return undefined;
}
// #endregion add-batch-from-header
