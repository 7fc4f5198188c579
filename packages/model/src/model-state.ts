import type { Verdict } from '@klog/core';
import type { ModelBounds } from './bounds.js';
import {
  type BrokerState,
  CORE_WINDOW,
  emptyBroker,
  MODEL_NOW_MS,
  type ModelWindow,
} from './model-broker.js';

/** Where one of the producer's batches stands, as the producer knows it. */
export type BatchStatus =
  /** Not sent yet. */
  | { readonly kind: 'unsent' }
  /** Sent on the current connection: its request or its answer is on the wire. */
  | { readonly kind: 'waiting' }
  /** The connection it went out on broke before an answer came: it must be sent again, same sequence. */
  | { readonly kind: 'retry' }
  /** Answered with success: offsets from an `Append`, or the original ones from a `Duplicate`. */
  | {
      readonly kind: 'acked';
      readonly firstOffset: number;
      readonly lastOffset: number;
      readonly duplicate: boolean;
    }
  /** Answered `OUT_OF_ORDER_SEQUENCE_NUMBER`: the producer reports the batch as failed. */
  | { readonly kind: 'failed'; readonly expected: number; readonly got: number };

/** The broker's answer to one request, on its way back. */
export type Answer =
  | { readonly kind: 'Append' | 'Duplicate'; readonly firstOffset: number; readonly lastOffset: number }
  | { readonly kind: 'OutOfOrderSequence'; readonly expected: number; readonly got: number };

/** Core's verdict as the producer hears it; an `Append` of `records` lands at the log end offset. */
export function answerFor(verdict: Verdict, logEnd: number, records: number): Answer {
  switch (verdict.kind) {
    case 'Append':
      return { kind: 'Append', firstOffset: logEnd, lastOffset: logEnd + records - 1 };
    case 'Duplicate':
      return { kind: 'Duplicate', firstOffset: verdict.firstOffset, lastOffset: verdict.lastOffset };
    case 'OutOfOrderSequence':
      return { kind: 'OutOfOrderSequence', expected: verdict.expected, got: verdict.got };
  }
}

export interface Response {
  readonly batch: number;
  readonly answer: Answer;
}

/**
 * One state of the whole system: producer, the one connection (in order both ways, as TCP
 * is), broker. Every field can change what happens next, and all of them are in `stateKey`.
 */
export interface ModelState {
  readonly producer: readonly BatchStatus[];
  /** Requests on the wire, oldest first (batch indexes). */
  readonly requests: readonly number[];
  /** Answers on the wire, oldest first. */
  readonly responses: readonly Response[];
  readonly broker: BrokerState;
  readonly lossesLeft: number;
  readonly restartsLeft: number;
}

export function initialState(bounds: ModelBounds, impl: ModelWindow = CORE_WINDOW): ModelState {
  return {
    producer: Array.from({ length: bounds.batches }, () => UNSENT),
    requests: [],
    responses: [],
    broker: emptyBroker(impl),
    lossesLeft: bounds.losses,
    restartsLeft: bounds.restarts,
  };
}

export const UNSENT: BatchStatus = Object.freeze({ kind: 'unsent' });
export const WAITING: BatchStatus = Object.freeze({ kind: 'waiting' });
export const RETRY: BatchStatus = Object.freeze({ kind: 'retry' });

/** Batches sent and not yet answered: what `max.in.flight` counts. */
export function unanswered(state: ModelState): number {
  let n = 0;
  for (const s of state.producer) if (s.kind === 'waiting' || s.kind === 'retry') n++;
  return n;
}

function statusKey(s: BatchStatus): string {
  switch (s.kind) {
    case 'unsent':
      return 'u';
    case 'waiting':
      return 'w';
    case 'retry':
      return 'r';
    case 'acked':
      return `${s.duplicate ? 'd' : 'a'}${s.firstOffset}-${s.lastOffset}`;
    case 'failed':
      return `f${s.expected}-${s.got}`;
  }
}

function answerKey(a: Answer): string {
  return a.kind === 'OutOfOrderSequence'
    ? `o${a.expected}-${a.got}`
    : `${a.kind === 'Append' ? 'a' : 'd'}${a.firstOffset}-${a.lastOffset}`;
}

/**
 * The identity of a state, for merging schedules that reach it. Two states with the same key
 * have the same fields (the window batch by batch, with all four numbers and the epoch), so
 * they allow the same steps to the same states: merging them loses no schedule.
 */
export function stateKey(state: ModelState): string {
  // Built by concatenation in one pass: this runs once per transition, the hottest code of a run.
  let key = '';
  for (const s of state.producer) key += `${statusKey(s)},`;
  key += '|';
  for (const batch of state.requests) key += `${batch},`;
  key += '|';
  for (const r of state.responses) key += `${r.batch}${answerKey(r.answer)},`;
  const { entry, log } = state.broker;
  key += `|${entry.producerEpoch}:`;
  // Timestamps as their distance from MODEL_NOW_MS: shorter keys, the same information.
  for (const b of entry.batches)
    key += `${b.lastSeq}/${b.lastOffset}/${b.offsetDelta}/${b.timestamp - MODEL_NOW_MS},`;
  key += '|';
  for (const b of log) key += `${b.batch}@${b.firstOffset}-${b.lastOffset}s${b.segment},`;
  return `${key}|${state.lossesLeft}|${state.restartsLeft}`;
}
