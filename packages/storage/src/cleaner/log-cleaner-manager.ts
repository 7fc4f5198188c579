import type { Partition } from '../partition/partition.js';
import type { CompactionReport } from './compaction.js';

/** A compaction the cleaner ran on one partition. */
export interface CleanedLog {
  readonly report: CompactionReport;
  /** Whether tombstones were dropped too (`delete.retention.ms` had passed). */
  readonly tombstonesRemoved: boolean;
}

/**
 * Which compacted log to clean and how (Kafka's `LogCleanerManager`, with the decision `LogCleaner` makes
 * per log): a log is cleaned once the uncleaned ("dirty") share of its inactive bytes reaches its
 * `min.cleanable.dirty.ratio` and its newest inactive record is `min.compaction.lag.ms` old; tombstones
 * are dropped once that record is `delete.retention.ms` old. The active segment is never cleaned.
 *
 * klog keeps no cleaner checkpoint (Kafka's `cleaner-offset-checkpoint`): after a restart a compacted
 * log's segments count as dirty once, and the first pass cleans them again (nothing changes but time).
 */
export class LogCleanerManager {
  /** Per partition (`<topic>-<partition>`), the first base offset not yet cleaned: segments from there on are dirty. */
  readonly #cleanedUpTo = new Map<string, number>();

  /** Cleans `partition` if its config compacts it and it is dirty enough; undefined when it was left alone. */
  cleanIfDirty(partition: Partition, now: number): CleanedLog | undefined {
    const config = partition.log.config;
    if (!config.compact) return undefined;
    const inactive = partition.log.segments.slice(0, -1);
    const newest = inactive.at(-1);
    if (newest === undefined) return undefined;
    const key = `${partition.topic}-${partition.partition}`;
    const from = this.#cleanedUpTo.get(key) ?? 0;
    let total = 0;
    let dirty = 0;
    for (const segment of inactive) {
      total += segment.size;
      if (segment.baseOffset >= from) dirty += segment.size;
    }
    if (total === 0 || dirty === 0 || dirty / total < config.minCleanableDirtyRatio) return undefined;
    const newestTimestamp = newest.maxTimestamp();
    if (now - newestTimestamp < config.minCompactionLagMs) return undefined;
    const tombstonesRemoved = now - newestTimestamp >= config.deleteRetentionMs;
    const report = partition.compact({ removeTombstones: tombstonesRemoved });
    this.#cleanedUpTo.set(key, newest.baseOffset + 1);
    return { report, tombstonesRemoved };
  }

  /** A topic's partitions are gone (deleted): so is what the cleaner knew of them. */
  forget(topic: string): void {
    for (const key of [...this.#cleanedUpTo.keys()]) {
      if (key.slice(0, key.lastIndexOf('-')) === topic) this.#cleanedUpTo.delete(key);
    }
  }
}
