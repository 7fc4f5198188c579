import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { NUM_BATCHES_TO_RETAIN } from '@klog/core';
import { rewriteBatch } from './batch-builder.js';
import { fsyncDirectory, Log, swapDirs } from './log.js';
import type { Partition } from './partition.js';
import type { Record } from './record.js';
import type { RecordBatch } from './record-batch.js';

export interface CompactionOptions {
  /** Drop tombstones (null values) too, instead of keeping the latest one per key. Default false. */
  readonly removeTombstones?: boolean;
}

export interface CompactionReport {
  readonly segmentsBefore: number;
  readonly segmentsAfter: number;
  readonly batchesBefore: number;
  readonly batchesAfter: number;
  readonly recordsBefore: number;
  readonly recordsAfter: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

function keyOf(record: Record): string | undefined {
  return record.key === null
    ? undefined
    : Buffer.from(record.key.buffer, record.key.byteOffset, record.key.length).toString('latin1');
}

/**
 * Key-based compaction (chapter 6, Kafka's `LogCleaner`): for each key only the
 * record with the highest offset survives; a null value is a tombstone that hides
 * older values; records without a key are kept.
 *
 * Batches are rewritten with `rewriteBatch`, which keeps producerId, producerEpoch,
 * baseSequence and the batch's first and last offset. Kafka keeps an emptied batch
 * only when it is a producer's last one, because its `.snapshot` files hold the rest
 * of the window; klog has no snapshots, so it keeps each producer's last
 * NUM_BATCHES_TO_RETAIN batches even when emptied, and the log's last batch (so the
 * log end offset survives). Everything else emptied is dropped.
 *
 * The cleaned log is written to a sibling directory (`swapDirs`), fsynced, then swapped in by
 * renaming directories; a crash at any point leaves the old log or the new one,
 * never a mix (`Log.open` finishes or undoes an interrupted swap).
 */
export function compact(partition: Partition, options: CompactionOptions = {}): CompactionReport {
  const log = partition.log;
  if (log.size === 0) {
    const n = log.segments.length;
    return {
      segmentsBefore: n,
      segmentsAfter: n,
      batchesBefore: 0,
      batchesAfter: 0,
      recordsBefore: 0,
      recordsAfter: 0,
      bytesBefore: 0,
      bytesAfter: 0,
    };
  }
  const latest = new Map<string, number>();
  const recentProducerBatches = new Map<number, number[]>();
  let batchesBefore = 0;
  let recordsBefore = 0;
  let lastBatchOffset = -1;
  for (const { batch } of log.batches()) {
    batchesBefore++;
    recordsBefore += batch.records.length;
    lastBatchOffset = batch.baseOffset;
    for (const record of batch.records) {
      const key = keyOf(record);
      if (key !== undefined) latest.set(key, batch.baseOffset + record.offsetDelta);
    }
    if (batch.producerId >= 0) {
      const recent = recentProducerBatches.get(batch.producerId) ?? [];
      recent.push(batch.baseOffset);
      if (recent.length > NUM_BATCHES_TO_RETAIN) recent.shift();
      recentProducerBatches.set(batch.producerId, recent);
    }
  }
  // #region compaction-must-keep fragment
  const mustKeep = (batch: RecordBatch) =>
    batch.baseOffset === lastBatchOffset ||
    (batch.producerId >= 0 && (recentProducerBatches.get(batch.producerId) ?? []).includes(batch.baseOffset));
  // #endregion compaction-must-keep fragment
  const survives = (batch: RecordBatch, record: Record) => {
    const key = keyOf(record);
    if (key === undefined) return true;
    if (latest.get(key) !== batch.baseOffset + record.offsetDelta) return false;
    return !(options.removeTombstones && record.value === null);
  };

  const { cleaned: cleanedDir, old: oldDir } = swapDirs(log.dir);
  rmSync(cleanedDir, { recursive: true, force: true });
  mkdirSync(cleanedDir);
  const config = log.config;
  const cleaned = Log.open(cleanedDir, config);
  let batchesAfter = 0;
  let recordsAfter = 0;
  try {
    for (const { batch } of log.batches()) {
      const kept = batch.records.filter((r) => survives(batch, r));
      if (kept.length === 0 && !mustKeep(batch)) continue;
      const bytes = rewriteBatch(batch, kept);
      cleaned.appendBatchKeepingOffsets(bytes);
      batchesAfter++;
      recordsAfter += kept.length;
    }
    cleaned.close();
    fsyncDirectory(cleanedDir);
  } catch (error) {
    cleaned.close();
    rmSync(cleanedDir, { recursive: true, force: true });
    throw error;
  }
  const report: CompactionReport = {
    segmentsBefore: log.segments.length,
    segmentsAfter: 0,
    batchesBefore,
    batchesAfter,
    recordsBefore,
    recordsAfter,
    bytesBefore: log.size,
    bytesAfter: 0,
  };
  log.close();
  renameSync(log.dir, oldDir);
  renameSync(cleanedDir, log.dir);
  fsyncDirectory(dirname(log.dir));
  rmSync(oldDir, { recursive: true, force: true });
  partition.reopen();
  return { ...report, segmentsAfter: partition.log.segments.length, bytesAfter: partition.log.size };
}
