import type { TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import { EMPTY_ASSIGNMENT } from '../assignment.js';
import { MemberState } from '../member-state.js';

/** Kafka's `ConsumerGroupMemberMetadataValue.ClassicMemberMetadata` (classic members in a consumer group). */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: readonly { readonly name: string; readonly metadata: Uint8Array }[];
}

/**
 * Kafka's `modern/consumer/ConsumerGroupMember`: an immutable value; every change builds a new one
 * (`ConsumerGroupMember.Builder`), so a computed next state can be compared with the stored one and only
 * the difference written as records.
 */
export interface ConsumerGroupMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly clientId: string;
  readonly clientHost: string;
  /** Sorted, as Kafka's record helper stores them. */
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly assignedPartitions: TopicPartitionsMap;
  readonly partitionsPendingRevocation: TopicPartitionsMap;
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}

/** A member that exists only by id (Kafka's `new ConsumerGroupMember.Builder(memberId).build()`). */
export function newConsumerGroupMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    subscribedTopicRegex: null,
    serverAssignor: null,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: MemberState.STABLE,
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    classicMemberMetadata: null,
  };
}

/** `Builder.updateMemberEpoch`: the old epoch becomes the previous one. */
export function withMemberEpoch(m: ConsumerGroupMember, memberEpoch: number): ConsumerGroupMember {
  return { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch };
}

/** Kafka's `ModernGroupMember.isReconciledTo`: STABLE at the given epoch. */
export function isReconciledTo(m: ConsumerGroupMember, targetAssignmentEpoch: number): boolean {
  return m.state === MemberState.STABLE && m.memberEpoch === targetAssignmentEpoch;
}

export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
