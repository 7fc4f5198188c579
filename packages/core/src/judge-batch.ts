import { BatchMetadata } from './batch-metadata.js';
import { chapterRuleWithFencing } from './epoch-fencing.js';
import { kafkaRules } from './kafka-rules.js';
import type { ProducerEpoch, ProducerId, Sequence } from './numbers.js';
import type { ProducerState } from './producer-state.js';
import { ProducerStateEntry } from './producer-state-entry.js';
import type { ProducerVerdict } from './producer-verdict.js';
import { judge } from './verdict.js';

/**
 * Which rule judges a producer's batch:
 * - `'chapter'`: the chapter's `judge`: a new producer starts at 0, no epoch rules;
 * - `'chapter-fencing'`: the chapter's rule after Kafka's epoch checks (`chapterRuleWithFencing`);
 * - `'kafka'`: Kafka 4.1's rules (`kafkaRules`), as a broker applies them to real clients.
 */
export type SequenceRule = 'chapter' | 'chapter-fencing' | 'kafka';

/** The entry of a producer the partition has no state for, as the chapter's rules see it: nothing retained. */
const NO_ENTRY = new ProducerStateEntry(0 as ProducerId);

/**
 * Judge a producer's batch `[firstSeq, lastSeq]` at `epoch` by `rule` (Kafka's `ProducerAppendInfo`, before
 * `localLog.append`): the one judge every append and benchmark asks. `entry` is the producer's state on the
 * partition, undefined for a producer it has never seen (or has expired). Nothing is changed: once the batch
 * is on the log, `recordAppendedBatch` tells the window.
 */
export function judgeBatch(
  rule: SequenceRule,
  entry: ProducerStateEntry | undefined,
  epoch: ProducerEpoch,
  firstSeq: Sequence,
  lastSeq: Sequence,
): ProducerVerdict {
  switch (rule) {
    case 'kafka':
      return kafkaRules(entry, epoch, firstSeq, lastSeq);
    case 'chapter-fencing':
      return chapterRuleWithFencing(entry ?? NO_ENTRY, epoch, firstSeq, lastSeq);
    case 'chapter':
      return judge(entry ?? NO_ENTRY, epoch, firstSeq, lastSeq);
  }
}

/**
 * The batch is on the log: its producer's window learns of it (Kafka's `ProducerStateManager.update`; a
 * producer seen first now gets an entry).
 */
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
