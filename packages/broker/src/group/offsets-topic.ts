/**
 * `__consumer_offsets`, the internal, compacted topic where the group coordinator keeps its state, as
 * Kafka keeps it: created on first use with `offsets.topic.num.partitions` partitions, a group's records on
 * partition `abs(groupId.hashCode()) % n`, read back on start (Kafka's `CoordinatorLoaderImpl`: every
 * record, in order, replayed), and compacted by the storage's own compaction so that the log keeps the last
 * value of each key — a group's latest metadata and each partition's latest offset, or their tombstones.
 */
import { offsetsPartitionFor } from '@klog/protocol';
import { type BrokerLog, LogError } from '../log-port.js';
import type { Logger } from '../logger.js';
import {
  type GroupCoordinator,
  type GroupLog,
  GroupLogError,
  type OffsetsRecord,
} from './group-coordinator.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

/** Kafka's `Topic.isInternal`: topics clients may read but never produce to. */
export function isInternalTopic(topic: string): boolean {
  return topic === OFFSETS_TOPIC;
}

export class OffsetsTopic implements GroupLog {
  /** Segments each partition had at its last compaction: a partition is cleaned again once it rolled. */
  readonly #cleanedAt = new Map<number, number>();

  constructor(
    private readonly log: BrokerLog,
    private readonly configuredPartitions: number,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** Partitions of the topic: as it exists on disk, or as configured before it does. */
  get partitions(): number {
    return this.log.topics().get(OFFSETS_TOPIC) ?? this.configuredPartitions;
  }

  get exists(): boolean {
    return this.log.topics().has(OFFSETS_TOPIC);
  }

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitions);
  }

  /** Creates the topic if it is not there yet (Kafka does on the first FindCoordinator of a group). */
  ensure(): void {
    if (this.exists) return;
    this.log.createTopic(OFFSETS_TOPIC, this.configuredPartitions);
    this.logger.info(
      `created ${OFFSETS_TOPIC} with ${this.configuredPartitions} partitions (offsets.topic.num.partitions)`,
    );
  }

  append(groupId: string, records: readonly OffsetsRecord[]): void {
    try {
      this.ensure();
      const p = this.log.partition(OFFSETS_TOPIC, this.partitionFor(groupId));
      if (p === undefined)
        throw new LogError(
          'UNKNOWN_TOPIC_OR_PARTITION',
          `${OFFSETS_TOPIC} has no partition ${this.partitionFor(groupId)}`,
        );
      p.appendRecords(records, this.now());
    } catch (error) {
      if (error instanceof LogError) throw new GroupLogError(error.code, error.message);
      throw error;
    }
  }

  /**
   * Replays every record of every partition into the coordinator, then lets it start its members'
   * session timers. Returns how many records were read.
   */
  load(coordinator: GroupCoordinator): number {
    let records = 0;
    if (this.exists) {
      const n = this.partitions;
      if (n !== this.configuredPartitions) {
        this.logger.warn(
          `${OFFSETS_TOPIC} has ${n} partitions, offsets.topic.num.partitions says ${this.configuredPartitions}: keeping ${n}`,
        );
      }
      for (let i = 0; i < n; i++) {
        const p = this.log.partition(OFFSETS_TOPIC, i);
        p?.readRecords((key, value, offset) => {
          records++;
          if (key === null)
            throw new LogError(
              'CORRUPT_MESSAGE',
              `${OFFSETS_TOPIC}-${i} at offset ${offset}: a record without a key`,
            );
          coordinator.replay(key, value);
        });
        this.#cleanedAt.set(i, p?.segmentCount ?? 1);
      }
    }
    coordinator.loaded();
    return records;
  }

  /**
   * Compacts each partition that rolled a segment since it was last cleaned (Kafka's log cleaner, which
   * cleans a log once enough of it is dirty; here, once a segment other than the active one is new).
   * `force` cleans every partition with more than one segment. Returns the records compaction removed.
   */
  clean(force = false): number {
    if (!this.exists) return 0;
    let removed = 0;
    for (let i = 0; i < this.partitions; i++) {
      const p = this.log.partition(OFFSETS_TOPIC, i);
      if (p === undefined || p.segmentCount < 2) continue;
      if (!force && p.segmentCount <= (this.#cleanedAt.get(i) ?? 1)) continue;
      const report = p.compact();
      removed += report.recordsBefore - report.recordsAfter;
      this.#cleanedAt.set(i, p.segmentCount);
      if (report.recordsBefore !== report.recordsAfter) {
        this.logger.debug(
          `${OFFSETS_TOPIC}-${i}: compacted ${report.segmentsCleaned} segment(s), ${report.recordsBefore} → ${report.recordsAfter} records`,
        );
      }
    }
    return removed;
  }
}
