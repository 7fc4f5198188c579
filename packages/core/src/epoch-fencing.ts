import type { ProducerEpoch, Sequence } from './numbers.js';
import { NO_PRODUCER_EPOCH, type ProducerStateEntry } from './producer-state-entry.js';
import { judge, type Verdict } from './verdict.js';

/**
 * Epoch fencing, a separate step the chapter's broker does not take. Kafka's
 * `ProducerAppendInfo.checkProducerEpoch` rejects an epoch older than the one the
 * broker has seen (a zombie producer), and `checkSequence` makes a newer epoch
 * start again at sequence 0; appending under the new epoch then clears the window
 * (`ProducerStateEntry.maybeUpdateProducerEpoch`).
 */
export type InvalidProducerEpoch = {
  readonly kind: 'InvalidProducerEpoch';
  readonly current: ProducerEpoch;
  readonly got: ProducerEpoch;
};

export type FencedVerdict = Verdict | InvalidProducerEpoch;

/** `judge`, preceded by Kafka's epoch rules: an older epoch is fenced, a newer one must start at 0. */
export function judgeWithFencing(
  entry: ProducerStateEntry,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): FencedVerdict {
  const current = entry.producerEpoch;
  if (current !== NO_PRODUCER_EPOCH && epoch < current) {
    return { kind: 'InvalidProducerEpoch', current, got: epoch };
  }
  if (current !== NO_PRODUCER_EPOCH && epoch > current) {
    if (firstSeq === 0) return { kind: 'Append' };
    return { kind: 'OutOfOrderSequence', expected: 0 as Sequence, got: firstSeq };
  }
  return judge(entry, epoch, firstSeq, lastSeq);
}
