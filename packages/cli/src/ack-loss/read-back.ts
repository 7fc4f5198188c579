import { join } from 'node:path';
import { incrementSequence, type Sequence } from '@klog/core';
import { Log, partitionDirName } from '@klog/storage';

/** One record as the segment files hold it, with the producer fields of its batch. */
export interface LogRecord {
  readonly offset: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly producerId: number;
  readonly producerEpoch: number;
  /** The record's sequence number (the batch's base sequence + its offset delta), −1 without a producer. */
  readonly sequence: number;
}

/**
 * Reads a partition back from its segment files, every record from the log start to the log end, once the
 * broker that wrote it has stopped (opening the log takes the directory's lock: a broker still holding it
 * would be refused, not raced).
 */
export function readPartition(dataDir: string, topic: string, partition: number): LogRecord[] {
  const log = Log.open(join(dataDir, partitionDirName(topic, partition)));
  try {
    const out: LogRecord[] = [];
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const batches = log.readCheckedBatches(offset);
      if (batches.length === 0)
        throw new Error(
          `${topic}-${partition}: no batch at offset ${offset} before the log end ${log.logEndOffset}`,
        );
      for (const batch of batches) {
        for (const r of batch.records) {
          const at = batch.baseOffset + r.offsetDelta;
          if (at < offset) continue;
          out.push({
            offset: at,
            key: r.key === null ? null : Buffer.from(r.key).toString('utf8'),
            value: r.value === null ? null : Buffer.from(r.value).toString('utf8'),
            producerId: batch.producerId,
            producerEpoch: batch.producerEpoch,
            sequence:
              batch.baseSequence < 0 ? -1 : incrementSequence(batch.baseSequence as Sequence, r.offsetDelta),
          });
        }
        offset = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
    }
    return out;
  } finally {
    log.close();
  }
}
