import {
  BatchMetadata,
  judge,
  NUM_BATCHES_TO_RETAIN,
  ProducerStateEntry,
  toProducerEpoch,
  toProducerId,
  type Verdict,
  type WindowEntry,
  type WindowModule,
} from '@klog/core';
import type { PlannedBatch } from './batch-plan.js';

/** The one producer of the model, as the chapter's demo names it. */
export const MODEL_PRODUCER_ID = toProducerId(1000);
export const MODEL_EPOCH = toProducerEpoch(0);
/** Batch timestamps are this plus the batch's first offset: fixed, so runs repeat exactly. */
export const MODEL_NOW_MS = 1_700_000_000_000;

/**
 * The window the model's broker judges with: core's own unless a caller brings another
 * (`klog lab check` runs the checker over a learner's window, which must keep its own five).
 */
export type ModelWindow = Pick<WindowModule, 'ProducerStateEntry' | 'judge'>;

export const CORE_WINDOW: ModelWindow = Object.freeze({ ProducerStateEntry, judge });

/** A batch on the broker's log: which of the producer's batches, where, and in which segment. */
export interface LoggedBatch {
  readonly batch: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly segment: number;
  /** What the broker keeps of it, as core's window holds it. */
  readonly meta: BatchMetadata;
}

/**
 * The broker of the model: core's real `ProducerStateEntry` and the log it guards. A state
 * never mutates its entry; every step that changes the window works on a copy, so states can
 * be kept, compared and replayed.
 */
export interface BrokerState {
  readonly entry: WindowEntry;
  readonly log: readonly LoggedBatch[];
}

/** What the broker did with one request: core's verdict and the broker after it. */
export interface Delivery {
  readonly verdict: Verdict;
  readonly broker: BrokerState;
  /** The batch as written, for an `Append`. */
  readonly written: LoggedBatch | undefined;
  /** Sequence ranges that left the window to make room (`0..1`). */
  readonly evicted: readonly string[];
}

export function emptyBroker(impl: ModelWindow = CORE_WINDOW): BrokerState {
  return { entry: new impl.ProducerStateEntry(MODEL_PRODUCER_ID), log: [] };
}

export function logEndOffset(log: readonly LoggedBatch[]): number {
  return (log.at(-1)?.lastOffset ?? -1) + 1;
}

/** The window as the demo prints it: `0..1 2..3`. */
export function windowRanges(entry: WindowEntry): string[] {
  return entry.batches.map((b) => `${b.firstSeq()}..${b.lastSeq}`);
}

/**
 * Core's entry holds `NUM_BATCHES_TO_RETAIN` batches and evicts the oldest itself. A smaller
 * window (a mutation the tests ask for) is made from core's entry by keeping only its newest
 * `window` batches; the window is never widened, so core's own eviction is never bypassed. At
 * the full window nothing is trimmed: a window that keeps more than five shows it.
 */
function withWindow(entry: WindowEntry, window: number, impl: ModelWindow): WindowEntry {
  if (window >= NUM_BATCHES_TO_RETAIN || entry.batches.length <= window) return entry;
  return replay(entry.batches.slice(-window), impl);
}

function replay(batches: readonly BatchMetadata[], impl: ModelWindow): WindowEntry {
  const entry = new impl.ProducerStateEntry(MODEL_PRODUCER_ID);
  for (const batch of batches) entry.addBatch(MODEL_EPOCH, batch);
  return entry;
}

/** The segment the next batch goes to: a new one when the active one already holds `segmentBatches`. */
function segmentForNext(log: readonly LoggedBatch[], segmentBatches: number): number {
  const last = log.at(-1);
  if (last === undefined) return 0;
  if (segmentBatches === 0) return last.segment;
  const inActive = log.filter((b) => b.segment === last.segment).length;
  return inActive >= segmentBatches ? last.segment + 1 : last.segment;
}

/** One request reaches the broker: core's `judge` decides, and only an `Append` writes. */
export function receive(
  broker: BrokerState,
  batch: PlannedBatch,
  window: number,
  segmentBatches: number,
  impl: ModelWindow = CORE_WINDOW,
): Delivery {
  const verdict = impl.judge(broker.entry, MODEL_EPOCH, batch.firstSeq, batch.lastSeq);
  if (verdict.kind !== 'Append') return { verdict, broker, written: undefined, evicted: [] };
  const firstOffset = logEndOffset(broker.log);
  const lastOffset = firstOffset + batch.records - 1;
  const meta = new BatchMetadata(batch.lastSeq, lastOffset, batch.records - 1, MODEL_NOW_MS + firstOffset);
  const written: LoggedBatch = {
    batch: batch.index,
    firstOffset,
    lastOffset,
    segment: segmentForNext(broker.log, segmentBatches),
    meta,
  };
  const entry = replay(broker.entry.batches, impl);
  entry.addBatch(MODEL_EPOCH, meta);
  const after = withWindow(entry, window, impl);
  const kept = new Set(windowRanges(after));
  return {
    verdict,
    broker: { entry: after, log: [...broker.log, written] },
    written,
    evicted: windowRanges(broker.entry).filter((r) => !kept.has(r)),
  };
}

/**
 * The broker restarts: the chapter's rebuild scans the active segment only, adding each batch
 * to a fresh entry as `addBatchFromHeader` in @klog/storage does. Batches that rolled into
 * older segments are not seen again.
 */
export function restart(broker: BrokerState, window: number, impl: ModelWindow = CORE_WINDOW): BrokerState {
  const active = broker.log.at(-1)?.segment;
  let entry = new impl.ProducerStateEntry(MODEL_PRODUCER_ID);
  for (const logged of broker.log) {
    if (logged.segment !== active) continue;
    entry.addBatch(MODEL_EPOCH, logged.meta);
    entry = withWindow(entry, window, impl);
  }
  return { entry, log: broker.log };
}
