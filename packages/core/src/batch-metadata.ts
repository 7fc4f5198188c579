import type { Sequence } from './numbers.js';
import { decrementSequence } from './sequence.js';

// #region batch-metadata
/**
 * The four numbers the broker keeps per batch, and nothing more: Kafka's
 * `BatchMetadata` (a `public class` with four `public final` fields at tag 4.1.0).
 * `firstSeq` and `firstOffset` are derived from `offsetDelta`, never stored, so a
 * batch of one record and a batch of a thousand cost the broker the same.
 */
export class BatchMetadata {
  constructor(
    readonly lastSeq: Sequence,
    readonly lastOffset: number,
    /** records in the batch − 1 (the header's lastOffsetDelta) */
    readonly offsetDelta: number,
    readonly timestamp: number,
  ) {}

  firstSeq(): Sequence {
    return decrementSequence(this.lastSeq, this.offsetDelta);
  }

  firstOffset(): number {
    return this.lastOffset - this.offsetDelta;
  }
}
// #endregion batch-metadata
