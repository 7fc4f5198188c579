import { buildPlainBatch } from './batch-builder.js';
import { StorageError } from './errors.js';
import { appendBuiltBatch, type LogAppendInfo } from './log.js';
import type { Partition } from './partition.js';
import type { RecordInput } from './record.js';

/** Append records with no producer (the three producer fields -1): chapter 3's write path. */
export function appendRecords(
  partition: Partition,
  records: readonly RecordInput[],
  nowMs: number,
): LogAppendInfo {
  if (records.length === 0) throw new StorageError('a batch needs at least one record');
  const log = partition.log;
  return appendBuiltBatch(log, buildPlainBatch(records, log.logEndOffset, nowMs));
}
