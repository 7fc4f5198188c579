import { rmSync } from 'node:fs';
import {
  type ApiCodec,
  ConsumerGroupDescribe,
  type ConsumerGroupHeartbeatRequest,
  decodeConsumerProtocolAssignment,
  ErrorCode,
  encodeConsumerProtocolAssignment,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  ListGroups,
  OffsetCommit,
  OffsetFetch,
  SyncGroup,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import {
  askOn,
  consumerGroupHeartbeat,
  consumerSubscription,
  MEMBER,
  type OwnedPartitions,
} from '../../support/group-requests.js';
import { createTopicsRaw, RawClient } from '../../support/raw-client.js';

/**
 * Online migration between the protocols (Kafka 4.1's default `group.consumer.migration.policy=bidirectional`),
 * over raw frames: a non-empty consumer group takes classic members (JoinGroup answered with the member
 * epoch, SyncGroup with the broker's assignment, Heartbeat with REBALANCE_IN_PROGRESS to catch up); a
 * non-empty classic group becomes a consumer group when a consumer-protocol member joins, its members,
 * assignments and offsets kept, and stays one across a restart; the last consumer-protocol member leaving
 * turns the group back into a classic one, which its members rejoin.
 */
let b: TestBroker;
let c: RawClient;
const dirs: string[] = [];
beforeAll(async () => {
  b = await startBroker({ groupInitialRebalanceDelayMs: 0 });
  await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
  c = await RawClient.connect(b.port);
});
afterAll(async () => {
  c.close();
  await b.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ask = <Req, Res>(codec: ApiCodec<Req, Res>, version: number, body: Req) =>
  askOn(c, codec, version, body);
const cgh = (groupId: string, over: Partial<ConsumerGroupHeartbeatRequest> = {}) =>
  consumerGroupHeartbeat(c, groupId, over);

/** A classic member's JoinGroup v5 to the topic `six` (static with `instanceId`), its protocols in order. */
function join(
  groupId: string,
  memberId: string,
  owned: OwnedPartitions = [],
  protocols = ['range', 'cooperative-sticky'],
  instanceId: string | null = null,
  topics = ['six'],
) {
  const metadata = consumerSubscription(topics, 1, owned);
  return ask(JoinGroup, 5, {
    groupId,
    memberId,
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 30_000,
    groupInstanceId: instanceId,
    protocolType: 'consumer',
    protocols: protocols.map((name) => ({ name, metadata })),
  });
}

/** A classic member's JoinGroup v5: the member id asked for, then the join with it. */
async function joinNew(groupId: string) {
  const first = await join(groupId, '');
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  return join(groupId, first.memberId);
}

/** SyncGroup v4 (klog serves 0-4: the protocol type and name of v5 are not sent). */
function sync(
  groupId: string,
  memberId: string,
  generationId: number,
  assignments: { memberId: string; assignment: Uint8Array }[] = [],
) {
  return ask(SyncGroup, 4, { groupId, generationId, memberId, groupInstanceId: null, assignments });
}

const heartbeat = async (groupId: string, memberId: string, generationId: number) =>
  (await ask(Heartbeat, 4, { groupId, generationId, memberId, groupInstanceId: null })).errorCode;

const partitionsOf = (assignment: Uint8Array) =>
  decodeConsumerProtocolAssignment(assignment).assignedPartitions.flatMap((tp) =>
    tp.partitions.map((p) => `${tp.topic}-${p}`),
  );

async function groupType(groupId: string) {
  const r = await ask(ListGroups, 5, { statesFilter: [], typesFilter: [] });
  return r.groups.find((g) => g.groupId === groupId);
}

async function describeMembers(groupId: string) {
  const d = await ask(ConsumerGroupDescribe, 1, { groupIds: [groupId], includeAuthorizedOperations: false });
  const g = d.groups[0]!;
  expect(g.errorCode, g.errorMessage ?? '').toBe(0);
  return g;
}

const linesWith = (text: string) => b.lines.filter((l) => l.includes(text));

describe('a classic member in a consumer group', () => {
  it('joins with its member epoch as generation, gets its partitions once released, and rejoins to catch up', async () => {
    const g = 'mix';
    const m1 = await cgh(g);
    expect(m1.memberEpoch).toBe(1);
    const sixId = m1.assignment!.topicPartitions[0]!.topicId;

    const first = await join(g, '');
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const x = first.memberId;
    const joined = await join(g, x);
    expect(joined).toMatchObject({
      errorCode: 0,
      generationId: 2,
      protocolName: 'range',
      leader: '',
      memberId: x,
      members: [],
    });
    // Its target's partitions are still the first member's: nothing yet, and nothing to rejoin for.
    const synced = await sync(g, x, 2);
    expect(synced.errorCode).toBe(0);
    expect(partitionsOf(synced.assignment)).toEqual([]);
    expect(await heartbeat(g, x, 2)).toBe(ErrorCode.NONE);

    // The consumer-protocol member revokes half, then acknowledges.
    const revoke = await cgh(g, {
      memberEpoch: 1,
      topicPartitions: [{ topicId: sixId, partitions: [0, 1, 2, 3, 4, 5] }],
    });
    const kept = revoke.assignment!.topicPartitions[0]!.partitions;
    expect(kept).toHaveLength(3);
    const acked = await cgh(g, { memberEpoch: 1, topicPartitions: [{ topicId: sixId, partitions: kept }] });
    expect(acked.memberEpoch).toBe(2);

    // Now the classic member's partitions are free: its heartbeat says to rejoin, and the rejoin gets them.
    expect(await heartbeat(g, x, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await join(g, x)).generationId).toBe(2);
    const mine = partitionsOf((await sync(g, x, 2)).assignment);
    expect(mine.sort()).toEqual(
      [0, 1, 2, 3, 4, 5]
        .filter((p) => !kept.includes(p))
        .map((p) => `six-${p}`)
        .sort(),
    );
    expect(await heartbeat(g, x, 2)).toBe(ErrorCode.NONE);

    const described = await describeMembers(g);
    expect(described.groupState).toBe('Stable');
    const byId = new Map(described.members.map((m) => [m.memberId, m]));
    expect(byId.get(x)).toMatchObject({ memberType: 0, memberEpoch: 2, subscribedTopicNames: ['six'] });
    expect(byId.get(MEMBER)).toMatchObject({ memberType: 1, memberEpoch: 2 });

    // Its commits are checked against its generation (ILLEGAL_GENERATION, not STALE_MEMBER_EPOCH).
    const commit = (generation: number) =>
      ask(OffsetCommit, 8, {
        groupId: g,
        generationIdOrMemberEpoch: generation,
        memberId: x,
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [
          {
            name: 'six',
            partitions: [
              {
                partitionIndex: Number(mine[0]!.slice(4)),
                committedOffset: 9,
                committedLeaderEpoch: -1,
                commitTimestamp: -1,
                committedMetadata: null,
              },
            ],
          },
        ],
      });
    expect((await commit(2)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await commit(1)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);

    // Kafka's checks on its requests.
    expect(await heartbeat(g, x, 1)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(await heartbeat(g, MEMBER, 2)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a JoinGroup whose protocols the classic members do not all support: INCONSISTENT_GROUP_PROTOCOL', async () => {
    const g = 'mix-protocols';
    expect((await cgh(g)).memberEpoch).toBe(1);
    expect((await joinNew(g)).errorCode).toBe(0);
    const r = await join(g, '', [], ['roundrobin']);
    expect(r.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const other = await ask(JoinGroup, 5, {
      groupId: g,
      memberId: '',
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      groupInstanceId: null,
      protocolType: 'connect',
      protocols: [{ name: 'range', metadata: consumerSubscription(['six']) }],
    });
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('LeaveGroup fences it and moves the group epoch; a consumer-protocol member named there is not a classic one', async () => {
    const g = 'mix-leave';
    expect((await cgh(g)).memberEpoch).toBe(1);
    const joined = await joinNew(g);
    expect(joined.errorCode).toBe(0);
    const before = (await describeMembers(g)).groupEpoch;
    const left = await ask(LeaveGroup, 3, {
      groupId: g,
      memberId: '',
      members: [
        { memberId: joined.memberId, groupInstanceId: null },
        { memberId: MEMBER, groupInstanceId: null },
      ],
    });
    expect(left.errorCode).toBe(0);
    expect(left.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID]);
    const after = await describeMembers(g);
    expect(after.groupEpoch).toBe(before + 1);
    expect(after.members.map((m) => m.memberId)).toEqual([MEMBER]);
    expect(await heartbeat(g, joined.memberId, joined.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('the last consumer-protocol member leaves: the group becomes a classic group (downgrade)', () => {
  it('its classic members rebalance in a classic group at the next generation', async () => {
    const g = 'down-live';
    expect((await cgh(g)).memberEpoch).toBe(1);
    const joined = await joinNew(g);
    const x = joined.memberId;
    expect(joined.generationId).toBe(2);
    expect((await sync(g, x, 2)).errorCode).toBe(0);

    const left = await cgh(g, { memberEpoch: -1, topicPartitions: null });
    expect(left.errorCode).toBe(0);
    expect(await groupType(g)).toMatchObject({ groupType: 'classic', groupState: 'PreparingRebalance' });
    expect(linesWith(`group ${g}: converted the consumer group to a classic group`)).toHaveLength(1);
    const gone = await ask(ConsumerGroupDescribe, 1, { groupIds: [g], includeAuthorizedOperations: false });
    expect(gone.groups[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);

    // The classic member is told to rejoin, and leads the next generation of the classic group.
    expect(await heartbeat(g, x, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoined = await join(g, x);
    expect(rejoined).toMatchObject({ errorCode: 0, generationId: 3, leader: x, protocolName: 'range' });
    const all = encodeConsumerProtocolAssignment(
      { assignedPartitions: [{ topic: 'six', partitions: [0, 1, 2, 3, 4, 5] }], userData: null },
      1,
    );
    const synced = await sync(g, x, 3, [{ memberId: x, assignment: all }]);
    expect(partitionsOf(synced.assignment)).toHaveLength(6);
    expect(await groupType(g)).toMatchObject({ groupType: 'classic', groupState: 'Stable' });
  });
});

describe('a classic static member takes the place of the last consumer-protocol member: the group becomes classic', () => {
  const staticJoin = (groupId: string, instanceId: string, topics: string[]) =>
    join(groupId, '', [], ['range'], instanceId, topics);

  it('same subscription, everyone where the target says: a Stable classic group, the new member keeps the partitions', async () => {
    const g = 'down-static';
    const m = await cgh(g, { instanceId: 'i1' });
    expect(m.memberEpoch).toBe(1);
    // It leaves as a static member does (epoch -2): its place and partitions are kept for its return.
    expect((await cgh(g, { instanceId: 'i1', memberEpoch: -2, topicPartitions: null })).errorCode).toBe(0);
    const joined = await staticJoin(g, 'i1', ['six']);
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: '' });
    expect(joined.memberId).not.toBe(MEMBER);
    expect(await groupType(g)).toMatchObject({ groupType: 'classic', groupState: 'Stable' });
    expect(linesWith(`group ${g}: converted the consumer group to a classic group`)).toHaveLength(1);
    const synced = await sync(g, joined.memberId, 1);
    expect(synced.errorCode).toBe(0);
    expect(partitionsOf(synced.assignment)).toHaveLength(6);
    expect(await heartbeat(g, joined.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('another subscription: the classic group rebalances and the new member leads it', async () => {
    const g = 'down-static-sub';
    expect((await cgh(g, { instanceId: 'i1' })).memberEpoch).toBe(1);
    expect((await cgh(g, { instanceId: 'i1', memberEpoch: -2, topicPartitions: null })).errorCode).toBe(0);
    const joined = await staticJoin(g, 'i1', ['six', 'other']);
    expect(joined.errorCode).toBe(0);
    expect(await groupType(g)).toMatchObject({ groupType: 'classic', groupState: 'PreparingRebalance' });
    const rejoined = await join(g, joined.memberId, [], ['range'], 'i1', ['six', 'other']);
    expect(rejoined).toMatchObject({ errorCode: 0, generationId: 2, leader: joined.memberId });
  });

  it('a consumer-protocol member still in the group: the classic static member joins the consumer group', async () => {
    const g = 'stay-static';
    expect((await cgh(g, { instanceId: 'i1' })).memberEpoch).toBe(1);
    expect((await cgh(g, { memberId: 'other-member-0000000000', instanceId: null })).errorCode).toBe(0);
    expect((await cgh(g, { instanceId: 'i1', memberEpoch: -2, topicPartitions: null })).errorCode).toBe(0);
    expect((await staticJoin(g, 'i1', ['six'])).errorCode).toBe(0);
    expect(await groupType(g)).toMatchObject({ groupType: 'consumer' });
  });
});

describe('a consumer-protocol member joins a non-empty classic group: the group becomes a consumer group (upgrade)', () => {
  it('members, assignments and offsets kept; the classic member rejoins and the partitions are shared; a restart keeps it', async () => {
    const g = 'up-live';
    const joined = await joinNew(g);
    const x = joined.memberId;
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: x });
    const all = encodeConsumerProtocolAssignment(
      { assignedPartitions: [{ topic: 'six', partitions: [0, 1, 2, 3, 4, 5] }], userData: null },
      1,
    );
    expect(partitionsOf((await sync(g, x, 1, [{ memberId: x, assignment: all }])).assignment)).toHaveLength(
      6,
    );
    const committed = await ask(OffsetCommit, 8, {
      groupId: g,
      generationIdOrMemberEpoch: 1,
      memberId: x,
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: 'six',
          partitions: [
            {
              partitionIndex: 4,
              committedOffset: 21,
              committedLeaderEpoch: -1,
              commitTimestamp: -1,
              committedMetadata: null,
            },
          ],
        },
      ],
    });
    expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(0);

    const m = await cgh(g);
    expect(m.errorCode, m.errorMessage ?? '').toBe(0);
    expect(m.memberEpoch).toBe(2);
    expect(m.assignment!.topicPartitions).toEqual([]);
    expect(await groupType(g)).toMatchObject({ groupType: 'consumer' });
    expect(
      linesWith(`group ${g}: converted the classic group to a consumer group (1 classic member(s) kept)`),
    ).toHaveLength(1);
    const d = await describeMembers(g);
    const classic = d.members.find((mm) => mm.memberId === x)!;
    expect(classic).toMatchObject({ memberType: 0, memberEpoch: 1 });
    expect(classic.assignment.topicPartitions[0]!.partitions).toHaveLength(6);
    expect(classic.targetAssignment.topicPartitions[0]!.partitions).toHaveLength(3);

    // The classic member catches up: an eager consumer rejoins owning nothing, and gets its half.
    expect(await heartbeat(g, x, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await join(g, x)).generationId).toBe(2);
    const mine = partitionsOf((await sync(g, x, 2)).assignment);
    expect(mine).toHaveLength(3);
    const theirs = await cgh(g, { memberEpoch: 2, topicPartitions: [] });
    const sixId = theirs.assignment!.topicPartitions[0]!.topicId;
    const other = theirs.assignment!.topicPartitions[0]!.partitions.map((p) => `six-${p}`);
    expect([...mine, ...other].sort()).toEqual([0, 1, 2, 3, 4, 5].map((p) => `six-${p}`));

    const offsets = await ask(OffsetFetch, 9, {
      groupId: '',
      topics: [],
      groups: [{ groupId: g, memberId: MEMBER, memberEpoch: 2, topics: null }],
      requireStable: false,
    });
    expect(offsets.groups[0]!.topics[0]!.partitions).toEqual([
      expect.objectContaining({ partitionIndex: 4, committedOffset: 21 }),
    ]);

    // After a restart the group is the same consumer group with its classic member.
    c.close();
    dirs.push(b.dataDir);
    b = await b.restart();
    c = await RawClient.connect(b.port);
    expect(await groupType(g)).toMatchObject({ groupType: 'consumer' });
    expect(await heartbeat(g, x, 2)).toBe(ErrorCode.NONE);
    const again = await describeMembers(g);
    expect(again.members.find((mm) => mm.memberId === x)).toMatchObject({ memberType: 0, memberEpoch: 2 });
    expect(
      (await cgh(g, { memberEpoch: 2, topicPartitions: [{ topicId: sixId, partitions: [] }] })).errorCode,
    ).toBe(0);
  });

  it("a group whose members' embedded protocol does not decode stays classic: GROUP_ID_NOT_FOUND in Kafka's words", async () => {
    const g = 'up-malformed';
    const body = {
      groupId: g,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: new Uint8Array([0]) }],
    };
    const first = await ask(JoinGroup, 5, { ...body, memberId: '' });
    expect((await ask(JoinGroup, 5, { ...body, memberId: first.memberId })).errorCode).toBe(0);
    const r = await cgh(g);
    expect(r).toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorMessage: `Cannot upgrade classic group ${g} to consumer group because the embedded consumer protocol is malformed.`,
    });
    expect(await groupType(g)).toMatchObject({ groupType: 'classic' });
  });

  it('a custom client-side assignor (user data in the assignment) keeps the group classic', async () => {
    const g = 'up-custom';
    const joined = await joinNew(g);
    const custom = encodeConsumerProtocolAssignment(
      { assignedPartitions: [{ topic: 'six', partitions: [0] }], userData: new Uint8Array([7]) },
      1,
    );
    expect(
      (await sync(g, joined.memberId, 1, [{ memberId: joined.memberId, assignment: custom }])).errorCode,
    ).toBe(0);
    const r = await cgh(g);
    expect(r.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(r.errorMessage).toBe(
      `Cannot upgrade classic group ${g} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`,
    );
  });
});
