/**
 * Online migration between the two group protocols, under `group.consumer.migration.policy` (Kafka 4.1's
 * default `bidirectional`): a classic group that a consumer-protocol member joins becomes a consumer group
 * with its members kept (`validateOnlineUpgrade`, `ConsumerGroup.fromClassicGroup`,
 * `createConsumerGroupRecords`), and a consumer group whose last consumer-protocol member leaves becomes a
 * classic group again (`validateOnlineDowngradeWithFencedMembers`, `ClassicGroup.fromConsumerGroup`,
 * `createClassicGroupRecords`). Both are records only: the group manager writes and replays them.
 */
import { decodeConsumerProtocolAssignment, decodeConsumerProtocolSubscription } from '@klog/protocol';
import { ClassicGroup, ClassicGroupMember, EMPTY_BYTES } from './classic/classic-group.js';
import type { ConsumerGroupMigrationPolicy } from './group-coordinator-config.js';
import {
  type ConsumerGroup,
  ConsumerGroupError,
  type ConsumerGroupMember,
  type ConsumerGroupRecord,
  computeGroupHash,
  consumerProtocolAssignmentBytes,
  MemberState,
  newConsumerGroupCurrentAssignmentRecord,
  newConsumerGroupEpochRecord,
  newConsumerGroupMemberSubscriptionRecord,
  newConsumerGroupTargetAssignmentEpochRecord,
  newConsumerGroupTargetAssignmentRecord,
  type TopicsImage,
} from './modern/index.js';
import { newGroupMetadataRecord } from './record-helpers.js';

export function isUpgradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'upgrade' || policy === 'bidirectional';
}

export function isDowngradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'downgrade' || policy === 'bidirectional';
}

/**
 * Kafka's `validateOnlineUpgrade`, for a non-empty classic group a consumer-protocol member joins: why it
 * stays classic (the GROUP_ID_NOT_FOUND message), or undefined when it may be upgraded.
 */
export function onlineUpgradeRefusal(
  classic: ClassicGroup,
  policy: ConsumerGroupMigrationPolicy,
  consumerGroupMaxSize: number,
): string | undefined {
  const id = classic.groupId;
  if (!isUpgradeEnabled(policy))
    return `Cannot upgrade classic group ${id} to consumer group because online upgrade is disabled.`;
  if (classic.protocolType() !== 'consumer')
    return `Cannot upgrade classic group ${id} to consumer group because the group does not use the consumer embedded protocol.`;
  if (classic.members.size > consumerGroupMaxSize)
    return `Cannot upgrade classic group ${id} to consumer group because the group size exceeds the consumer group maximum size.`;
  return undefined;
}

/**
 * Kafka's `ConsumerGroup.fromClassicGroup` then `createConsumerGroupRecords`: each member keeps its id, its
 * subscription (topics, rack) and its last assignment, which becomes its target too, Stable at the classic
 * generation as member, group and assignment epoch; its JoinGroup's session timeout and protocols are kept
 * as its classic metadata. A member that has no assignment yet (it joined in a rebalance not finished)
 * starts with none, where Kafka fails to read the empty bytes and keeps the group classic ("malformed"):
 * klog upgrades such a group, whose members join again anyway. Throws GROUP_ID_NOT_FOUND when a member's
 * embedded protocol does not decode, or when an assignment carries user data (a custom client-side
 * assignor, which the broker cannot run); UNKNOWN_SERVER_ERROR when two members were given one partition.
 */
export function consumerGroupRecordsFromClassic(
  classic: ClassicGroup,
  image: TopicsImage,
): ConsumerGroupRecord[] {
  const id = classic.groupId;
  const epoch = classic.generationId;
  const members: ConsumerGroupMember[] = [];
  for (const m of classic.members.values()) {
    let topics: string[];
    let rackId: string | null;
    let assigned: { topic: string; partitions: number[] }[];
    try {
      const sub = decodeConsumerProtocolSubscription(m.metadata(classic.protocolName ?? '') ?? EMPTY_BYTES);
      topics = sub.topics;
      rackId = sub.rackId ?? null;
      if (m.assignment.length === 0) assigned = [];
      else {
        const assignment = decodeConsumerProtocolAssignment(m.assignment);
        if (assignment.userData !== null && assignment.userData.length > 0)
          throw new ConsumerGroupError(
            'GROUP_ID_NOT_FOUND',
            `Cannot upgrade classic group ${id} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`,
          );
        assigned = assignment.assignedPartitions;
      }
    } catch (e) {
      if (e instanceof ConsumerGroupError) throw e;
      throw new ConsumerGroupError(
        'GROUP_ID_NOT_FOUND',
        `Cannot upgrade classic group ${id} to consumer group because the embedded consumer protocol is malformed.`,
      );
    }
    const partitions = new Map<string, Set<number>>();
    for (const tp of assigned) {
      const topicId = image.topicId(tp.topic);
      if (topicId === undefined) continue;
      const s = partitions.get(topicId) ?? new Set<number>();
      for (const p of tp.partitions) s.add(p);
      partitions.set(topicId, s);
    }
    members.push({
      memberId: m.memberId,
      instanceId: m.groupInstanceId,
      rackId,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...new Set(topics)].sort(),
      subscribedTopicRegex: null,
      serverAssignor: null,
      memberEpoch: epoch,
      previousMemberEpoch: epoch,
      state: MemberState.STABLE,
      assignedPartitions: partitions,
      partitionsPendingRevocation: new Map(),
      classicMemberMetadata: {
        sessionTimeoutMs: m.sessionTimeoutMs,
        supportedProtocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
    });
  }
  // A classic leader may have given one partition to two members (the broker never checks its assignment);
  // a consumer group cannot hold that (Kafka's `updateMember` throws, and the heartbeat fails).
  const owner = new Map<string, string>();
  for (const m of members)
    for (const [topicId, ps] of m.assignedPartitions)
      for (const p of ps) {
        const key = `${image.topicName(topicId)}-${p}`;
        const other = owner.get(key);
        if (other !== undefined)
          throw new ConsumerGroupError(
            'UNKNOWN_SERVER_ERROR',
            `Cannot upgrade classic group ${id} to consumer group because partition ${key} is assigned to both ${other} and ${m.memberId}.`,
          );
        owner.set(key, m.memberId);
      }
  const subscribed = new Set(members.flatMap((m) => m.subscribedTopicNames));
  return [
    ...members.map((m) => newConsumerGroupMemberSubscriptionRecord(id, m)),
    newConsumerGroupEpochRecord(id, epoch, computeGroupHash(subscribed, image)),
    ...members.map((m) => newConsumerGroupTargetAssignmentRecord(id, m.memberId, m.assignedPartitions)),
    newConsumerGroupTargetAssignmentEpochRecord(id, epoch),
    ...members.map((m) => newConsumerGroupCurrentAssignmentRecord(id, m)),
  ];
}

/**
 * Kafka's `validateOnlineDowngradeWithFencedMembers`: every member left uses the classic protocol, at least
 * one is left, the policy allows it, and they fit in a classic group. The reason it stays, for the log
 * (undefined: downgrade; null: nothing to say, the group was never a candidate).
 */
export function onlineDowngradeRefusal(
  group: ConsumerGroup,
  fenced: readonly ConsumerGroupMember[],
  policy: ConsumerGroupMigrationPolicy,
  classicGroupMaxSize: number,
  /** `validateOnlineDowngradeWithReplacedMember`: the fenced member's place is taken by a classic one. */
  replacing = false,
): string | null | undefined {
  const gone = new Set(fenced.map((m) => m.memberId));
  const left = [...group.members.values()].filter((m) => !gone.has(m.memberId));
  if ((!replacing && left.length === 0) || left.some((m) => m.classicMemberMetadata === null)) return null;
  // Kafka's `allMembersUseClassicProtocolExcept`: the ones leaving are the consumer protocol's.
  if (fenced.some((m) => m.classicMemberMetadata !== null)) return null;
  if (!isDowngradeEnabled(policy))
    return `Cannot downgrade consumer group ${group.groupId} to classic group because the online downgrade is disabled.`;
  if (left.length + (replacing ? 1 : 0) > classicGroupMaxSize)
    return `Cannot downgrade consumer group ${group.groupId} to classic group because its group size is greater than classic group max size.`;
  return undefined;
}

/**
 * Kafka's `ClassicGroup.fromConsumerGroup` then `createClassicGroupRecords`: a Stable classic group at the
 * group epoch as generation, each remaining member with its JoinGroup's timeouts and protocols, the
 * protocol the members vote for, and each one's assignment encoded at its own subscription's version. Its
 * GroupMetadata record, which replays into that group.
 *
 * The assignment written is what the member owns now (its current partitions, and those it has still to
 * revoke), where Kafka writes its target. A member that has not rejoined since its target moved still holds
 * what it was last given; were the group upgraded again before the downgrade's rebalance is over, Kafka's
 * target would let the coordinator hand those partitions to the new member while the classic one still
 * reads them (klog's property test over both protocols found it). What a member owns is always disjoint
 * from the others', and the rebalance that follows the downgrade assigns afresh either way.
 */
export function classicGroupRecordFromConsumer(
  group: ConsumerGroup,
  fenced: readonly ConsumerGroupMember[],
  image: TopicsImage,
  nowMs: number,
  /** A classic static member that replaces the fenced one, with what it owns after its join. */
  joining?: ConsumerGroupMember,
): ConsumerGroupRecord {
  const gone = new Set(fenced.map((m) => m.memberId));
  const classic = new ClassicGroup(group.groupId, nowMs);
  classic.generationId = group.groupEpoch;
  classic.setProtocolType('consumer');
  classic.state = 'Stable';
  const members = [...group.members.values()].filter((m) => !gone.has(m.memberId));
  if (joining !== undefined) members.push(joining);
  for (const m of members) {
    const meta = m.classicMemberMetadata!;
    classic.add(
      new ClassicGroupMember(
        m.memberId,
        m.instanceId,
        m.clientId,
        m.clientHost,
        m.rebalanceTimeoutMs,
        meta.sessionTimeoutMs,
        'consumer',
        meta.supportedProtocols,
      ),
    );
  }
  classic.protocolName = classic.selectProtocol();
  const assignments = new Map<string, Uint8Array>();
  for (const m of classic.members.values())
    assignments.set(
      m.memberId,
      consumerProtocolAssignmentBytes(
        owns(m.memberId === joining?.memberId ? joining : group.members.get(m.memberId)!),
        image,
        m.metadata(classic.protocolName) ?? EMPTY_BYTES,
      ),
    );
  const record = newGroupMetadataRecord(classic, assignments);
  return { type: 2, group: group.groupId, key: record.key, value: record.value! };
}

function owns(m: ConsumerGroupMember): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
    for (const [topicId, ps] of a) out.set(topicId, new Set([...(out.get(topicId) ?? []), ...ps]));
  return out;
}
