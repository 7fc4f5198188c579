import {
  type ApiCodec,
  ConsumerGroupDescribe,
  type ConsumerGroupHeartbeatRequest,
  DescribeGroups,
  ErrorCode,
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
import { askOn, consumerGroupHeartbeat, consumerSubscription, MEMBER } from '../../support/group-requests.js';
import { createTopicsRaw, RawClient } from '../../support/raw-client.js';

/**
 * Both protocols in one broker, over raw frames: ListGroups and DescribeGroups report a consumer group as
 * Kafka 4.1 does, an empty group changes protocol both ways; under migration policy `disabled` a non-empty
 * one keeps its protocol (the online conversions are consumer-group-migration.test.ts), and a consumer
 * group refuses what is not a classic member of it, with Kafka's error and one broker log line.
 */
let b: TestBroker;
let c: RawClient;
beforeAll(async () => {
  b = await startBroker({ groupInitialRebalanceDelayMs: 0 });
  await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
  c = await RawClient.connect(b.port);
});
afterAll(async () => {
  c.close();
  await b.stop();
});

const ask = <Req, Res>(codec: ApiCodec<Req, Res>, version: number, body: Req) =>
  askOn(c, codec, version, body);

/** A Java consumer's `ConsumerProtocolSubscription` v0 for the topic `six`. */
const SUBSCRIPTION = consumerSubscription(['six'], 0);

const cgh = (groupId: string, over: Partial<ConsumerGroupHeartbeatRequest> = {}, client = c) =>
  consumerGroupHeartbeat(client, groupId, over);

/** A classic member joins (JoinGroup v5, the member id asked for first): the group is not empty after. */
async function classicJoin(groupId: string, client = c, metadata: Uint8Array = new Uint8Array(0)) {
  const join = {
    groupId,
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 30_000,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata }],
  };
  const first = await askOn(client, JoinGroup, 5, { ...join, memberId: '' });
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  return askOn(client, JoinGroup, 5, { ...join, memberId: first.memberId });
}

const listGroups = (typesFilter: string[] = [], statesFilter: string[] = []) =>
  ask(ListGroups, 5, { statesFilter, typesFilter });

const linesWith = (text: string) => b.lines.filter((l) => l.includes(text));

describe('ListGroups and DescribeGroups of a consumer group', () => {
  it('ListGroups reports type and protocol type consumer and the consumer state; the types filter takes consumer', async () => {
    expect((await cgh('listed')).errorCode).toBe(0);
    expect((await classicJoin('listed-classic')).errorCode).toBe(0);
    const described = await ask(ConsumerGroupDescribe, 0, {
      groupIds: ['listed'],
      includeAuthorizedOperations: false,
    });
    const state = described.groups[0]!.groupState;
    expect(['Empty', 'Assigning', 'Reconciling', 'Stable']).toContain(state);

    const all = await listGroups();
    expect(all.groups.find((g) => g.groupId === 'listed')).toEqual({
      groupId: 'listed',
      protocolType: 'consumer',
      groupState: state,
      groupType: 'consumer',
    });
    expect(all.groups.find((g) => g.groupId === 'listed-classic')).toMatchObject({
      protocolType: 'consumer',
      groupType: 'classic',
    });
    const ids = (r: { groups: { groupId: string }[] }) => r.groups.map((g) => g.groupId).sort();
    expect(ids(await listGroups(['consumer']))).toContain('listed');
    expect(ids(await listGroups(['consumer']))).not.toContain('listed-classic');
    expect(ids(await listGroups(['Classic']))).toContain('listed-classic');
    expect(ids(await listGroups(['Classic']))).not.toContain('listed');
    expect(ids(await listGroups(['share']))).toEqual([]);
    expect(ids(await listGroups([], [state.toUpperCase()]))).toContain('listed');
    expect(ids(await listGroups([], ['PreparingRebalance']))).not.toContain('listed');
  });

  it('DescribeGroups (classic, up to v5) of a consumer group: Dead with no members, as Kafka before v6', async () => {
    expect((await cgh('described')).errorCode).toBe(0);
    const r = await ask(DescribeGroups, 5, { groups: ['described'], includeAuthorizedOperations: false });
    expect(r.groups[0]).toMatchObject({
      errorCode: 0,
      groupId: 'described',
      groupState: 'Dead',
      protocolType: '',
      members: [],
    });
  });
});

describe('an empty group changes protocol', () => {
  it('ConsumerGroupHeartbeat (epoch 0) to an empty classic group: its tombstone, a consumer group, offsets kept', async () => {
    // A commit without membership makes a simple classic group (Empty, no protocol type).
    const committed = await ask(OffsetCommit, 8, {
      groupId: 'up',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: 'six',
          partitions: [
            {
              partitionIndex: 2,
              committedOffset: 17,
              committedLeaderEpoch: -1,
              commitTimestamp: -1,
              committedMetadata: null,
            },
          ],
        },
      ],
    });
    expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await listGroups(['classic'])).groups.map((g) => g.groupId)).toContain('up');

    const joined = await cgh('up');
    expect(joined.errorCode, joined.errorMessage ?? '').toBe(0);
    expect(joined.memberEpoch).toBe(1);
    expect((await listGroups()).groups.filter((g) => g.groupId === 'up')).toMatchObject([
      { groupType: 'consumer' },
    ]);
    expect(linesWith('group up: converted the empty classic group to a consumer group')).toHaveLength(1);
    const fetched = await ask(OffsetFetch, 9, {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'up', memberId: MEMBER, memberEpoch: 1, topics: null }],
      requireStable: false,
    });
    expect(fetched.groups[0]!.topics[0]!.partitions[0]).toMatchObject({
      partitionIndex: 2,
      committedOffset: 17,
    });
  });

  it('JoinGroup to an empty consumer group: the consumer group is deleted and the member joins a classic one', async () => {
    expect((await cgh('down')).memberEpoch).toBe(1);
    const left = await cgh('down', { memberEpoch: -1, topicPartitions: null });
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    const joined = await classicJoin('down');
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1 });
    expect((await listGroups()).groups.filter((g) => g.groupId === 'down')).toMatchObject([
      { groupType: 'classic', protocolType: 'consumer' },
    ]);
    expect(linesWith('group down: converted the empty consumer group to a classic group')).toHaveLength(1);
    const gone = await ask(ConsumerGroupDescribe, 0, {
      groupIds: ['down'],
      includeAuthorizedOperations: false,
    });
    expect(gone.groups[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});

describe('under group.consumer.migration.policy=disabled a non-empty group keeps its protocol', () => {
  let plain: TestBroker;
  let client: RawClient;
  beforeAll(async () => {
    plain = await startBroker({ groupInitialRebalanceDelayMs: 0, groupConsumerMigrationPolicy: 'disabled' });
    await createTopicsRaw(plain.port, [{ name: 'six', partitions: 6 }]);
    client = await RawClient.connect(plain.port);
  });
  afterAll(async () => {
    client.close();
    await plain.stop();
  });
  const askPlain = <Req, Res>(codec: ApiCodec<Req, Res>, version: number, body: Req) =>
    askOn(client, codec, version, body);
  const cghPlain = (groupId: string, over: Partial<ConsumerGroupHeartbeatRequest> = {}) =>
    cgh(groupId, over, client);
  const classicJoinPlain = (groupId: string) => classicJoin(groupId, client, SUBSCRIPTION);
  const groupsOf = async (groupId: string) =>
    (await askPlain(ListGroups, 5, { statesFilter: [], typesFilter: [] })).groups.filter(
      (g) => g.groupId === groupId,
    );

  it("ConsumerGroupHeartbeat to a non-empty classic group: GROUP_ID_NOT_FOUND with Kafka's message", async () => {
    expect((await classicJoinPlain('busy-classic')).errorCode).toBe(0);
    const r = await cghPlain('busy-classic');
    expect(r.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(r.errorMessage).toBe(
      'Cannot upgrade classic group busy-classic to consumer group because online upgrade is disabled.',
    );
    expect(
      plain.lines.filter((l) =>
        l.includes('group busy-classic: ConsumerGroupHeartbeat refused with GROUP_ID_NOT_FOUND'),
      ),
    ).toHaveLength(1);
    // Past the join (epoch > 0): the group is not a consumer group.
    const later = await cghPlain('busy-classic', { memberEpoch: 1 });
    expect(later).toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorMessage: 'Group busy-classic is not a consumer group.',
    });
    expect(await groupsOf('busy-classic')).toMatchObject([{ groupType: 'classic' }]);
  });

  it('a classic member still joins a consumer group, and the group stays one when the consumer-protocol member leaves', async () => {
    expect((await cghPlain('stays')).memberEpoch).toBe(1);
    const joined = await classicJoinPlain('stays');
    expect(joined).toMatchObject({ errorCode: 0, generationId: 2 });
    expect((await cghPlain('stays', { memberEpoch: -1, topicPartitions: null })).errorCode).toBe(0);
    expect(await groupsOf('stays')).toMatchObject([{ groupType: 'consumer' }]);
    expect(
      plain.lines.filter((l) =>
        l.includes(
          'group stays: Cannot downgrade consumer group stays to classic group because the online downgrade is disabled.',
        ),
      ),
    ).toHaveLength(1);
    const d = await askPlain(ConsumerGroupDescribe, 1, {
      groupIds: ['stays'],
      includeAuthorizedOperations: false,
    });
    expect(d.groups[0]!.members.map((m) => [m.memberId, m.memberType])).toEqual([[joined.memberId, 0]]);
  });
});

describe('a consumer group refuses what is not one of its classic members, with one log line', () => {
  it('JoinGroup with another embedded protocol than consumer: INCONSISTENT_GROUP_PROTOCOL', async () => {
    expect((await cgh('busy-consumer')).memberEpoch).toBe(1);
    const r = await ask(JoinGroup, 5, {
      groupId: 'busy-consumer',
      memberId: '',
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      groupInstanceId: null,
      protocolType: 'connect',
      protocols: [{ name: 'range', metadata: new Uint8Array(0) }],
    });
    expect(r.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(linesWith('group busy-consumer: JoinGroup refused with INCONSISTENT_GROUP_PROTOCOL')).toHaveLength(
      1,
    );
    expect((await listGroups(['consumer'])).groups.map((g) => g.groupId)).toContain('busy-consumer');
  });

  it('classic Heartbeat, SyncGroup and LeaveGroup from a consumer-protocol member: UNKNOWN_MEMBER_ID', async () => {
    const heartbeatToRouted = { groupId: 'routed', generationId: 1, memberId: MEMBER, groupInstanceId: null };
    expect((await cgh('routed')).memberEpoch).toBe(1);
    const hb = await ask(Heartbeat, 3, heartbeatToRouted);
    expect(hb.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const sync = await ask(SyncGroup, 3, {
      groupId: 'routed',
      generationId: 1,
      memberId: MEMBER,
      groupInstanceId: null,
      assignments: [],
    });
    expect(sync.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const leave = await ask(LeaveGroup, 3, {
      groupId: 'routed',
      memberId: '',
      members: [{ memberId: MEMBER, groupInstanceId: null }],
    });
    expect(leave.errorCode).toBe(0);
    expect(leave.members.map((m) => m.errorCode)).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    for (const api of ['Heartbeat', 'SyncGroup', 'LeaveGroup'])
      expect(linesWith(`group routed: ${api} refused with UNKNOWN_MEMBER_ID`)).toHaveLength(1);
    // The member is still in its consumer group.
    const d = await ask(ConsumerGroupDescribe, 0, {
      groupIds: ['routed'],
      includeAuthorizedOperations: false,
    });
    expect(d.groups[0]!.members.map((m) => m.memberId)).toEqual([MEMBER]);

    // A classic client that keeps heartbeating gets the same answer each time, and the log one line.
    for (let i = 0; i < 20; i++) {
      const again = await ask(Heartbeat, 3, heartbeatToRouted);
      expect(again.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    }
    expect(linesWith('group routed: Heartbeat refused with UNKNOWN_MEMBER_ID')).toHaveLength(1);
  });
});
