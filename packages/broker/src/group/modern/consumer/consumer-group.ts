import type { SubscriptionType, TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import { type OffsetExpirationCondition, SINCE_COMMIT } from '../../offset-expiration-condition.js';
import { EMPTY_ASSIGNMENT } from '../assignment.js';
import {
  ConsumerGroupError,
  type ConsumerGroupErrorName,
  ConsumerGroupIllegalStateError,
} from '../errors.js';
import { type ConsumerGroupMember, isReconciledTo, newConsumerGroupMember } from './consumer-group-member.js';
import {
  type ConsumerGroupRecord,
  type ConsumerGroupRegularExpressionValue,
  newConsumerGroupCurrentAssignmentTombstoneRecord,
  newConsumerGroupEpochTombstoneRecord,
  newConsumerGroupMemberSubscriptionTombstoneRecord,
  newConsumerGroupRegularExpressionTombstone,
  newConsumerGroupSubscriptionMetadataTombstoneRecord,
  newConsumerGroupTargetAssignmentEpochTombstoneRecord,
  newConsumerGroupTargetAssignmentTombstoneRecord,
} from './consumer-record-helpers.js';

/** Kafka's `ConsumerGroup.ConsumerGroupState`, derived from epochs and members (`maybeUpdateGroupState`). */
export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/**
 * Kafka's `modern/consumer/ConsumerGroup`: the state a KIP-848 group rebuilds from its records. It changes
 * only through replay (the `update…`/`remove…`/`set…` methods below are what `consumer-group-replay.ts`
 * calls), so a coordinator that restarts and replays its log holds the same group. The indexes Kafka keeps
 * (static members, partition epochs) are kept here too: `currentPartitionEpoch` is what stops one partition
 * from being given to two members at once.
 */
export class ConsumerGroup {
  readonly type = 'consumer' as const;
  readonly groupId: string;
  groupEpoch = 0;
  /** Kafka's `targetAssignmentEpoch`; -1 once its record is tombstoned. */
  assignmentEpoch = 0;
  metadataHash = 0n;
  /** A type 4 record was replayed (a pre-4.1 log): the next heartbeat tombstones it. */
  hasSubscriptionMetadataRecord = false;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id. */
  readonly staticMembers = new Map<string, string>();
  readonly targetAssignment = new Map<string, TopicPartitionsMap>();
  readonly resolvedRegularExpressions = new Map<string, ConsumerGroupRegularExpressionValue>();
  /**
   * The `topicsVersion` at which this group last compared its MetadataHash (Kafka's in-memory
   * `metadataRefreshDeadline`, not persisted: after a load the first heartbeat recomputes it).
   */
  metadataRefreshVersion: number | undefined = undefined;
  /** topic id → partition → epoch of the member that owns it (assigned or pending revocation). */
  readonly #currentPartitionEpoch = new Map<string, Map<number, number>>();

  constructor(groupId: string) {
    this.groupId = groupId;
  }

  state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  stateAsString(): string {
    return this.state();
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  protocolType(): string {
    return 'consumer';
  }

  /** Kafka's `getOrMaybeCreateMember`: UNKNOWN_MEMBER_ID unless `create`. */
  getOrMaybeCreateMember(memberId: string, create: boolean): ConsumerGroupMember {
    const m = this.members.get(memberId);
    if (m !== undefined) return m;
    if (!create)
      throw new ConsumerGroupError(
        'UNKNOWN_MEMBER_ID',
        `Member ${memberId} is not a member of group ${this.groupId}.`,
      );
    return newConsumerGroupMember(memberId);
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** Replay: a member's new state; keeps the partition epochs exact (Kafka's `updateMember`). */
  updateMember(newMember: ConsumerGroupMember): void {
    const old = this.members.get(newMember.memberId);
    if (old !== undefined) this.#removePartitionEpochs(old);
    this.#addPartitionEpochs(newMember.assignedPartitions, newMember.memberEpoch);
    this.#addPartitionEpochs(newMember.partitionsPendingRevocation, newMember.memberEpoch);
    this.members.set(newMember.memberId, newMember);
    if (newMember.instanceId !== null) this.staticMembers.set(newMember.instanceId, newMember.memberId);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (old === undefined) return;
    this.#removePartitionEpochs(old);
    this.members.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId)
      this.staticMembers.delete(old.instanceId);
  }

  /** The epoch of the member owning the partition, or -1. */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.#currentPartitionEpoch.get(topicId)?.get(partition) ?? -1;
  }

  #removePartitionEpochs(m: ConsumerGroupMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
      for (const [topicId, ps] of a) {
        const epochs = this.#currentPartitionEpoch.get(topicId);
        if (epochs === undefined)
          throw new ConsumerGroupIllegalStateError(
            `Cannot remove the epoch ${m.memberEpoch} from ${topicId} because it does not have any epoch`,
          );
        for (const p of ps) {
          const prev = epochs.get(p);
          epochs.delete(p);
          if (prev !== m.memberEpoch)
            throw new ConsumerGroupIllegalStateError(
              `Cannot remove the epoch ${m.memberEpoch} from ${topicId}-${p} because the partition is still owned at a different epoch ${prev}`,
            );
        }
        if (epochs.size === 0) this.#currentPartitionEpoch.delete(topicId);
      }
  }

  #addPartitionEpochs(a: TopicPartitionsMap, epoch: number): void {
    for (const [topicId, ps] of a) {
      let epochs = this.#currentPartitionEpoch.get(topicId);
      if (epochs === undefined) {
        epochs = new Map();
        this.#currentPartitionEpoch.set(topicId, epochs);
      }
      for (const p of ps) {
        const prev = epochs.get(p);
        if (prev !== undefined)
          throw new ConsumerGroupIllegalStateError(
            `Cannot set the epoch of ${topicId}-${p} to ${epoch} because the partition is still owned at epoch ${prev}`,
          );
        epochs.set(p, epoch);
      }
    }
  }

  /** A member's target; a static member rejoining under a new id inherits its predecessor's (Kafka L303). */
  targetAssignmentOf(memberId: string, instanceId: string | null = null): TopicPartitionsMap {
    if (instanceId !== null) {
      const prev = this.staticMembers.get(instanceId);
      if (prev !== undefined) return this.targetAssignment.get(prev) ?? EMPTY_ASSIGNMENT;
    }
    return this.targetAssignment.get(memberId) ?? EMPTY_ASSIGNMENT;
  }

  /**
   * The topics a member subscribes to: its names plus what its regex resolved to (in the group, or in
   * `resolved`, a resolution not written yet).
   */
  memberTopicNames(m: ConsumerGroupMember, resolved?: ReadonlyMap<string, readonly string[]>): Set<string> {
    const out = new Set(m.subscribedTopicNames);
    if (m.subscribedTopicRegex !== null) {
      const topics = resolved
        ? resolved.get(m.subscribedTopicRegex)
        : this.resolvedRegularExpressions.get(m.subscribedTopicRegex)?.topics;
      for (const t of topics ?? []) out.add(t);
    }
    return out;
  }

  /** Every topic some member subscribes to (Kafka's `subscribedTopicNames().keySet()`). */
  subscribedTopicNames(
    members: Iterable<ConsumerGroupMember> = this.members.values(),
    resolved?: ReadonlyMap<string, readonly string[]>,
  ): Set<string> {
    const out = new Set<string>();
    for (const m of members) for (const t of this.memberTopicNames(m, resolved)) out.add(t);
    return out;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopicNames().has(topic);
  }

  /**
   * Kafka's `ConsumerGroup.subscriptionType`: HOMOGENEOUS when every member names the same topics and none
   * uses a regex, or every member uses one same regex and no names; else HETEROGENEOUS.
   */
  static subscriptionType(members: readonly ConsumerGroupMember[]): SubscriptionType {
    const first = members[0];
    if (first === undefined) return 'HOMOGENEOUS';
    const names = (m: ConsumerGroupMember) => [...new Set(m.subscribedTopicNames)].sort().join('\0');
    const regexes = new Set(members.map((m) => m.subscribedTopicRegex));
    if (!regexes.has(null) || regexes.size > 1) {
      // Some regex in use: homogeneous only with one regex and no names at all.
      if (regexes.size === 1 && members.every((m) => m.subscribedTopicNames.length === 0))
        return 'HOMOGENEOUS';
      return 'HETEROGENEOUS';
    }
    const n = names(first);
    return members.every((m) => names(m) === n) ? 'HOMOGENEOUS' : 'HETEROGENEOUS';
  }

  /** Kafka's `ConsumerGroup.preferredServerAssignor`: the one most members ask for, if any. */
  preferredServerAssignor(members: Iterable<ConsumerGroupMember> = this.members.values()): string | null {
    const counts = new Map<string, number>();
    for (const m of members)
      if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | null = null;
    let bestCount = 0;
    for (const [name, c] of counts)
      if (c > bestCount || (c === bestCount && best !== null && name < best)) {
        best = name;
        bestCount = c;
      }
    return best;
  }

  /** `ConsumerGroup.validateOffsetCommit` (L646–675); transactional commits are not served by klog. */
  validateOffsetCommit(
    memberId: string,
    _instanceId: string | null,
    memberEpoch: number,
    apiVersion: number,
  ): ConsumerGroupErrorName | undefined {
    if (memberEpoch < 0 && this.members.size === 0) return undefined;
    const member = this.members.get(memberId);
    if (member === undefined) return 'UNKNOWN_MEMBER_ID';
    if (member.classicMemberMetadata === null && apiVersion < 9) return 'UNSUPPORTED_VERSION';
    return this.#validateMemberEpoch(memberEpoch, member);
  }

  /** `ConsumerGroup.validateOffsetFetch` (L689–705). */
  validateOffsetFetch(memberId: string | null, memberEpoch: number): ConsumerGroupErrorName | undefined {
    if (memberId === null && memberEpoch < 0) return undefined;
    const member = memberId === null ? undefined : this.members.get(memberId);
    if (member === undefined) return 'UNKNOWN_MEMBER_ID';
    return this.#validateMemberEpoch(memberEpoch, member);
  }

  /** `ConsumerGroup.offsetExpirationCondition`: retention counts from each commit; subscribed topics' offsets stay. */
  offsetExpirationCondition(): OffsetExpirationCondition {
    return SINCE_COMMIT;
  }

  /** `ConsumerGroup.validateOffsetDelete`: any state may delete offsets (subscribed topics are refused per topic). */
  validateOffsetDelete(): ConsumerGroupErrorName | undefined {
    return undefined;
  }

  validateDeleteGroup(): ConsumerGroupErrorName | undefined {
    return this.state() === 'Empty' ? undefined : 'NON_EMPTY_GROUP';
  }

  #validateMemberEpoch(received: number, member: ConsumerGroupMember): ConsumerGroupErrorName | undefined {
    if (received === member.memberEpoch) return undefined;
    return member.classicMemberMetadata !== null ? 'ILLEGAL_GENERATION' : 'STALE_MEMBER_EPOCH';
  }

  /**
   * Kafka's `ConsumerGroup.createGroupTombstoneRecords` (L731–760), in its order; `replaced`: the
   * `createGroupTombstoneRecordsWithReplacedMember` variant, for records that already replaced one member's
   * id with another's (the new id is tombstoned in the old one's place).
   */
  createGroupTombstoneRecords(replaced?: { from: string; to: string }): ConsumerGroupRecord[] {
    const g = this.groupId;
    const ids = [...this.members.keys()].map((id) => (id === replaced?.from ? replaced.to : id));
    return [
      ...ids.map((id) => newConsumerGroupCurrentAssignmentTombstoneRecord(g, id)),
      ...ids.map((id) => newConsumerGroupTargetAssignmentTombstoneRecord(g, id)),
      newConsumerGroupTargetAssignmentEpochTombstoneRecord(g),
      ...ids.map((id) => newConsumerGroupMemberSubscriptionTombstoneRecord(g, id)),
      ...[...this.resolvedRegularExpressions.keys()].map((re) =>
        newConsumerGroupRegularExpressionTombstone(g, re),
      ),
      newConsumerGroupSubscriptionMetadataTombstoneRecord(g),
      newConsumerGroupEpochTombstoneRecord(g),
    ];
  }
}
