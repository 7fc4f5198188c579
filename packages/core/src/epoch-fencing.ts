import type { ProducerEpoch, Sequence } from './numbers.js';
import { NO_PRODUCER_EPOCH, type ProducerStateEntry } from './producer-state-entry.js';
import type { ProducerVerdict } from './producer-verdict.js';
import { judge } from './verdict.js';

/**
 * The rule `'chapter-fencing'`: the chapter's `judge`, after an epoch check the chapter's broker does not
 * make. Kafka's `ProducerAppendInfo.checkProducerEpoch` rejects an epoch older than the one the broker has
 * seen (a zombie producer), and `checkSequence` makes a newer epoch start again at sequence 0; appending
 * under the new epoch then clears the window (`ProducerStateEntry.maybeUpdateProducerEpoch`).
 */
export function chapterRuleWithFencing(
  entry: ProducerStateEntry,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): ProducerVerdict {
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
