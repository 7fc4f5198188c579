import { readFileSync } from 'node:fs';
import { StorageError } from '../errors.js';
import { writeFileWhole } from '../io/write-file-whole.js';
import type { LogConfig } from '../log/log-config.js';
import type { Partition } from '../partition/partition.js';
import type { CompactionReport } from './compaction.js';

/** A compaction the cleaner ran on one partition. */
export interface CleanedLog {
  readonly report: CompactionReport;
  /** Whether tombstones were dropped too (`delete.retention.ms` had passed). */
  readonly tombstonesRemoved: boolean;
}

/**
 * One segment as a background pass sees it without opening the partition (Kafka's `LogSegment` as the
 * cleaner's and retention's checks read it: base offset, size, newest timestamp). `maxTimestamp` is read
 * only when asked: -1 when the segment holds no timestamp, undefined when it cannot be read cheaply.
 */
export interface SegmentSummary {
  readonly baseOffset: number;
  readonly size: number;
  maxTimestamp(): number | undefined;
}

/** Kafka's name of the file, in the data directory: `OffsetCheckpointFile` format, version 0. */
export const CLEANER_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';

/**
 * Which compacted log to clean and how (Kafka's `LogCleanerManager`, with the decision `LogCleaner` makes
 * per log): a log is cleaned once the uncleaned ("dirty") share of its inactive bytes reaches its
 * `min.cleanable.dirty.ratio` and its newest inactive record is `min.compaction.lag.ms` old; tombstones
 * are dropped once that record is `delete.retention.ms` old. The active segment is never cleaned.
 *
 * Where each log was cleaned up to is kept in Kafka's `cleaner-offset-checkpoint` (version line `0`, a
 * count line, then `topic partition offset` lines), so a restart does not clean every compacted log again.
 */
export class LogCleanerManager {
  /** Per partition (`<topic>-<partition>`), Kafka's first dirty offset: segments from there on are dirty. */
  readonly #cleanedUpTo = new Map<string, { topic: string; partition: number; offset: number }>();
  #changed = false;

  /**
   * Reads the checkpoint of `path` (Kafka's `OffsetCheckpointFile.read`), keeping only partitions `exists`
   * knows (a topic deleted meanwhile is dropped from it). A missing file is an empty checkpoint; a damaged
   * one is refused with KAFKA_STORAGE_ERROR, as Kafka refuses it.
   */
  constructor(
    readonly path: string,
    exists: (topic: string, partition: number) => boolean,
  ) {
    let text: string;
    try {
      text = readFileSync(path, 'latin1');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new StorageError('KAFKA_STORAGE_ERROR', `read ${path}: ${(error as Error).message}`, { path });
    }
    const bad = (why: string) =>
      new StorageError('KAFKA_STORAGE_ERROR', `${path} is no cleaner checkpoint: ${why}`, { path });
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines[0] !== '0') throw bad(`version ${JSON.stringify(lines[0] ?? '')}, expected 0`);
    const count = Number(lines[1]);
    if (!Number.isSafeInteger(count) || count !== lines.length - 2) {
      throw bad(`count line ${JSON.stringify(lines[1] ?? '')} for ${lines.length - 2} entries`);
    }
    for (const line of lines.slice(2)) {
      // The topic may not hold a space (Kafka's legal characters), so the last two fields are the numbers.
      const m = /^(\S+) (0|[1-9]\d*) (0|[1-9]\d*)$/.exec(line);
      if (m === null) throw bad(`line ${JSON.stringify(line)}`);
      const [topic, partition, offset] = [m[1]!, Number(m[2]), Number(m[3])];
      if (exists(topic, partition))
        this.#cleanedUpTo.set(`${topic}-${partition}`, { topic, partition, offset });
      else this.#changed = true;
    }
  }

  /**
   * Whether a log whose segments are `segments` (oldest first, the active one last) is to be cleaned now:
   * decided from sizes and, only when the ratio says so, the newest inactive segment's timestamp, so a pass
   * opens no partition that has nothing to clean. A timestamp that cannot be read says yes: the opened log
   * decides again (`cleanIfDirty`).
   */
  needsCleaning(
    topic: string,
    partition: number,
    config: LogConfig,
    segments: readonly SegmentSummary[],
    now: number,
  ): boolean {
    return this.#decide(`${topic}-${partition}`, config, segments, now) !== undefined;
  }

  #decide(
    key: string,
    config: LogConfig,
    segments: readonly SegmentSummary[],
    now: number,
  ): { tombstonesRemoved: boolean } | undefined {
    if (!config.compact) return undefined;
    // Kafka's LogCleanerManager.cleanableOffsets: the active segment is never cleanable.
    const inactive = segments.slice(0, -1);
    const newest = inactive.at(-1);
    if (newest === undefined) return undefined;
    const from = this.#cleanedUpTo.get(key)?.offset ?? 0;
    let total = 0;
    let dirty = 0;
    for (const segment of inactive) {
      total += segment.size;
      if (segment.baseOffset >= from) dirty += segment.size;
    }
    if (total === 0 || dirty === 0 || dirty / total < config.minCleanableDirtyRatio) return undefined;
    const newestTimestamp = newest.maxTimestamp();
    if (newestTimestamp === undefined) return { tombstonesRemoved: false };
    if (now - newestTimestamp < config.minCompactionLagMs) return undefined;
    return { tombstonesRemoved: now - newestTimestamp >= config.deleteRetentionMs };
  }

  /** Cleans `partition` if its config compacts it and it is dirty enough; undefined when it was left alone. */
  cleanIfDirty(partition: Partition, now: number): CleanedLog | undefined {
    const segments = partition.log.segments;
    const key = `${partition.topic}-${partition.partition}`;
    const decision = this.#decide(key, partition.log.config, segments, now);
    // An open log's segments read their timestamps from their indexes: the decision here is the last word.
    if (decision === undefined) return undefined;
    const firstUncleanable = segments.at(-1)!.baseOffset;
    const report = partition.compact({ removeTombstones: decision.tombstonesRemoved });
    this.#cleanedUpTo.set(key, {
      topic: partition.topic,
      partition: partition.partition,
      offset: firstUncleanable,
    });
    this.#changed = true;
    return { report, tombstonesRemoved: decision.tombstonesRemoved };
  }

  /** A topic's partitions are gone (deleted): so is what the cleaner knew of them. */
  forget(topic: string): void {
    for (const [key, entry] of this.#cleanedUpTo) {
      if (entry.topic === topic) {
        this.#cleanedUpTo.delete(key);
        this.#changed = true;
      }
    }
  }

  /**
   * Writes the checkpoint if it changed since it was read or last written (Kafka's
   * `LogCleanerManager.updateCheckpoints`, once per pass here rather than per log: one file of every
   * compacted partition rewritten per cleaning would grow with the partitions squared).
   */
  writeCheckpoint(): void {
    if (!this.#changed) return;
    const lines = ['0', String(this.#cleanedUpTo.size)];
    for (const { topic, partition, offset } of this.#cleanedUpTo.values())
      lines.push(`${topic} ${partition} ${offset}`);
    writeFileWhole(this.path, Buffer.from(`${lines.join('\n')}\n`, 'latin1'), 'write', 'cleaner checkpoint');
    this.#changed = false;
  }
}
