import type { TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import { type TopicPartitions, toTopicPartitions } from '../assignment.js';
import type { MemberState } from '../member-state.js';
import type { ClassicMemberMetadata, ConsumerGroupMember } from './consumer-group-member.js';

/*
 * The consumer-group records of `__consumer_offsets` as typed objects, keyed by Kafka's record type number
 * (K: GroupCoordinatorRecordHelpers, the *Key/*Value message JSON). The value interfaces are the §2 contract
 * of @klog/protocol's consumer-group-records codecs; encoding happens at the coordinator's edge, so this
 * engine produces and replays objects only. A null value is a tombstone.
 */

export interface ConsumerGroupMetadataValue {
  readonly epoch: number;
  /** KIP-1101 MetadataHash (tag 0): a full int64, hence bigint. */
  readonly metadataHash: bigint;
}
export interface ConsumerGroupMemberMetadataValue {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly serverAssignor: string | null;
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}
export interface ConsumerGroupTargetAssignmentMetadataValue {
  readonly assignmentEpoch: number;
}
export interface ConsumerGroupTargetAssignmentMemberValue {
  readonly topicPartitions: TopicPartitions;
}
export interface ConsumerGroupCurrentMemberAssignmentValue {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly assignedPartitions: TopicPartitions;
  readonly partitionsPendingRevocation: TopicPartitions;
}
export interface ConsumerGroupRegularExpressionValue {
  readonly topics: readonly string[];
  readonly version: number;
  readonly timestamp: number;
}

export type ConsumerGroupRecord =
  /**
   * A classic group's GroupMetadata record (key type 2), already encoded: the one classic record a consumer
   * group's op writes, when a downgrade turns the group into a classic one (Kafka's `convertToClassicGroup`).
   * The coordinator replays it as the classic record it is.
   */
  | { readonly type: 2; readonly group: string; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly type: 3; readonly group: string; readonly value: ConsumerGroupMetadataValue | null }
  /** ConsumerGroupPartitionMetadata: read (value content unused) and tombstoned, never written by Kafka 4.1. */
  | { readonly type: 4; readonly group: string; readonly value: object | null }
  | {
      readonly type: 5;
      readonly group: string;
      readonly memberId: string;
      readonly value: ConsumerGroupMemberMetadataValue | null;
    }
  | {
      readonly type: 6;
      readonly group: string;
      readonly value: ConsumerGroupTargetAssignmentMetadataValue | null;
    }
  | {
      readonly type: 7;
      readonly group: string;
      readonly memberId: string;
      readonly value: ConsumerGroupTargetAssignmentMemberValue | null;
    }
  | {
      readonly type: 8;
      readonly group: string;
      readonly memberId: string;
      readonly value: ConsumerGroupCurrentMemberAssignmentValue | null;
    }
  | {
      readonly type: 16;
      readonly group: string;
      readonly regex: string;
      readonly value: ConsumerGroupRegularExpressionValue | null;
    };

// Kafka's GroupCoordinatorRecordHelpers, one function per helper, by the same names.

export function newConsumerGroupMemberSubscriptionRecord(
  group: string,
  m: ConsumerGroupMember,
): ConsumerGroupRecord {
  return {
    type: 5,
    group,
    memberId: m.memberId,
    value: {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      // Kafka sorts the names here so equal subscriptions write equal records.
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classicMemberMetadata,
    },
  };
}

export function newConsumerGroupMemberSubscriptionTombstoneRecord(
  group: string,
  memberId: string,
): ConsumerGroupRecord {
  return { type: 5, group, memberId, value: null };
}

export function newConsumerGroupSubscriptionMetadataTombstoneRecord(group: string): ConsumerGroupRecord {
  return { type: 4, group, value: null };
}

export function newConsumerGroupEpochRecord(
  group: string,
  epoch: number,
  metadataHash: bigint,
): ConsumerGroupRecord {
  return { type: 3, group, value: { epoch, metadataHash } };
}

export function newConsumerGroupEpochTombstoneRecord(group: string): ConsumerGroupRecord {
  return { type: 3, group, value: null };
}

export function newConsumerGroupTargetAssignmentRecord(
  group: string,
  memberId: string,
  partitions: TopicPartitionsMap,
): ConsumerGroupRecord {
  return { type: 7, group, memberId, value: { topicPartitions: toTopicPartitions(partitions) } };
}

export function newConsumerGroupTargetAssignmentTombstoneRecord(
  group: string,
  memberId: string,
): ConsumerGroupRecord {
  return { type: 7, group, memberId, value: null };
}

export function newConsumerGroupTargetAssignmentEpochRecord(
  group: string,
  assignmentEpoch: number,
): ConsumerGroupRecord {
  return { type: 6, group, value: { assignmentEpoch } };
}

export function newConsumerGroupTargetAssignmentEpochTombstoneRecord(group: string): ConsumerGroupRecord {
  return { type: 6, group, value: null };
}

export function newConsumerGroupCurrentAssignmentRecord(
  group: string,
  m: ConsumerGroupMember,
): ConsumerGroupRecord {
  return {
    type: 8,
    group,
    memberId: m.memberId,
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assignedPartitions: toTopicPartitions(m.assignedPartitions),
      partitionsPendingRevocation: toTopicPartitions(m.partitionsPendingRevocation),
    },
  };
}

export function newConsumerGroupCurrentAssignmentTombstoneRecord(
  group: string,
  memberId: string,
): ConsumerGroupRecord {
  return { type: 8, group, memberId, value: null };
}

export function newConsumerGroupRegularExpressionRecord(
  group: string,
  regex: string,
  resolved: ConsumerGroupRegularExpressionValue,
): ConsumerGroupRecord {
  return { type: 16, group, regex, value: resolved };
}

export function newConsumerGroupRegularExpressionTombstone(
  group: string,
  regex: string,
): ConsumerGroupRecord {
  return { type: 16, group, regex, value: null };
}
