export { BatchMetadata } from './batch-metadata.js';
export { judgeBatch, recordAppendedBatch, type SequenceRule } from './judge-batch.js';
export {
  InvalidNumberError,
  MAX_PRODUCER_EPOCH,
  MAX_SEQUENCE,
  type ProducerEpoch,
  type ProducerId,
  type Sequence,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from './numbers.js';
export { ProducerState } from './producer-state.js';
export { NO_PRODUCER_EPOCH, NUM_BATCHES_TO_RETAIN, ProducerStateEntry } from './producer-state-entry.js';
export type { InvalidProducerEpoch, ProducerVerdict } from './producer-verdict.js';
export { decrementSequence, incrementSequence, inSequence } from './sequence.js';
export { type Append, type Duplicate, judge, type OutOfOrderSequence, type Verdict } from './verdict.js';
export type {
  AppendAnswer,
  BatchHeaderFields,
  BatchLog,
  ProducerBatch,
  WindowEntry,
  WindowModule,
  WrittenBatch,
} from './window-module.js';
