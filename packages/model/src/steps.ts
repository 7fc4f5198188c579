import type { Verdict } from '@klog/core';
import type { PlannedBatch } from './batch-plan.js';
import type { ModelBounds } from './bounds.js';
import {
  CORE_WINDOW,
  logEndOffset,
  type ModelWindow,
  receive,
  restart,
  windowRanges,
} from './model-broker.js';
import {
  type Answer,
  answerFor,
  type BatchStatus,
  type ModelState,
  RETRY,
  type Response,
  unanswered,
  WAITING,
} from './model-state.js';

/** One thing that can happen next. Each carries what a person reading a trace needs to see. */
export type Step =
  /** The producer sends a batch: the next new one, or (`resend`) the oldest it must send again. */
  | { readonly kind: 'send'; readonly batch: number; readonly resend: boolean; readonly inFlight: number }
  /** The oldest request reaches the broker, which judges it with core's `judge`. */
  | {
      readonly kind: 'deliver';
      readonly batch: number;
      readonly verdict: Verdict;
      readonly answer: Answer;
      readonly window: readonly string[];
      readonly evicted: readonly string[];
    }
  /** The oldest answer reaches the producer. */
  | { readonly kind: 'answer'; readonly batch: number; readonly answer: Answer }
  /**
   * The connection breaks: the first request or ack on it is lost, and with one connection in
   * order (TCP), so is everything behind it. The producer resends every unanswered batch.
   */
  | {
      readonly kind: 'lose';
      readonly requestsLost: readonly number[];
      readonly acksLost: readonly number[];
      readonly retry: readonly number[];
    }
  /** The broker restarts and rebuilds its window from the active segment; the connection breaks too. */
  | {
      readonly kind: 'restart';
      readonly requestsLost: readonly number[];
      readonly acksLost: readonly number[];
      readonly retry: readonly number[];
      readonly window: readonly string[];
    };

export interface Transition {
  readonly step: Step;
  readonly next: ModelState;
}

function withStatus(producer: readonly BatchStatus[], batch: number, status: BatchStatus): BatchStatus[] {
  const next = producer.slice();
  next[batch] = status;
  return next;
}

/** The producer's next send, if it may send: a resend first (oldest first), else a new batch within the cap. */
function producerSend(state: ModelState, bounds: ModelBounds): Transition | undefined {
  const retry = state.producer.findIndex((s) => s.kind === 'retry');
  const batch = retry >= 0 ? retry : state.producer.findIndex((s) => s.kind === 'unsent');
  if (batch < 0) return undefined;
  const inFlight = unanswered(state);
  // A resend keeps its slot; a new batch needs a free one.
  if (retry < 0 && inFlight >= bounds.inFlight) return undefined;
  return {
    step: { kind: 'send', batch, resend: retry >= 0, inFlight: retry >= 0 ? inFlight : inFlight + 1 },
    next: {
      ...state,
      producer: withStatus(state.producer, batch, WAITING),
      requests: [...state.requests, batch],
    },
  };
}

function brokerDeliver(
  state: ModelState,
  bounds: ModelBounds,
  plan: readonly PlannedBatch[],
  impl: ModelWindow,
): Transition | undefined {
  const [batch, ...rest] = state.requests;
  if (batch === undefined) return undefined;
  const delivery = receive(state.broker, plan[batch]!, bounds.window, bounds.segmentBatches, impl);
  const answer = answerFor(delivery.verdict, logEndOffset(state.broker.log), plan[batch]!.records);
  const response: Response = { batch, answer };
  return {
    step: {
      kind: 'deliver',
      batch,
      verdict: delivery.verdict,
      answer,
      window: windowRanges(delivery.broker.entry),
      evicted: delivery.evicted,
    },
    next: { ...state, requests: rest, responses: [...state.responses, response], broker: delivery.broker },
  };
}

function producerReceive(state: ModelState): Transition | undefined {
  const [response, ...rest] = state.responses;
  if (response === undefined) return undefined;
  const { batch, answer } = response;
  if (state.producer[batch]?.kind !== 'waiting') {
    throw new Error(`model: an answer for batch ${batch}, which the producer is not waiting for`);
  }
  const status: BatchStatus =
    answer.kind === 'OutOfOrderSequence'
      ? { kind: 'failed', expected: answer.expected, got: answer.got }
      : {
          kind: 'acked',
          firstOffset: answer.firstOffset,
          lastOffset: answer.lastOffset,
          duplicate: answer.kind === 'Duplicate',
        };
  return {
    step: { kind: 'answer', batch, answer },
    next: { ...state, producer: withStatus(state.producer, batch, status), responses: rest },
  };
}

/** Everything on the wire is gone; every batch the producer was waiting for must be sent again. */
function dropConnection(state: ModelState) {
  const retry: number[] = [];
  const producer = state.producer.map((s, i) => {
    if (s.kind !== 'waiting') return s;
    retry.push(i);
    return RETRY;
  });
  return {
    lost: {
      requestsLost: state.requests,
      acksLost: state.responses.map((r) => r.batch),
      retry,
    },
    next: { ...state, producer, requests: [], responses: [] },
  };
}

function connectionLost(state: ModelState): Transition | undefined {
  if (state.lossesLeft === 0 || state.requests.length + state.responses.length === 0) return undefined;
  const { lost, next } = dropConnection(state);
  return { step: { kind: 'lose', ...lost }, next: { ...next, lossesLeft: state.lossesLeft - 1 } };
}

function brokerRestart(state: ModelState, bounds: ModelBounds, impl: ModelWindow): Transition | undefined {
  if (state.restartsLeft === 0 || state.broker.log.length === 0) return undefined;
  // Once every batch is answered nothing the broker forgets can matter any more.
  if (state.producer.every((s) => s.kind === 'acked' || s.kind === 'failed')) return undefined;
  const { lost, next } = dropConnection(state);
  const broker = restart(state.broker, bounds.window, impl);
  return {
    step: { kind: 'restart', ...lost, window: windowRanges(broker.entry) },
    next: { ...next, broker, restartsLeft: state.restartsLeft - 1 },
  };
}

/**
 * Every step enabled in `state`, in a fixed order (producer, broker, network, restart) so that
 * runs and counterexamples are the same every time. An empty list: the schedule has ended.
 */
export function transitions(
  state: ModelState,
  bounds: ModelBounds,
  plan: readonly PlannedBatch[],
  impl: ModelWindow = CORE_WINDOW,
): Transition[] {
  const out: Transition[] = [];
  for (const t of [
    producerSend(state, bounds),
    brokerDeliver(state, bounds, plan, impl),
    producerReceive(state),
    connectionLost(state),
    brokerRestart(state, bounds, impl),
  ]) {
    if (t !== undefined) out.push(t);
  }
  return out;
}
