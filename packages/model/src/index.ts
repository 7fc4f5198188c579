export { type PlannedBatch, planBatches, seqRange } from './batch-plan.js';
export { BOUND_LIMITS, BoundsError, checkBounds, DEFAULT_BOUNDS, type ModelBounds } from './bounds.js';
export { type ClientReaction, clientReactions } from './client-reactions.js';
export { checkEnd, checkState, INVARIANTS, type InvariantId, type Violation } from './invariants.js';
export {
  type BrokerState,
  CORE_WINDOW,
  type Delivery,
  emptyBroker,
  type LoggedBatch,
  logEndOffset,
  MODEL_EPOCH,
  MODEL_NOW_MS,
  MODEL_PRODUCER_ID,
  type ModelWindow,
  receive,
  restart,
  windowRanges,
} from './model-broker.js';
export {
  type CheckOptions,
  type CheckResult,
  type Counterexample,
  checkModel,
  DEFAULT_MAX_STATES,
  type Outcome,
  type Progress,
  StateLimitExceeded,
  type TraceStep,
} from './model-checker.js';
export {
  type Answer,
  answerFor,
  type BatchStatus,
  initialState,
  type ModelState,
  type Response,
  stateKey,
  unanswered,
} from './model-state.js';
export { type Step, type Transition, transitions } from './steps.js';
export {
  answerWords,
  CLIENT_NAMES,
  causeWords,
  INVARIANT_WORDS,
  rangesWords,
  reactionWords,
  stepWords,
  VERDICT_NAMES,
  violationWords,
} from './trace-words.js';
