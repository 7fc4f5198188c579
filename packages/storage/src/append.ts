import { buildPlainBatch, NO_PRODUCER } from './batch-builder.js';
import { validateTimestamp } from './batch-validator.js';
import { StorageError } from './errors.js';
import type { LogAppendInfo } from './log.js';
import type { Partition } from './partition.js';
import type { RecordInput } from './record.js';

/** Append records with no producer (the three producer fields -1): chapter 3's write path. */
export function appendRecords(
  partition: Partition,
  records: readonly RecordInput[],
  nowMs: number,
): LogAppendInfo {
  if (records.length === 0) throw new StorageError('INVALID_RECORD', 'a batch needs at least one record');
  validateTimestamp(nowMs);
  const log = partition.log;
  const header = {
    attributes: 0,
    lastOffsetDelta: records.length - 1,
    recordsCount: records.length,
    maxTimestamp: nowMs,
    ...NO_PRODUCER,
  };
  return log.appendBuiltBatch(buildPlainBatch(records, log.logEndOffset, nowMs), header);
}
