import type { RecordInput } from '../format/record.js';
import type { LogAppendInfo } from '../log/log.js';
import type { Partition } from './partition.js';

/** Append records with no producer (the three producer fields -1): chapter 3's write path, over `Partition.append`. */
export function appendRecords(
  partition: Partition,
  records: readonly RecordInput[],
  nowMs: number,
): LogAppendInfo {
  const result = partition.append({ origin: 'klog', records, nowMs });
  // A batch without a producer is never judged: always appended.
  return (result as Extract<typeof result, { kind: 'Append' }>).appended;
}
