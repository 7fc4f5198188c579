/**
 * `__consumer_offsets`, the internal, compacted topic where the group coordinator keeps its state, as
 * Kafka keeps it: created on first use by the one topic-creation path with `offsets.topic.num.partitions`
 * partitions and the coordinator's configs (Kafka's `GroupCoordinatorService.groupMetadataTopicConfigs`),
 * a group's records on partition `abs(groupId.hashCode()) % n`, read back on start (Kafka's
 * `CoordinatorLoaderImpl`: every record, in order, replayed). Otherwise it is an ordinary compacted topic:
 * storage's LogManager rolls, and compacts it on the cleaner's schedule, as every other, so that the log
 * keeps the last value of each key — a group's latest metadata and each partition's latest offset, or
 * their tombstones.
 */
import { offsetsPartitionFor } from '@klog/protocol';
import { LogError } from '../log/log-port.js';
import { createTopic, type TopicCreationContext } from '../log/topic-creation.js';
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

/** Kafka's `offsets.topic.segment.bytes` default: 100 MiB, smaller than other topics' so the cleaner gets to it. */
export const OFFSETS_TOPIC_SEGMENT_BYTES = 100 * 1024 * 1024;

/**
 * The configs `__consumer_offsets` is created with (Kafka's `groupMetadataTopicConfigs`): compacted, never
 * deleted by retention; batches kept in the codec they were written in; `offsets.topic.segment.bytes`.
 */
export function offsetsTopicConfigs(segmentBytes: number): { name: string; value: string }[] {
  return [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'compression.type', value: 'producer' },
    { name: 'segment.bytes', value: String(segmentBytes) },
  ];
}

export class OffsetsTopic implements GroupLog {
  readonly #configuredPartitions: number;
  readonly #segmentBytes: number;

  constructor(
    private readonly topics: TopicCreationContext,
    options: {
      /** Kafka's `offsets.topic.num.partitions`. */
      readonly partitions: number;
      /** Kafka's `offsets.topic.segment.bytes` (default 100 MiB). */
      readonly segmentBytes?: number;
    },
    private readonly now: () => number,
  ) {
    this.#configuredPartitions = options.partitions;
    this.#segmentBytes = options.segmentBytes ?? OFFSETS_TOPIC_SEGMENT_BYTES;
  }

  /** Partitions of the topic: as it exists on disk, or as configured before it does. */
  get partitions(): number {
    return this.topics.log.topics().get(OFFSETS_TOPIC) ?? this.#configuredPartitions;
  }

  get exists(): boolean {
    return this.topics.log.topics().has(OFFSETS_TOPIC);
  }

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitions);
  }

  /**
   * Creates the topic if it is not there yet (Kafka does on the first FindCoordinator of a group, or a
   * Metadata asking for it), through the one creation path. Throws LogError.
   */
  ensure(): void {
    if (this.exists) return;
    const created = createTopic(this.topics, {
      name: OFFSETS_TOPIC,
      partitions: this.#configuredPartitions,
      configs: offsetsTopicConfigs(this.#segmentBytes),
      reason: 'the group coordinator, offsets.topic.num.partitions',
    });
    if (created.kind === 'refused') throw new LogError(created.code, created.message);
  }

  /**
   * A topic made by a klog that kept no configs for it (it compacted the topic by its own rule): given the
   * coordinator's now, under any the user set since, so retention never deletes committed offsets.
   */
  #adoptConfigs(): void {
    const own = this.topics.topicConfigs.own(OFFSETS_TOPIC);
    if (own.has('cleanup.policy')) return;
    const configs = new Map(offsetsTopicConfigs(this.#segmentBytes).map((c) => [c.name, c.value]));
    this.topics.topicConfigs.set(OFFSETS_TOPIC, new Map([...configs, ...own]));
    this.topics.logger.info(`${OFFSETS_TOPIC}: had no cleanup.policy; given the group coordinator's configs`);
  }

  append(groupId: string, records: readonly OffsetsRecord[]): void {
    try {
      this.ensure();
      const p = this.topics.log.partition(OFFSETS_TOPIC, this.partitionFor(groupId));
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
      this.#adoptConfigs();
      const n = this.partitions;
      if (n !== this.#configuredPartitions) {
        this.topics.logger.warn(
          `${OFFSETS_TOPIC} has ${n} partitions, offsets.topic.num.partitions says ${this.#configuredPartitions}: keeping ${n}`,
        );
      }
      for (let i = 0; i < n; i++) {
        const p = this.topics.log.partition(OFFSETS_TOPIC, i);
        p?.readRecords((key, value, offset) => {
          records++;
          if (key === null)
            throw new LogError(
              'CORRUPT_MESSAGE',
              `${OFFSETS_TOPIC}-${i} at offset ${offset}: a record without a key`,
            );
          coordinator.replay(key, value);
        });
      }
    }
    coordinator.loaded();
    return records;
  }
}
