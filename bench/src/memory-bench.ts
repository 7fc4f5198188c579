import {
  BatchMetadata,
  incrementSequence,
  NUM_BATCHES_TO_RETAIN,
  ProducerState,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import type { BenchContext } from './context.js';
import { BENCH_NOW_MS } from './data.js';
import type { MemoryResult } from './results.js';

/**
 * Heap held by the producer state of 10k producers, each with a full window of 5
 * batches (pushed through 6, so every window has evicted one). Needs `node --expose-gc`:
 * the heap is measured after full collections, before and after, with the state alive.
 */

declare const gc: (() => void) | undefined;

const PRODUCERS = 10_000;
const BATCHES = NUM_BATCHES_TO_RETAIN + 1;
/** pid + epoch + last timestamp, then lastSeq, lastOffset, offsetDelta, timestamp per batch: 8 bytes each. */
const PAYLOAD_PER_PRODUCER = (3 + 4 * NUM_BATCHES_TO_RETAIN) * 8;

function collect(): void {
  if (typeof gc !== 'function') throw new Error('the memory benchmark needs node --expose-gc');
  for (let i = 0; i < 3; i++) gc();
}

export function runMemoryBench(ctx: BenchContext): MemoryResult {
  collect();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const epoch = toProducerEpoch(0);
  const state = new ProducerState();
  let offset = 0;
  for (let p = 0; p < PRODUCERS; p++) {
    const entry = state.entry(toProducerId(1_000_000 + p));
    let seq = toSequence(0);
    for (let b = 0; b < BATCHES; b++) {
      const last = incrementSequence(seq, 9);
      offset += 10;
      entry.addBatch(epoch, new BatchMetadata(last, offset - 1, 9, BENCH_NOW_MS + offset));
      seq = incrementSequence(last, 1);
    }
    if (p % 250 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  collect();
  const after = process.memoryUsage().heapUsed;
  if (
    state.size !== PRODUCERS ||
    state.get(toProducerId(1_000_000))!.batches.length !== NUM_BATCHES_TO_RETAIN
  ) {
    throw new Error('the producer state does not hold what was added');
  }
  const retained = after - before;
  const result: MemoryResult = {
    producers: PRODUCERS,
    batchesPerProducer: NUM_BATCHES_TO_RETAIN,
    retainedBytes: retained,
    peakBytes: peak - before,
    bytesPerProducer: retained / PRODUCERS,
    payloadBytesPerProducer: PAYLOAD_PER_PRODUCER,
  };
  ctx.progress(
    `    ${PRODUCERS} producers × ${NUM_BATCHES_TO_RETAIN} batches: ${(retained / 1e6).toFixed(2)} MB retained (${Math.round(
      result.bytesPerProducer,
    )} B per producer, ${PAYLOAD_PER_PRODUCER} B of numbers), peak ${((peak - before) / 1e6).toFixed(2)} MB while building`,
  );
  return result;
}
