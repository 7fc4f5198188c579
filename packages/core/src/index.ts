export { BatchMetadata } from './batch-metadata.js';
export { type FencedVerdict, type InvalidProducerEpoch, judgeWithFencing } from './epoch-fencing.js';
export { judgeByKafkaRules, type KafkaVerdict } from './kafka-verdict.js';
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
export { decrementSequence, incrementSequence, inSequence } from './sequence.js';
export { judgeBatch, recordAppendedBatch, type SequenceRule } from './sequence-rule.js';
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
