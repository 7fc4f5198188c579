import { BatchMetadata } from './batch-metadata.js';
import { judgeWithFencing } from './epoch-fencing.js';
import { judgeByKafkaRules, type KafkaVerdict } from './kafka-verdict.js';
import type { ProducerEpoch, ProducerId, Sequence } from './numbers.js';
import type { ProducerState } from './producer-state.js';
import { ProducerStateEntry } from './producer-state-entry.js';
import { judge } from './verdict.js';

/**
 * Which rule judges a producer's batch:
 * - `'chapter'`: the chapter's `judge`: a new producer starts at 0, no epoch rules;
 * - `'chapter-fencing'`: `judgeWithFencing`, the chapter's rule after Kafka's epoch checks;
 * - `'kafka'`: Kafka 4.1's `judgeByKafkaRules`, as a broker applies it to real clients.
 */
export type SequenceRule = 'chapter' | 'chapter-fencing' | 'kafka';

/**
 * The two halves of an idempotent append that are the producer state's, on either
 * side of the write (Kafka's `ProducerAppendInfo` before `localLog.append`, then
 * `ProducerStateManager.update`): the storage's append calls them, and so does a
 * benchmark of them alone.
 */
export function judgeBatch(
  rule: SequenceRule,
  state: ProducerState,
  producerId: ProducerId,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): KafkaVerdict {
  const entry = state.get(producerId);
  if (rule === 'kafka') return judgeByKafkaRules(entry, epoch, firstSeq, lastSeq);
  const known = entry ?? new ProducerStateEntry(producerId);
  return rule === 'chapter-fencing'
    ? judgeWithFencing(known, epoch, firstSeq, lastSeq)
    : judge(known, epoch, firstSeq, lastSeq);
}

/** The batch is on the log: its producer's window learns of it (a producer seen first now gets an entry). */
export function recordAppendedBatch(
  state: ProducerState,
  producerId: ProducerId,
  epoch: ProducerEpoch,
  lastSeq: Sequence,
  lastOffset: number,
  offsetDelta: number,
  timestamp: number,
): void {
  state.entry(producerId).addBatch(epoch, new BatchMetadata(lastSeq, lastOffset, offsetDelta, timestamp));
}
