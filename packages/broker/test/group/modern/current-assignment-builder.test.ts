import { describe, expect, it } from 'vitest';
import type { TopicPartitionsMap } from '../../../src/group/assignor/partition-assignor.js';
import {
  type ConsumerGroupMember,
  newConsumerGroupMember,
} from '../../../src/group/modern/consumer/consumer-group-member.js';
import { buildCurrentAssignment } from '../../../src/group/modern/consumer/current-assignment-builder.js';
import { ConsumerGroupError } from '../../../src/group/modern/errors.js';
import { MemberState } from '../../../src/group/modern/member-state.js';

// The cases of Kafka's CurrentAssignmentBuilderTest, on two topics.
const A = '00000000-0000-0000-0000-00000000000a';
const B = '00000000-0000-0000-0000-00000000000b';

const tps = (o: Record<string, number[]>): TopicPartitionsMap =>
  new Map(Object.entries(o).map(([t, ps]) => [t, new Set(ps)]));
const owned = (o: Record<string, number[]>) =>
  Object.entries(o).map(([topicId, partitions]) => ({ topicId, partitions }));
const free = () => -1;

function member(over: Partial<ConsumerGroupMember>): ConsumerGroupMember {
  return { ...newConsumerGroupMember('m'), ...over };
}

function plain(m: ConsumerGroupMember) {
  const p = (a: TopicPartitionsMap) =>
    Object.fromEntries([...a].map(([t, ps]) => [t, [...ps].sort((x, y) => x - y)] as const));
  return {
    state: m.state,
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    assigned: p(m.assignedPartitions),
    revoking: p(m.partitionsPendingRevocation),
  };
}

describe('CurrentAssignmentBuilder (Kafka CurrentAssignmentBuilderTest)', () => {
  it('STABLE → STABLE: new partitions are assigned at the target epoch', () => {
    const m = member({ memberEpoch: 10, previousMemberEpoch: 10, assignedPartitions: tps({ [A]: [1, 2] }) });
    const next = buildCurrentAssignment(m, {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1, 2], [B]: [3] }),
      currentPartitionEpoch: free,
      ownedTopicPartitions: owned({ [A]: [1, 2] }),
    });
    expect(plain(next)).toEqual({
      state: MemberState.STABLE,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assigned: { [A]: [1, 2], [B]: [3] },
      revoking: {},
    });
  });

  it('STABLE at the target epoch is unchanged', () => {
    const m = member({ memberEpoch: 11, previousMemberEpoch: 10, assignedPartitions: tps({ [A]: [1] }) });
    const next = buildCurrentAssignment(m, {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1, 2] }),
      currentPartitionEpoch: free,
      ownedTopicPartitions: null,
    });
    expect(next).toBe(m);
  });

  it('revoke → wait → assign: the member keeps its epoch until it stops reporting the revoked partitions', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: tps({ [A]: [1, 2, 3] }),
    });
    const target = {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1, 2], [B]: [4] }),
      currentPartitionEpoch: free,
    };
    const revoking = buildCurrentAssignment(m, {
      ...target,
      ownedTopicPartitions: owned({ [A]: [1, 2, 3] }),
    });
    expect(plain(revoking)).toEqual({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assigned: { [A]: [1, 2] },
      revoking: { [A]: [3] },
    });
    // Still owned, or not reported at all: wait.
    expect(
      buildCurrentAssignment(revoking, { ...target, ownedTopicPartitions: owned({ [A]: [1, 2, 3] }) }),
    ).toBe(revoking);
    expect(buildCurrentAssignment(revoking, { ...target, ownedTopicPartitions: null })).toBe(revoking);
    // Revoked: on to the target epoch with the new partition.
    const done = buildCurrentAssignment(revoking, {
      ...target,
      ownedTopicPartitions: owned({ [A]: [1, 2] }),
    });
    expect(plain(done)).toEqual({
      state: MemberState.STABLE,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assigned: { [A]: [1, 2], [B]: [4] },
      revoking: {},
    });
  });

  it('a partition the client already dropped is not waited for', () => {
    const m = member({ memberEpoch: 10, previousMemberEpoch: 10, assignedPartitions: tps({ [A]: [1, 2] }) });
    const next = buildCurrentAssignment(m, {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1] }),
      currentPartitionEpoch: free,
      ownedTopicPartitions: owned({ [A]: [1] }),
    });
    expect(plain(next)).toMatchObject({ state: MemberState.STABLE, memberEpoch: 11, assigned: { [A]: [1] } });
  });

  it('UNRELEASED_PARTITIONS: a partition another member still owns is held back, then assigned when released', () => {
    const m = member({ memberEpoch: 10, previousMemberEpoch: 10, assignedPartitions: tps({ [A]: [1] }) });
    let ownedByOther = true;
    const input = {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1, 2] }),
      currentPartitionEpoch: (t: string, p: number) => (t === A && p === 2 && ownedByOther ? 10 : -1),
      ownedTopicPartitions: owned({ [A]: [1] }),
    };
    const waiting = buildCurrentAssignment(m, input);
    expect(plain(waiting)).toEqual({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assigned: { [A]: [1] },
      revoking: {},
    });
    expect(plain(buildCurrentAssignment(waiting, input))).toMatchObject({
      state: MemberState.UNRELEASED_PARTITIONS,
      assigned: { [A]: [1] },
    });
    ownedByOther = false;
    expect(plain(buildCurrentAssignment(waiting, input))).toMatchObject({
      state: MemberState.STABLE,
      memberEpoch: 11,
      assigned: { [A]: [1, 2] },
    });
  });

  it('UNREVOKED → UNRELEASED: after revoking, a target partition still owned elsewhere is held back', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: tps({ [A]: [1] }),
      partitionsPendingRevocation: tps({ [A]: [2] }),
    });
    const next = buildCurrentAssignment(m, {
      targetAssignmentEpoch: 12,
      targetAssignment: tps({ [A]: [1, 3] }),
      currentPartitionEpoch: (_t, p) => (p === 3 ? 11 : -1),
      ownedTopicPartitions: owned({ [A]: [1] }),
    });
    expect(plain(next)).toMatchObject({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 12,
      assigned: { [A]: [1] },
    });
  });

  it('UNKNOWN state fences a member that still owns partitions, and restarts one that owns none', () => {
    const m = member({ state: MemberState.UNKNOWN, memberEpoch: 10, assignedPartitions: tps({ [A]: [1] }) });
    const input = {
      targetAssignmentEpoch: 11,
      targetAssignment: tps({ [A]: [1] }),
      currentPartitionEpoch: free,
    };
    let thrown: unknown;
    try {
      buildCurrentAssignment(m, { ...input, ownedTopicPartitions: owned({ [A]: [1] }) });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConsumerGroupError);
    expect((thrown as ConsumerGroupError).code).toBe('FENCED_MEMBER_EPOCH');
    expect(plain(buildCurrentAssignment(m, { ...input, ownedTopicPartitions: [] }))).toMatchObject({
      state: MemberState.STABLE,
      memberEpoch: 11,
    });
  });
});
