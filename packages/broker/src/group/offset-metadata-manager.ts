/**
 * Committed offsets, as Kafka 4.1's `OffsetMetadataManager` keeps them: OffsetCommit (`commitOffset`),
 * OffsetFetch (`fetchOffsets`, `fetchAllOffsets`), OffsetDelete (`deleteOffsets`), expiry
 * (`cleanupExpiredOffsets`), and the deletion of a group's offsets with the group. A write operation only
 * returns the records it needs; the offsets change in `replay`, when the records are written or read back
 * from the log at start, so that one path says what a record means.
 */
import { decodeOffsetCommitValue, type ErrorName } from '@klog/protocol';
import { ClassicGroup } from './classic/classic-group.js';
import type { CoordinatorResult, OffsetsRecord } from './coordinator-runtime.js';
import type { Group } from './group.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import type { CommittedOffset } from './offset-and-metadata.js';
import { newOffsetCommitRecord, newOffsetCommitTombstoneRecord } from './record-helpers.js';
import type { CoordinatorTimer } from './timer.js';

export interface CommitInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /**
   * The request's version: a consumer group's member must commit with v9 or later (KIP-848), and from v9
   * an unknown group is GROUP_ID_NOT_FOUND.
   */
  readonly apiVersion: number;
  /** OffsetCommit v2-v4: -1, or how long the offsets are kept. */
  readonly retentionTimeMs: number;
  readonly topics: readonly {
    readonly name: string;
    readonly partitions: readonly {
      readonly partitionIndex: number;
      readonly committedOffset: number;
      readonly committedLeaderEpoch: number;
      readonly committedMetadata: string | null;
      /** OffsetCommit v1: the client's commit time, -1 (or absent) for the coordinator's clock. */
      readonly commitTimestamp?: number;
    }[];
  }[];
}

export interface TopicPartitionErrors {
  readonly name: string;
  readonly partitions: { partitionIndex: number; errorCode: ErrorName }[];
}

export type { CommittedOffset } from './offset-and-metadata.js';

export interface FetchedOffsets {
  readonly errorCode: ErrorName;
  readonly topics: {
    name: string;
    partitions: ({ partitionIndex: number; errorCode: ErrorName } & CommittedOffset)[];
  }[];
}

/** What a topic-partition check says: the broker knows it, or the Kafka error for a commit to it. */
export type PartitionCheck = (topic: string, partition: number) => boolean;

const NO_OFFSET: CommittedOffset = {
  offset: -1,
  leaderEpoch: -1,
  metadata: '',
  commitTimestamp: -1,
  expireTimestamp: -1,
};

/** Kafka's `OffsetMetadataManager.Offsets`: group → topic → partition → offset. Changed only by `replay`. */
class Offsets {
  readonly #byGroup = new Map<string, Map<string, Map<number, CommittedOffset>>>();

  group(groupId: string): Map<string, Map<number, CommittedOffset>> | undefined {
    return this.#byGroup.get(groupId);
  }

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.#byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, value: CommittedOffset): void {
    let byTopic = this.#byGroup.get(groupId);
    if (byTopic === undefined) {
      byTopic = new Map();
      this.#byGroup.set(groupId, byTopic);
    }
    let parts = byTopic.get(topic);
    if (parts === undefined) {
      parts = new Map();
      byTopic.set(topic, parts);
    }
    parts.set(partition, value);
  }

  remove(groupId: string, topic: string, partition: number): void {
    const byTopic = this.#byGroup.get(groupId);
    const parts = byTopic?.get(topic);
    if (parts === undefined) return;
    parts.delete(partition);
    if (parts.size === 0) byTopic!.delete(topic);
    if (byTopic!.size === 0) this.#byGroup.delete(groupId);
  }
}

export class OffsetMetadataManager {
  readonly #offsets = new Offsets();

  constructor(
    private readonly groups: GroupMetadataManager,
    private readonly timer: CoordinatorTimer,
    private readonly config: GroupCoordinatorConfig,
    private readonly partitionExists: PartitionCheck,
  ) {}

  /**
   * Kafka's `commitOffset`: the member's check, then one record per partition that exists and whose
   * metadata fits. A refusal writes nothing. The group of a commit from outside the group protocol is
   * created by the replay of its first record, as Kafka's `replay` creates a simple classic group.
   */
  commitOffset(input: CommitInput): CoordinatorResult<TopicPartitionErrors[]> {
    const all = (errorCode: ErrorName): CoordinatorResult<TopicPartitionErrors[]> => ({
      records: [],
      response: input.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      })),
    });
    if (input.groupId === '') return all('INVALID_GROUP_ID');
    const now = this.timer.now();
    // Kafka's `OffsetMetadataManager.validateOffsetCommit`: the group of either protocol checks the member.
    const apiVersion = input.apiVersion;
    let group: Group | undefined = this.groups.anyGroup(input.groupId);
    if (group === undefined) {
      // From v9 an unknown group is GROUP_ID_NOT_FOUND; older versions keep ILLEGAL_GENERATION. Only the
      // generation (or member epoch) decides: librdkafka's assign() consumer commits with its own member id
      // and generation -1, and Kafka makes it a simple group all the same.
      if (input.generationId >= 0) return all(apiVersion >= 9 ? 'GROUP_ID_NOT_FOUND' : 'ILLEGAL_GENERATION');
      // Not kept: only a written commit makes the group (in replay).
      group = new ClassicGroup(input.groupId, now);
    }
    const invalid = group.validateOffsetCommit(
      input.memberId,
      input.groupInstanceId,
      input.generationId,
      apiVersion,
    );
    if (invalid !== undefined) return all(invalid);
    const records: OffsetsRecord[] = [];
    const response: TopicPartitionErrors[] = input.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        let errorCode: ErrorName = 'NONE';
        const metadata = p.committedMetadata ?? '';
        if (!this.partitionExists(t.name, p.partitionIndex)) errorCode = 'UNKNOWN_TOPIC_OR_PARTITION';
        else if (Buffer.byteLength(metadata) > this.config.offsetMetadataMaxBytes)
          errorCode = 'OFFSET_METADATA_TOO_LARGE';
        else {
          records.push(
            newOffsetCommitRecord(input.groupId, t.name, p.partitionIndex, {
              offset: p.committedOffset,
              leaderEpoch: p.committedLeaderEpoch,
              metadata,
              // As Kafka's OffsetAndMetadata.fromRequest: v1's own commit time if it sent one.
              commitTimestamp:
                p.commitTimestamp === undefined || p.commitTimestamp === -1 ? now : p.commitTimestamp,
              expireTimestamp: input.retentionTimeMs > 0 ? now + input.retentionTimeMs : -1,
            }),
          );
        }
        return { partitionIndex: p.partitionIndex, errorCode };
      }),
    }));
    return { records, response };
  }

  /**
   * Kafka's `fetchOffsets` and `fetchAllOffsets` (topics null): the committed offsets, -1 where none is.
   * The group checks the member first (`validateOffsetFetch`): a consumer group's member must name its
   * current epoch, while a fetch with no member id (an admin tool, OffsetFetch before v9) always may.
   */
  fetchOffsets(
    groupId: string,
    topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
    memberId: string | null = null,
    memberEpoch = -1,
  ): FetchedOffsets {
    const invalid = this.groups.anyGroup(groupId)?.validateOffsetFetch(memberId, memberEpoch);
    if (invalid !== undefined) return { errorCode: invalid, topics: [] };
    const byTopic = this.#offsets.group(groupId);
    if (topics === null) {
      return {
        errorCode: 'NONE',
        topics: [...(byTopic ?? new Map<string, Map<number, CommittedOffset>>())].map(([name, parts]) => ({
          name,
          partitions: [...parts]
            .sort((a, b) => a[0] - b[0])
            .map(([partitionIndex, o]) => ({ partitionIndex, errorCode: 'NONE' as ErrorName, ...o })),
        })),
      };
    }
    return {
      errorCode: 'NONE',
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({
          partitionIndex,
          errorCode: 'NONE' as ErrorName,
          ...(byTopic?.get(t.name)?.get(partitionIndex) ?? NO_OFFSET),
        })),
      })),
    };
  }

  /** Kafka's `deleteOffsets` (OffsetDelete, KIP-496): tombstones for offsets of topics the group does not consume now. */
  deleteOffsets(
    groupId: string,
    topics: readonly { name: string; partitions: readonly number[] }[],
  ): CoordinatorResult<{ errorCode: ErrorName; topics: TopicPartitionErrors[] }> {
    if (groupId === '') return { records: [], response: { errorCode: 'INVALID_GROUP_ID', topics: [] } };
    const group = this.groups.anyGroup(groupId);
    const invalid = group === undefined ? 'GROUP_ID_NOT_FOUND' : group.validateOffsetDelete();
    if (group === undefined || invalid !== undefined)
      return { records: [], response: { errorCode: invalid!, topics: [] } };
    const records: OffsetsRecord[] = [];
    const results = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partitionIndex) => {
        if (group.isSubscribedToTopic(t.name))
          return { partitionIndex, errorCode: 'GROUP_SUBSCRIBED_TO_TOPIC' as ErrorName };
        if (this.#offsets.get(groupId, t.name, partitionIndex) !== undefined)
          records.push(newOffsetCommitTombstoneRecord(groupId, t.name, partitionIndex));
        return { partitionIndex, errorCode: 'NONE' as ErrorName };
      }),
    }));
    return { records, response: { errorCode: 'NONE', topics: results } };
  }

  /** Kafka's `deleteAllOffsets`: a tombstone for each of the group's offsets (DeleteGroups). */
  deleteAllOffsets(groupId: string, records: OffsetsRecord[]): void {
    for (const [topic, parts] of this.#offsets.group(groupId) ?? []) {
      for (const p of parts.keys()) records.push(newOffsetCommitTombstoneRecord(groupId, topic, p));
    }
  }

  /**
   * Kafka's `cleanupExpiredOffsets` (`offsets.retention.minutes`): per the group's
   * `offsetExpirationCondition` (none in a rebalancing or non-`consumer` busy group), an offset of a topic
   * the group does not consume now expires; adds a tombstone for each. True when none of the group's
   * offsets is left, so the group itself may go.
   */
  cleanupExpiredOffsets(groupId: string, records: OffsetsRecord[]): boolean {
    const byTopic = this.#offsets.group(groupId);
    if (byTopic === undefined) return true;
    const group = this.groups.anyGroup(groupId);
    const condition = group?.offsetExpirationCondition();
    if (group === undefined || condition === undefined) return false;
    const now = this.timer.now();
    const retention = this.config.offsetsRetentionMs;
    let kept = 0;
    for (const [topic, parts] of byTopic) {
      const subscribed = group.isSubscribedToTopic(topic);
      for (const [partition, o] of parts) {
        if (!subscribed && condition.isOffsetExpired(o, now, retention))
          records.push(newOffsetCommitTombstoneRecord(groupId, topic, partition));
        else kept++;
      }
    }
    return kept === 0;
  }

  /** Kafka's `replay` of an OffsetCommit record: an offset (the group made if it is new), or a tombstone. */
  replay(groupId: string, topic: string, partition: number, value: Uint8Array | null): void {
    if (value === null) {
      this.#offsets.remove(groupId, topic, partition);
      return;
    }
    const v = decodeOffsetCommitValue(value);
    // As Kafka's replay: a commit without a group of either protocol makes a simple classic group.
    if (this.groups.anyGroup(groupId) === undefined)
      this.groups.getOrMaybeCreateClassicGroup(groupId, v.commitTimestamp);
    this.#offsets.put(groupId, topic, partition, {
      offset: v.offset,
      leaderEpoch: v.leaderEpoch,
      metadata: v.metadata,
      commitTimestamp: v.commitTimestamp,
      expireTimestamp: v.expireTimestamp,
    });
  }
}
