import type { ProducerEpoch, Sequence } from './numbers.js';
import { NO_PRODUCER_EPOCH, type ProducerStateEntry } from './producer-state-entry.js';
import type { ProducerVerdict } from './producer-verdict.js';
import { incrementSequence, inSequence } from './sequence.js';

const APPEND: ProducerVerdict = Object.freeze({ kind: 'Append' });

// #region kafka-rules
/**
 * The rule `'kafka'`: Kafka 4.1.0's producer rules for a batch `[firstSeq, lastSeq]` at `epoch`, as a broker
 * must apply them for real clients (the chapter's `judge` is the lesson's simpler rule):
 *
 * 1. a duplicate is the exact range of a retained batch under the same epoch, answered
 *    with the original offsets (`UnifiedLog.analyzeAndValidateProducerState` asks
 *    `ProducerStateEntry.findDuplicateBatch` first; a broker never answers error 46);
 * 2. an epoch older than the producer's is fenced, error 47
 *    (`ProducerAppendInfo.checkProducerEpoch`);
 * 3. `ProducerAppendInfo.checkSequence`: a newer epoch must start at sequence 0 (and
 *    clears the window once appended, `ProducerStateEntry.maybeUpdateProducerEpoch`);
 *    a producer the partition has no state for accepts any sequence; otherwise the
 *    batch must follow the last one, wrapping at 2^31 - 1 to 0. Else error 45.
 *
 * `entry` is undefined for a producer the partition has never seen (or has expired).
 */
export function kafkaRules(
  entry: ProducerStateEntry | undefined,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): ProducerVerdict {
  const current = entry?.producerEpoch ?? NO_PRODUCER_EPOCH;
  const original = entry?.findDuplicateBatch(epoch, firstSeq, lastSeq);
  if (original !== undefined) {
    return {
      kind: 'Duplicate',
      firstOffset: original.firstOffset(),
      lastOffset: original.lastOffset,
      timestamp: original.timestamp,
    };
  }
  if (current === NO_PRODUCER_EPOCH) return APPEND;
  if (epoch < current) return { kind: 'InvalidProducerEpoch', current, got: epoch };
  if (epoch !== current) {
    return firstSeq === 0 ? APPEND : { kind: 'OutOfOrderSequence', expected: 0 as Sequence, got: firstSeq };
  }
  const last = entry!.batches.at(-1);
  // Same epoch, nothing retained (a snapshot's entry always holds its last batch; this is defensive).
  if (last === undefined) return firstSeq === 0 ? APPEND : outOfOrder(0 as Sequence, firstSeq);
  return inSequence(last.lastSeq, firstSeq)
    ? APPEND
    : outOfOrder(incrementSequence(last.lastSeq, 1), firstSeq);
}
// #endregion kafka-rules

function outOfOrder(expected: Sequence, got: Sequence): ProducerVerdict {
  return { kind: 'OutOfOrderSequence', expected, got };
}
