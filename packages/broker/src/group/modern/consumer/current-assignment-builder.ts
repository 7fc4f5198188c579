import type { TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import type { TopicPartitions } from '../assignment.js';
import { ConsumerGroupError } from '../errors.js';
import { MemberState } from '../member-state.js';
import { type ConsumerGroupMember, withMemberEpoch } from './consumer-group-member.js';

export interface CurrentAssignmentInput {
  readonly targetAssignmentEpoch: number;
  readonly targetAssignment: TopicPartitionsMap;
  /** The epoch of the member that owns the partition now, -1 if free (`ConsumerGroup.currentPartitionEpoch`). */
  readonly currentPartitionEpoch: (topicId: string, partition: number) => number;
  /** What the client reported owning; null when the heartbeat did not say (counts as "still owns"). */
  readonly ownedTopicPartitions: TopicPartitions | null;
}

/**
 * Kafka's `modern/consumer/CurrentAssignmentBuilder.build`: one reconciliation step of a member towards the
 * target assignment. A partition is revoked first (the member keeps its epoch and waits in
 * UNREVOKED_PARTITIONS until its heartbeat no longer reports it), and only then given to its new owner, so
 * two members never own one partition.
 */
export function buildCurrentAssignment(
  member: ConsumerGroupMember,
  input: CurrentAssignmentInput,
): ConsumerGroupMember {
  switch (member.state) {
    case MemberState.STABLE:
      if (member.memberEpoch !== input.targetAssignmentEpoch)
        return computeNextAssignment(member, input, member.memberEpoch, member.assignedPartitions);
      return member;
    case MemberState.UNREVOKED_PARTITIONS:
      if (ownsRevokedPartitions(input.ownedTopicPartitions, member.partitionsPendingRevocation))
        return member;
      // Revocation acknowledged: the member moves to the next epoch and on towards the target.
      return computeNextAssignment(member, input, member.memberEpoch + 1, member.assignedPartitions);
    case MemberState.UNRELEASED_PARTITIONS:
      return computeNextAssignment(member, input, member.memberEpoch, member.assignedPartitions);
    case MemberState.UNKNOWN:
      // A state from a newer coordinator: the member must drop everything and rejoin.
      if (input.ownedTopicPartitions === null || input.ownedTopicPartitions.length > 0)
        throw new ConsumerGroupError(
          'FENCED_MEMBER_EPOCH',
          'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.',
        );
      return computeNextAssignment(member, input, input.targetAssignmentEpoch, member.assignedPartitions);
  }
}

function ownsRevokedPartitions(owned: TopicPartitions | null, pending: TopicPartitionsMap): boolean {
  if (owned === null) return true;
  for (const tp of owned) {
    const revoking = pending.get(tp.topicId);
    if (revoking === undefined) continue;
    for (const p of tp.partitions) if (revoking.has(p)) return true;
  }
  return false;
}

function computeNextAssignment(
  member: ConsumerGroupMember,
  input: CurrentAssignmentInput,
  memberEpoch: number,
  memberAssigned: TopicPartitionsMap,
): ConsumerGroupMember {
  let hasUnreleasedPartitions = false;
  const newAssigned = new Map<string, Set<number>>();
  const newPendingRevocation = new Map<string, Set<number>>();
  const newPendingAssignment = new Map<string, Set<number>>();
  const topicIds = new Set([...input.targetAssignment.keys(), ...memberAssigned.keys()]);
  for (const topicId of topicIds) {
    const target = input.targetAssignment.get(topicId) ?? new Set<number>();
    const current = memberAssigned.get(topicId) ?? new Set<number>();
    const assigned = new Set([...current].filter((p) => target.has(p)));
    const revoke = new Set([...current].filter((p) => !assigned.has(p)));
    const pending = new Set<number>();
    for (const p of target) {
      if (assigned.has(p)) continue;
      // Held back while another member still owns it (unreleased).
      if (input.currentPartitionEpoch(topicId, p) !== -1) hasUnreleasedPartitions = true;
      else pending.add(p);
    }
    if (assigned.size > 0) newAssigned.set(topicId, assigned);
    if (revoke.size > 0) newPendingRevocation.set(topicId, revoke);
    if (pending.size > 0) newPendingAssignment.set(topicId, pending);
  }
  if (
    newPendingRevocation.size > 0 &&
    ownsRevokedPartitions(input.ownedTopicPartitions, newPendingRevocation)
  ) {
    return {
      ...withMemberEpoch(member, memberEpoch),
      state: MemberState.UNREVOKED_PARTITIONS,
      assignedPartitions: newAssigned,
      partitionsPendingRevocation: newPendingRevocation,
    };
  }
  if (newPendingAssignment.size > 0) {
    for (const [t, ps] of newPendingAssignment) {
      const s = newAssigned.get(t) ?? new Set<number>();
      for (const p of ps) s.add(p);
      newAssigned.set(t, s);
    }
  }
  return {
    ...withMemberEpoch(member, input.targetAssignmentEpoch),
    state: hasUnreleasedPartitions ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
    assignedPartitions: newAssigned,
    partitionsPendingRevocation: new Map(),
  };
}
