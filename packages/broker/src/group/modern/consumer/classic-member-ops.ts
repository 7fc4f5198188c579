/**
 * Classic members of a consumer group: Kafka 4.1's `classicGroupJoinToConsumerGroup`,
 * `classicGroupSyncToConsumerGroup`, `classicGroupHeartbeatToConsumerGroup` and
 * `classicGroupLeaveToConsumerGroup` (GroupMetadataManager). A consumer of the classic protocol joins a
 * group that runs the consumer protocol (KIP-848) as one more member: the broker computes its assignment
 * with the group's server-side assignor and reconciles it as any member's (its JoinGroup carries its owned
 * partitions, as a heartbeat does), answers its JoinGroup with its member epoch as the generation and no
 * leader, and its SyncGroup with its assignment in the embedded consumer protocol. Its Heartbeat answers
 * REBALANCE_IN_PROGRESS when it has to join again to catch up. As every op here, these return records and
 * an answer; the group changes only when the records replay.
 */
import {
  decodeConsumerProtocolSubscription,
  type ErrorName,
  encodeConsumerProtocolAssignment,
} from '@klog/protocol';
import type { TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import type { JoinResult, Protocol, SyncResult } from '../../classic/classic-group.js';
import {
  type HeartbeatInput,
  type JoinGroupInput,
  joinError,
  type LeaveGroupResult,
  type SyncGroupInput,
} from '../../classic/classic-group-ops.js';
import { ConsumerGroupError } from '../errors.js';
import { MemberState } from '../member-state.js';
import type { TopicsImage } from '../topics-image.js';
import type { ConsumerGroup } from './consumer-group.js';
import { type ConsumerGroupMember, isReconciledTo, sameStrings } from './consumer-group-member.js';
import {
  type ConsumerGroupOps,
  type ConsumerGroupResult,
  groupJoinTimeoutKey,
  groupSyncTimeoutKey,
  replaceMemberRecords,
  throwIfInstanceIdIsFenced,
} from './consumer-group-ops.js';
import type { ConsumerGroupRecord } from './consumer-record-helpers.js';

/** The embedded protocol every member of a consumer group speaks (`ConsumerProtocol.PROTOCOL_TYPE`). */
const CONSUMER_PROTOCOL_TYPE = 'consumer';

export class ClassicMemberOps {
  constructor(private readonly ops: ConsumerGroupOps) {}

  /**
   * Kafka's `classicGroupJoinToConsumerGroup`. The answer comes once the records are written (`onWritten`
   * then starts the member's session timer and the sync timer that fences it if no SyncGroup follows).
   */
  join(group: ConsumerGroup, input: JoinGroupInput): ConsumerGroupResult<JoinResult> {
    try {
      return this.#join(group, input);
    } catch (e) {
      if (e instanceof ConsumerGroupError) return { records: [], response: joinFailure(e, input.memberId) };
      throw e;
    }
  }

  #join(group: ConsumerGroup, input: JoinGroupInput): ConsumerGroupResult<JoinResult> {
    const d = this.ops.deps;
    const unknown = input.memberId === '';
    const memberId = unknown ? this.ops.newMemberId() : input.memberId;
    // Kafka's `throwIfConsumerGroupIsFull` and `throwIfClassicProtocolIsNotSupported`.
    if (group.members.size >= d.config.maxSize && (unknown || !group.members.has(memberId)))
      throw new ConsumerGroupError(
        'GROUP_MAX_SIZE_REACHED',
        `The consumer group has reached its maximum capacity of ${d.config.maxSize} members.`,
      );
    if (!supportsClassicProtocols(group, input.protocolType, input.protocols))
      throw new ConsumerGroupError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `Member ${memberId}'s protocols are not supported.`,
      );
    // KIP-394: a dynamic member's first JoinGroup (v4+) gets its id and comes back with it; nothing is kept.
    if (unknown && input.groupInstanceId === null && input.requireKnownMemberId) {
      d.log?.(
        `group ${group.groupId}: a dynamic classic member joins the consumer group; asked to rejoin with member id ${memberId}`,
      );
      return { records: [], response: joinError('MEMBER_ID_REQUIRED', memberId) };
    }
    const subscription = decodeSubscription(input.protocols);
    const records: ConsumerGroupRecord[] = [];
    // JoinGroup v0 has no rebalance timeout: Kafka's JoinGroupRequest takes the session timeout for it.
    const rebalanceTimeoutMs =
      input.rebalanceTimeoutMs < 0 ? input.sessionTimeoutMs : input.rebalanceTimeoutMs;

    // The member: dynamic, or static (a new id takes over the old one's place and assignment).
    let member: ConsumerGroupMember;
    let replaced: ConsumerGroupMember | undefined;
    if (input.groupInstanceId === null) member = group.getOrMaybeCreateMember(memberId, true);
    else {
      const existing = group.staticMember(input.groupInstanceId);
      if (!unknown) {
        if (existing === undefined)
          throw new ConsumerGroupError(
            'UNKNOWN_MEMBER_ID',
            `Instance id ${input.groupInstanceId} is unknown.`,
          );
        throwIfInstanceIdIsFenced(existing, memberId, input.groupInstanceId);
        member = existing;
      } else if (existing === undefined) member = group.getOrMaybeCreateMember(memberId, true);
      else {
        member = { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
        replaced = existing;
        records.push(...replaceMemberRecords(group, existing, member));
      }
    }
    const joining = !group.members.has(member.memberId);

    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: input.groupInstanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs: rebalanceTimeoutMs,
      subscribedTopicNames: [...new Set(subscription.topics)].sort(),
      clientId: input.clientId,
      clientHost: input.clientHost,
      classicMemberMetadata: {
        sessionTimeoutMs: input.sessionTimeoutMs,
        supportedProtocols: input.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
    };
    // What it owns is in its subscription (v1+); an eager consumer (or v0) owns nothing when it joins.
    const owned: { topicId: string; partitions: readonly number[] }[] = [];
    for (const tp of subscription.ownedPartitions ?? []) {
      const topicId = d.image.topicId(tp.topic);
      if (topicId !== undefined) owned.push({ topicId, partitions: tp.partitions });
    }
    const reconciled = this.ops.subscribeAndReconcile(group, member, updated, replaced, owned, records);
    if (joining) d.log?.(`group ${group.groupId}: member ${reconciled.memberId} joins (classic protocol)`);
    // The static member it replaced was the last of the consumer protocol: the group becomes classic. Kafka
    // rebalances the classic group only when the subscription changed; klog also when a member is not where
    // its target is (waiting for partitions, or with some to give up), which no classic Heartbeat would
    // otherwise tell it once the group is classic and Stable.
    const downgrade =
      replaced === undefined
        ? undefined
        : d.maybeDowngradeOnReplace?.(
            group,
            replaced,
            reconciled,
            !sameStrings(replaced.subscribedTopicNames, updated.subscribedTopicNames) ||
              !isReconciledTo(reconciled, group.assignmentEpoch) ||
              [...group.members.values()].some(
                (m) => m.memberId !== replaced.memberId && !isReconciledTo(m, group.assignmentEpoch),
              ),
          );
    if (downgrade !== undefined) {
      const tombstones = group.createGroupTombstoneRecords({
        from: replaced!.memberId,
        to: reconciled.memberId,
      });
      records.push(...tombstones, downgrade.record);
    }

    const protocolName = input.protocols[0]!.name;
    const response: JoinResult = {
      errorCode: 'NONE',
      generationId: reconciled.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName,
      // No leader: the broker assigns; every member syncs with no assignments of its own.
      leader: '',
      memberId: reconciled.memberId,
      members: [],
    };
    const groupId = group.groupId;
    const id = reconciled.memberId;
    if (downgrade !== undefined)
      return { records, response, onWritten: this.ops.afterDowngrade(group, downgrade) };
    return {
      records,
      response,
      onWritten: () => {
        d.timer.cancel(groupJoinTimeoutKey(groupId, id));
        this.ops.scheduleSessionTimeout(groupId, id, reconciled);
        this.ops.scheduleFence(
          groupSyncTimeoutKey(groupId, id),
          groupId,
          id,
          rebalanceTimeoutMs,
          'the member failed to sync within timeout.',
        );
      },
    };
  }

  /** Kafka's `classicGroupSyncToConsumerGroup`: no records; the member's current assignment, encoded. */
  sync(group: ConsumerGroup, input: SyncGroupInput): SyncResult {
    try {
      const member = this.#validateMember(group, input.memberId, input.groupInstanceId);
      throwIfGenerationIdUnmatched(member, input.generationId);
      const protocolName = member.classicMemberMetadata!.supportedProtocols[0]!.name;
      if (input.protocolType !== null && input.protocolType !== CONSUMER_PROTOCOL_TYPE)
        throw new ConsumerGroupError(
          'INCONSISTENT_GROUP_PROTOCOL',
          `The protocol type ${input.protocolType} from member ${member.memberId} request is not equal to the group protocol type ${CONSUMER_PROTOCOL_TYPE}.`,
        );
      if (input.protocolName !== null && input.protocolName !== protocolName)
        throw new ConsumerGroupError(
          'INCONSISTENT_GROUP_PROTOCOL',
          `The protocol name ${input.protocolName} from member ${member.memberId} request is not equal to the protocol name ${protocolName} returned in the join response.`,
        );
      // A rebalance started after its JoinGroup: it must join again (unless it is still revoking).
      if (group.groupEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
        this.#scheduleJoinTimeoutIfAbsent(group, member);
        throw new ConsumerGroupError(
          'REBALANCE_IN_PROGRESS',
          `A new rebalance is triggered in group ${group.groupId} and member ${member.memberId} should rejoin to catch up.`,
        );
      }
      const d = this.ops.deps;
      d.timer.cancel(groupSyncTimeoutKey(group.groupId, member.memberId));
      this.ops.scheduleSessionTimeout(group.groupId, member.memberId, member);
      return {
        errorCode: 'NONE',
        protocolType: input.protocolType,
        protocolName: input.protocolName,
        assignment: this.#assignmentBytes(member),
      };
    } catch (e) {
      if (e instanceof ConsumerGroupError)
        return {
          errorCode: errorName(e),
          protocolType: null,
          protocolName: null,
          assignment: new Uint8Array(0),
        };
      throw e;
    }
  }

  /**
   * Kafka's `classicGroupHeartbeatToConsumerGroup`: a sign of life; REBALANCE_IN_PROGRESS when the group
   * moved on (its epoch past the member's), the member has partitions to revoke, or what it waits for is free.
   */
  heartbeat(group: ConsumerGroup, input: HeartbeatInput): ErrorName {
    try {
      const member = this.#validateMember(group, input.memberId, input.groupInstanceId);
      throwIfGenerationIdUnmatched(member, input.generationId);
      this.ops.scheduleSessionTimeout(group.groupId, member.memberId, member);
      if (
        member.memberEpoch < group.groupEpoch ||
        member.state === MemberState.UNREVOKED_PARTITIONS ||
        (member.state === MemberState.UNRELEASED_PARTITIONS && !waitingOnUnreleasedPartition(group, member))
      ) {
        this.#scheduleJoinTimeoutIfAbsent(group, member);
        return 'REBALANCE_IN_PROGRESS';
      }
      return 'NONE';
    } catch (e) {
      if (e instanceof ConsumerGroupError) return errorName(e);
      throw e;
    }
  }

  /**
   * Kafka's `classicGroupLeaveToConsumerGroup`: each member named (by id, or by instance id for an admin's
   * removal) that is a classic member is fenced, all in one write; the others answer their error.
   */
  leave(
    group: ConsumerGroup,
    identities: readonly { memberId: string; groupInstanceId: string | null }[],
  ): ConsumerGroupResult<LeaveGroupResult> {
    const leaving = new Map<string, ConsumerGroupMember>();
    const members = identities.map(({ memberId, groupInstanceId }) => {
      try {
        let member: ConsumerGroupMember;
        if (groupInstanceId === null) member = group.getOrMaybeCreateMember(memberId, false);
        else {
          const found = group.staticMember(groupInstanceId);
          if (found === undefined)
            throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Instance id ${groupInstanceId} is unknown.`);
          // An admin removes a static member by its instance id alone.
          if (memberId !== '') throwIfInstanceIdIsFenced(found, memberId, groupInstanceId);
          member = found;
        }
        throwIfMemberDoesNotUseClassicProtocol(member);
        leaving.set(member.memberId, member);
        this.ops.deps.log?.(`group ${group.groupId}: member ${member.memberId} left (LeaveGroup)`);
        return { memberId: member.memberId, groupInstanceId, errorCode: 'NONE' as ErrorName };
      } catch (e) {
        if (!(e instanceof ConsumerGroupError)) throw e;
        return { memberId, groupInstanceId, errorCode: errorName(e) };
      }
    });
    const fence = this.ops.fenceMembers(group, [...leaving.values()]);
    return { ...fence, response: { errorCode: 'NONE', members } };
  }

  /** Kafka's `validateConsumerGroupMember` then `throwIfMemberDoesNotUseClassicProtocol`. */
  #validateMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
    let member: ConsumerGroupMember;
    if (instanceId === null) member = group.getOrMaybeCreateMember(memberId, false);
    else {
      const found = group.staticMember(instanceId);
      if (found === undefined)
        throw new ConsumerGroupError(
          'UNKNOWN_MEMBER_ID',
          `Member with instance id ${instanceId} is not a member of group ${group.groupId}.`,
        );
      throwIfInstanceIdIsFenced(found, memberId, instanceId);
      member = found;
    }
    throwIfMemberDoesNotUseClassicProtocol(member);
    return member;
  }

  /** The member must join again within its rebalance timeout, or it is fenced (Kafka's join timer). */
  #scheduleJoinTimeoutIfAbsent(group: ConsumerGroup, member: ConsumerGroupMember): void {
    this.ops.scheduleFence(
      groupJoinTimeoutKey(group.groupId, member.memberId),
      group.groupId,
      member.memberId,
      member.rebalanceTimeoutMs,
      'the classic member failed to join within the rebalance timeout.',
      true,
    );
  }

  /** Kafka's `prepareAssignment`: the member's assigned partitions (not the ones it still has to revoke). */
  #assignmentBytes(member: ConsumerGroupMember): Uint8Array {
    return consumerProtocolAssignmentBytes(
      member.assignedPartitions,
      this.ops.deps.image,
      member.classicMemberMetadata!.supportedProtocols[0]!.metadata,
    );
  }
}

/**
 * Partitions as a `ConsumerProtocolAssignment`, topics by name and sorted, at the version of the member's
 * subscription (`ConsumerProtocol.deserializeVersion` of it, capped at 3 by the encoder).
 */
export function consumerProtocolAssignmentBytes(
  partitions: TopicPartitionsMap,
  image: TopicsImage,
  subscription: Uint8Array,
): Uint8Array {
  const version = subscription.length >= 2 ? Math.max(Buffer.from(subscription).readInt16BE(0), 0) : 0;
  const assignedPartitions: { topic: string; partitions: number[] }[] = [];
  for (const [topicId, ps] of partitions) {
    const topic = image.topicName(topicId);
    if (topic !== undefined && ps.size > 0)
      assignedPartitions.push({ topic, partitions: [...ps].sort((a, b) => a - b) });
  }
  assignedPartitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  return encodeConsumerProtocolAssignment({ assignedPartitions, userData: null }, version);
}

/**
 * Kafka's `ConsumerGroup.supportsClassicProtocols`: the `consumer` type, and a protocol (assignor name)
 * that every classic member already in the group also listed; any protocol in an empty group.
 */
export function supportsClassicProtocols(
  group: ConsumerGroup,
  protocolType: string,
  protocols: readonly Protocol[],
): boolean {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return false;
  if (group.isEmpty()) return protocols.length > 0;
  const classic = [...group.members.values()].filter((m) => m.classicMemberMetadata !== null);
  return protocols.some((p) =>
    classic.every((m) => m.classicMemberMetadata!.supportedProtocols.some((q) => q.name === p.name)),
  );
}

/** Kafka's `ConsumerGroup.waitingOnUnreleasedPartition`: a partition of its target still owned by another. */
function waitingOnUnreleasedPartition(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
  if (member.state !== MemberState.UNRELEASED_PARTITIONS) return false;
  for (const [topicId, ps] of group.targetAssignmentOf(member.memberId)) {
    const assigned = member.assignedPartitions.get(topicId);
    for (const p of ps)
      if (assigned?.has(p) !== true && group.currentPartitionEpoch(topicId, p) !== -1) return true;
  }
  return false;
}

/**
 * Kafka's `deserializeSubscription`: every protocol carries the same subscription, the first is read. A
 * subscription that does not decode is a client's bug; Kafka fails the request (IllegalStateException).
 */
function decodeSubscription(protocols: readonly Protocol[]) {
  try {
    return decodeConsumerProtocolSubscription(protocols[0]!.metadata);
  } catch {
    throw new ConsumerGroupError(
      'UNKNOWN_SERVER_ERROR',
      'Malformed embedded consumer protocol in subscription deserialization.',
    );
  }
}

function throwIfMemberDoesNotUseClassicProtocol(member: ConsumerGroupMember): void {
  if (member.classicMemberMetadata === null)
    throw new ConsumerGroupError(
      'UNKNOWN_MEMBER_ID',
      `Member ${member.memberId} does not use the classic protocol.`,
    );
}

function throwIfGenerationIdUnmatched(member: ConsumerGroupMember, generationId: number): void {
  if (member.memberEpoch !== generationId)
    throw new ConsumerGroupError(
      'ILLEGAL_GENERATION',
      `The request generation id ${generationId} is not equal to the member epoch ${member.memberEpoch} of member ${member.memberId}.`,
    );
}

/** The classic APIs' error codes are Kafka's `Errors`; the engine's KIP-848 names are among them. */
function errorName(e: ConsumerGroupError): ErrorName {
  return e.code as ErrorName;
}

function joinFailure(e: ConsumerGroupError, memberId: string): JoinResult {
  return joinError(errorName(e), memberId);
}
