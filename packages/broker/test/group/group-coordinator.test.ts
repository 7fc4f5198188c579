import { decodeGroupMetadataValue, decodeOffsetCommitValue, decodeOffsetsRecordKey } from '@klog/protocol';
import { describe, expect, it } from 'vitest';
import type { JoinResult } from '../../src/group/classic-group.js';
import { encodeConsumerGroupRecord } from '../../src/group/consumer-record-serde.js';
import {
  GroupCoordinator,
  type GroupCoordinatorConfig,
  type GroupLog,
  GroupLogError,
  type JoinGroupInput,
  type OffsetsRecord,
} from '../../src/group/group-coordinator.js';
import { newConsumerGroupEpochRecord } from '../../src/group/modern/index.js';
import { newOffsetCommitRecord } from '../../src/group/record-helpers.js';
import { FakeTimer } from '../support/fake-timer.js';

/** The records the coordinator wrote, in order, as a log would keep them. */
class MemoryLog implements GroupLog {
  readonly records: (OffsetsRecord & { groupId: string })[] = [];
  failWith: GroupLogError | undefined;
  append(groupId: string, records: readonly OffsetsRecord[]): void {
    if (this.failWith !== undefined) throw this.failWith;
    for (const r of records) this.records.push({ groupId, ...r });
  }
}

const bytes = (...b: number[]) => Uint8Array.from(b);
const SESSION = 10_000;
const REBALANCE = 30_000;

function setup(
  config: Partial<GroupCoordinatorConfig> = {},
  partitionExists = (_t: string, _p: number) => true,
) {
  const timer = new FakeTimer();
  const log = new MemoryLog();
  let n = 0;
  const events: string[] = [];
  const coordinator = new GroupCoordinator(
    timer,
    log,
    { groupInitialRebalanceDelayMs: 0, ...config },
    partitionExists,
    () => `id${++n}`,
    (l) => events.push(l),
  );
  return { timer, log, coordinator, events };
}

function joinInput(over: Partial<JoinGroupInput> = {}): JoinGroupInput {
  return {
    groupId: 'g',
    memberId: '',
    groupInstanceId: null,
    sessionTimeoutMs: SESSION,
    rebalanceTimeoutMs: REBALANCE,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: bytes(1, 2, 3) }],
    clientId: 'c',
    clientHost: '/127.0.0.1',
    requireKnownMemberId: true,
    ...over,
  };
}

/** A promise's value if it has settled by now (after pending microtasks), else 'pending'. */
async function settled<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

/** Join as a new member the KIP-394 way: MEMBER_ID_REQUIRED first, then the join with that id. */
async function joinNew(
  c: GroupCoordinator,
  over: Partial<JoinGroupInput> = {},
): Promise<{ memberId: string; join: Promise<JoinResult> }> {
  const first = await c.join(joinInput(over));
  expect(first.errorCode).toBe('MEMBER_ID_REQUIRED');
  return { memberId: first.memberId, join: c.join(joinInput({ ...over, memberId: first.memberId })) };
}

/** One member through a whole first rebalance to Stable. */
async function stableWithOne(c: GroupCoordinator) {
  const a = await joinNew(c);
  const ja = await a.join;
  const sa = await c.sync({
    groupId: 'g',
    generationId: ja.generationId,
    memberId: a.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: a.memberId, assignment: bytes(7) }],
  });
  return { a: a.memberId, ja, sa };
}

/** One member of a `consumer` group whose subscription (ConsumerProtocolSubscription v0) names topic "t", Stable. */
async function stableSubscribedToT(c: GroupCoordinator): Promise<{ memberId: string }> {
  const sub = bytes(0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0xff, 0xff, 0xff, 0xff);
  const a = await joinNew(c, { protocols: [{ name: 'range', metadata: sub }] });
  const ja = await a.join;
  await c.sync({
    groupId: 'g',
    generationId: ja.generationId,
    memberId: a.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
  return { memberId: a.memberId };
}

describe('JoinGroup and SyncGroup: Empty → PreparingRebalance → CompletingRebalance → Stable', () => {
  it('a first join gets MEMBER_ID_REQUIRED and an id (KIP-394); the join with it makes generation 1, led by it', async () => {
    const { coordinator: c, log } = setup();
    const first = await c.join(joinInput({ clientId: 'app' }));
    expect(first).toMatchObject({ errorCode: 'MEMBER_ID_REQUIRED', memberId: 'app-id1', generationId: -1 });
    expect(c.group('g')!.state).toBe('Empty');
    const joined = await c.join(joinInput({ memberId: 'app-id1' }));
    expect(joined).toEqual({
      errorCode: 'NONE',
      generationId: 1,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: 'app-id1',
      memberId: 'app-id1',
      members: [{ memberId: 'app-id1', groupInstanceId: null, metadata: bytes(1, 2, 3) }],
    });
    expect(c.group('g')!.state).toBe('CompletingRebalance');
    const synced = await c.sync({
      groupId: 'g',
      generationId: 1,
      memberId: 'app-id1',
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [{ memberId: 'app-id1', assignment: bytes(9, 9) }],
    });
    expect(synced).toEqual({
      errorCode: 'NONE',
      protocolType: 'consumer',
      protocolName: 'range',
      assignment: bytes(9, 9),
    });
    expect(c.group('g')!.state).toBe('Stable');
    // The stable generation is written: GroupMetadataValue with the member's bytes untouched.
    expect(log.records).toHaveLength(1);
    expect(decodeOffsetsRecordKey(log.records[0]!.key)).toEqual({
      kind: 'groupMetadata',
      version: 2,
      group: 'g',
    });
    const v = decodeGroupMetadataValue(log.records[0]!.value!);
    expect(v).toMatchObject({
      protocolType: 'consumer',
      generation: 1,
      protocol: 'range',
      leader: 'app-id1',
    });
    expect(v.members[0]).toMatchObject({
      memberId: 'app-id1',
      subscription: bytes(1, 2, 3),
      assignment: bytes(9, 9),
      sessionTimeout: SESSION,
      rebalanceTimeout: REBALANCE,
    });
  });

  it('JoinGroup before v4 adds the member at once (no MEMBER_ID_REQUIRED)', async () => {
    const { coordinator: c } = setup();
    const r = await c.join(joinInput({ requireKnownMemberId: false }));
    expect(r).toMatchObject({ errorCode: 'NONE', generationId: 1, memberId: 'c-id1', leader: 'c-id1' });
  });

  it('a second member: the first hears REBALANCE_IN_PROGRESS on its heartbeat, rejoins, and the follower waits for the leader’s assignment', async () => {
    const { coordinator: c } = setup();
    const { a } = await stableWithOne(c);
    const b = await joinNew(c, { protocols: [{ name: 'range', metadata: bytes(4) }] });
    expect(await settled(b.join)).toBe('pending');
    expect(c.group('g')!.state).toBe('PreparingRebalance');
    expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null })).toBe(
      'REBALANCE_IN_PROGRESS',
    );
    // Offsets may still be committed for the generation being left.
    expect(
      c.commit({
        groupId: 'g',
        generationId: 1,
        memberId: a,
        groupInstanceId: null,
        retentionTimeMs: -1,
        apiVersion: 8,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null },
            ],
          },
        ],
      })[0]!.partitions[0]!.errorCode,
    ).toBe('NONE');
    const ja = await c.join(joinInput({ memberId: a }));
    const jb = await b.join;
    expect(ja).toMatchObject({ errorCode: 'NONE', generationId: 2, leader: a });
    expect(ja.members.map((m) => [m.memberId, [...m.metadata]])).toEqual([
      [a, [1, 2, 3]],
      [b.memberId, [4]],
    ]);
    expect(jb).toMatchObject({ errorCode: 'NONE', generationId: 2, leader: a, members: [] });
    const followerSync = c.sync({
      groupId: 'g',
      generationId: 2,
      memberId: b.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    expect(await settled(followerSync)).toBe('pending');
    // Heartbeats are fine while the leader assigns; commits are not.
    expect(c.heartbeat({ groupId: 'g', generationId: 2, memberId: b.memberId, groupInstanceId: null })).toBe(
      'NONE',
    );
    expect(
      c.commit({
        groupId: 'g',
        generationId: 2,
        memberId: b.memberId,
        groupInstanceId: null,
        retentionTimeMs: -1,
        apiVersion: 8,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null },
            ],
          },
        ],
      })[0]!.partitions[0]!.errorCode,
    ).toBe('REBALANCE_IN_PROGRESS');
    const leaderSync = await c.sync({
      groupId: 'g',
      generationId: 2,
      memberId: a,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [
        { memberId: a, assignment: bytes(1) },
        { memberId: b.memberId, assignment: bytes(2, 2) },
      ],
    });
    expect(leaderSync.assignment).toEqual(bytes(1));
    expect(await followerSync).toMatchObject({ errorCode: 'NONE', assignment: bytes(2, 2) });
    expect(c.group('g')!.state).toBe('Stable');
  });

  it('ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID and INCONSISTENT_GROUP_PROTOCOL', async () => {
    const { coordinator: c } = setup();
    const { a } = await stableWithOne(c);
    expect(c.heartbeat({ groupId: 'g', generationId: 0, memberId: a, groupInstanceId: null })).toBe(
      'ILLEGAL_GENERATION',
    );
    expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: 'nobody', groupInstanceId: null })).toBe(
      'UNKNOWN_MEMBER_ID',
    );
    expect(c.heartbeat({ groupId: 'other', generationId: 1, memberId: a, groupInstanceId: null })).toBe(
      'UNKNOWN_MEMBER_ID',
    );
    expect(
      (
        await c.sync({
          groupId: 'g',
          generationId: 7,
          memberId: a,
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: [],
        })
      ).errorCode,
    ).toBe('ILLEGAL_GENERATION');
    expect(
      (
        await c.sync({
          groupId: 'g',
          generationId: 1,
          memberId: a,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocolName: 'roundrobin',
          assignments: [],
        })
      ).errorCode,
    ).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect((await c.join(joinInput({ memberId: 'nobody' }))).errorCode).toBe('UNKNOWN_MEMBER_ID');
    expect((await c.join(joinInput({ protocolType: 'connect' }))).errorCode).toBe(
      'INCONSISTENT_GROUP_PROTOCOL',
    );
    expect((await c.join(joinInput({ protocols: [{ name: 'sticky', metadata: bytes() }] }))).errorCode).toBe(
      'INCONSISTENT_GROUP_PROTOCOL',
    );
    expect((await c.join(joinInput({ groupId: 'h', protocols: [] }))).errorCode).toBe(
      'INCONSISTENT_GROUP_PROTOCOL',
    );
    expect((await c.join(joinInput({ groupId: 'h', protocolType: '' }))).errorCode).toBe(
      'INCONSISTENT_GROUP_PROTOCOL',
    );
    expect(c.group('h')).toBeUndefined();
    expect((await c.join(joinInput({ groupId: '' }))).errorCode).toBe('INVALID_GROUP_ID');
    expect((await c.join(joinInput({ groupId: 'h', sessionTimeoutMs: 10 }))).errorCode).toBe(
      'INVALID_SESSION_TIMEOUT',
    );
  });

  it('the protocol most members prefer among those all support', async () => {
    const { coordinator: c, timer } = setup({ groupInitialRebalanceDelayMs: 100 });
    const p = (...names: string[]) => names.map((name) => ({ name, metadata: bytes(names.indexOf(name)) }));
    const a = await joinNew(c, { protocols: p('range', 'roundrobin') });
    const b = await joinNew(c, { protocols: p('roundrobin', 'range', 'sticky') });
    const d = await joinNew(c, { protocols: p('sticky', 'roundrobin') });
    // Members came during the first 100 ms: the delay runs once more.
    timer.advance(200);
    for (const j of [a, b, d]) expect((await j.join).protocolName).toBe('roundrobin');
  });
});

describe('timeouts on the clock', () => {
  it('a member that stops heartbeating is removed after its session timeout; the group rebalances without it', async () => {
    const { coordinator: c, timer, events } = setup();
    const { a } = await stableWithOne(c);
    const b = await joinNew(c);
    const ja = await c.join(joinInput({ memberId: a }));
    await b.join;
    await Promise.all([
      c.sync({
        groupId: 'g',
        generationId: ja.generationId,
        memberId: a,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [],
      }),
      c.sync({
        groupId: 'g',
        generationId: ja.generationId,
        memberId: b.memberId,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [],
      }),
    ]);
    // a heartbeats every 3 s; b has been killed.
    for (let t = 3000; t < SESSION; t += 3000) {
      timer.advance(3000);
      expect(c.heartbeat({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null })).toBe('NONE');
    }
    expect(c.group('g')!.members.has(b.memberId)).toBe(true);
    timer.advance(SESSION - 9000);
    expect(c.group('g')!.members.has(b.memberId)).toBe(false);
    expect(events.some((e) => e.includes(`member ${b.memberId} expired`))).toBe(true);
    expect(c.heartbeat({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null })).toBe(
      'REBALANCE_IN_PROGRESS',
    );
    const again = await c.join(joinInput({ memberId: a }));
    expect(again).toMatchObject({ errorCode: 'NONE', generationId: 3, members: [{ memberId: a }] });
  });

  it('a member that does not rejoin within the rebalance timeout is left out of the next generation', async () => {
    const { coordinator: c, timer } = setup();
    const { a } = await stableWithOne(c);
    const b = await joinNew(c);
    // a keeps heartbeating (told REBALANCE_IN_PROGRESS) but never rejoins.
    for (let t = 3000; t < REBALANCE; t += 3000) {
      timer.advance(3000);
      expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null })).toBe(
        'REBALANCE_IN_PROGRESS',
      );
    }
    timer.advance(REBALANCE - 27_000 - 1);
    expect(await settled(b.join)).toBe('pending');
    timer.advance(1);
    expect(await b.join).toMatchObject({ errorCode: 'NONE', generationId: 2, leader: b.memberId });
    expect([...c.group('g')!.members.keys()]).toEqual([b.memberId]);
    expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null })).toBe(
      'UNKNOWN_MEMBER_ID',
    );
  });

  it('a member that does not sync within the rebalance timeout is removed, and the group rebalances', async () => {
    const { coordinator: c, timer } = setup();
    const a = await joinNew(c);
    const ja = await a.join;
    expect(ja.generationId).toBe(1);
    timer.advance(REBALANCE);
    expect(c.group('g')!.members.size).toBe(0);
    expect(c.group('g')!.state).toBe('Empty');
  });

  it('a pending member that never comes back with its id expires after its session timeout', async () => {
    const { coordinator: c, timer } = setup();
    const first = await c.join(joinInput());
    expect(c.group('g')!.pendingMembers.has(first.memberId)).toBe(true);
    timer.advance(SESSION);
    expect(c.group('g')!.pendingMembers.size).toBe(0);
    expect((await c.join(joinInput({ memberId: first.memberId }))).errorCode).toBe('UNKNOWN_MEMBER_ID');
  });

  it('group.initial.rebalance.delay.ms: the first rebalance waits, and again while members keep coming', async () => {
    const { coordinator: c, timer } = setup({ groupInitialRebalanceDelayMs: 3000 });
    const a = await joinNew(c);
    timer.advance(2000);
    const b = await joinNew(c);
    timer.advance(1000);
    // The delay ran out with a new member in it: it waits another 3 s.
    expect(await settled(a.join)).toBe('pending');
    timer.advance(2999);
    expect(await settled(b.join)).toBe('pending');
    timer.advance(1);
    expect((await a.join).members).toHaveLength(2);
    expect((await b.join).generationId).toBe(1);
  });
});

describe('static membership (group.instance.id, KIP-345)', () => {
  it('joins without MEMBER_ID_REQUIRED; a restart with the same instance id takes its place without a rebalance; the old id is fenced', async () => {
    const { coordinator: c } = setup();
    const leader = await stableWithOne(c);
    const s = c.join(joinInput({ groupInstanceId: 'worker-1', requireKnownMemberId: true }));
    const ja = await c.join(joinInput({ memberId: leader.a }));
    const js = await s;
    expect(js).toMatchObject({ errorCode: 'NONE', memberId: 'worker-1-id2', generationId: 2 });
    await Promise.all([
      c.sync({
        groupId: 'g',
        generationId: 2,
        memberId: leader.a,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [{ memberId: js.memberId, assignment: bytes(5) }],
      }),
      c.sync({
        groupId: 'g',
        generationId: 2,
        memberId: js.memberId,
        groupInstanceId: 'worker-1',
        protocolType: null,
        protocolName: null,
        assignments: [],
      }),
    ]);
    expect(ja.generationId).toBe(2);
    // worker-1 restarts: a new member id, same generation, no rebalance.
    const back = await c.join(joinInput({ groupInstanceId: 'worker-1' }));
    expect(back).toMatchObject({ errorCode: 'NONE', memberId: 'worker-1-id3', generationId: 2 });
    expect(c.group('g')!.state).toBe('Stable');
    expect(
      (
        await c.sync({
          groupId: 'g',
          generationId: 2,
          memberId: back.memberId,
          groupInstanceId: 'worker-1',
          protocolType: null,
          protocolName: null,
          assignments: [],
        })
      ).assignment,
    ).toEqual(bytes(5));
    expect(
      c.heartbeat({ groupId: 'g', generationId: 2, memberId: js.memberId, groupInstanceId: 'worker-1' }),
    ).toBe('FENCED_INSTANCE_ID');
    expect(c.leave('g', [{ memberId: js.memberId, groupInstanceId: 'worker-1' }]).members[0]!.errorCode).toBe(
      'FENCED_INSTANCE_ID',
    );
    expect(c.leave('g', [{ memberId: '', groupInstanceId: 'worker-1' }]).members[0]!.errorCode).toBe('NONE');
    expect(c.group('g')!.state).toBe('PreparingRebalance');
  });
});

describe('LeaveGroup', () => {
  it('a member leaves: the other rejoins alone; the last to leave leaves the group Empty, written as such', async () => {
    const { coordinator: c, log } = setup();
    const { a } = await stableWithOne(c);
    const b = await joinNew(c);
    await c.join(joinInput({ memberId: a }));
    await b.join;
    expect(
      c.leave('g', [
        { memberId: b.memberId, groupInstanceId: null },
        { memberId: 'ghost', groupInstanceId: null },
      ]),
    ).toEqual({
      errorCode: 'NONE',
      members: [
        { memberId: b.memberId, groupInstanceId: null, errorCode: 'NONE' },
        { memberId: 'ghost', groupInstanceId: null, errorCode: 'UNKNOWN_MEMBER_ID' },
      ],
    });
    expect(c.group('g')!.state).toBe('PreparingRebalance');
    const alone = await c.join(joinInput({ memberId: a }));
    expect(alone).toMatchObject({ generationId: 3, members: [{ memberId: a }] });
    c.leave('g', [{ memberId: a, groupInstanceId: null }]);
    expect(c.group('g')!.state).toBe('Empty');
    const last = decodeGroupMetadataValue(log.records.at(-1)!.value!);
    expect(last).toMatchObject({ generation: 4, protocol: null, leader: null, members: [] });
    expect(c.leave('nope', [{ memberId: a, groupInstanceId: null }]).errorCode).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('offsets', () => {
  const commit = (
    c: GroupCoordinator,
    over: {
      groupId?: string;
      generationId?: number;
      memberId?: string;
      topic?: string;
      partition?: number;
      offset?: number;
      metadata?: string | null;
    },
  ) =>
    c.commit({
      groupId: over.groupId ?? 'g',
      generationId: over.generationId ?? -1,
      memberId: over.memberId ?? '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      apiVersion: 8,
      topics: [
        {
          name: over.topic ?? 't',
          partitions: [
            {
              partitionIndex: over.partition ?? 0,
              committedOffset: over.offset ?? 10,
              committedLeaderEpoch: -1,
              committedMetadata: over.metadata ?? null,
            },
          ],
        },
      ],
    })[0]!.partitions[0]!.errorCode;

  it('a commit outside the group protocol creates the group; OffsetFetch returns it, -1 where nothing is committed', () => {
    const { coordinator: c, timer } = setup();
    expect(commit(c, { offset: 42, metadata: 'm' })).toBe('NONE');
    expect(c.group('g')!.state).toBe('Empty');
    expect(c.fetchOffsets('g', [{ name: 't', partitionIndexes: [0, 1] }]).topics[0]!.partitions).toEqual([
      {
        partitionIndex: 0,
        errorCode: 'NONE',
        offset: 42,
        leaderEpoch: -1,
        metadata: 'm',
        commitTimestamp: timer.now(),
        expireTimestamp: -1,
      },
      {
        partitionIndex: 1,
        errorCode: 'NONE',
        offset: -1,
        leaderEpoch: -1,
        metadata: '',
        commitTimestamp: -1,
        expireTimestamp: -1,
      },
    ]);
    expect(c.fetchOffsets('nobody', null)).toEqual({ errorCode: 'NONE', topics: [] });
    expect(c.fetchOffsets('g', null).topics.map((t) => [t.name, t.partitions.map((p) => p.offset)])).toEqual([
      ['t', [42]],
    ]);
  });

  it('OffsetCommit v1 (Sarama 1.22): its commit timestamp is kept, -1 is the coordinator’s clock', () => {
    const { coordinator: c, log, timer } = setup();
    const partition = (partitionIndex: number, commitTimestamp: number) => ({
      partitionIndex,
      committedOffset: 7,
      committedLeaderEpoch: -1,
      committedMetadata: null,
      commitTimestamp,
    });
    c.commit({
      groupId: 'g',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      apiVersion: 8,
      topics: [{ name: 't', partitions: [partition(0, 1_600_000_000_000), partition(1, -1)] }],
    });
    const stamps = c.fetchOffsets('g', [{ name: 't', partitionIndexes: [0, 1] }]).topics[0]!.partitions;
    expect(stamps.map((p) => [p.offset, p.commitTimestamp])).toEqual([
      [7, 1_600_000_000_000],
      [7, timer.now()],
    ]);
    // And so in the OffsetCommitValue records of __consumer_offsets.
    expect(log.records.map((r) => decodeOffsetCommitValue(r.value!).commitTimestamp)).toEqual([
      1_600_000_000_000,
      timer.now(),
    ]);
  });

  it('commits are refused with Kafka’s codes, and nothing is written for them', async () => {
    const { coordinator: c, log } = setup({}, (t) => t !== 'missing');
    expect(commit(c, { generationId: 3, memberId: 'm' })).toBe('ILLEGAL_GENERATION');
    expect(commit(c, { topic: 'missing' })).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(commit(c, { metadata: 'x'.repeat(4097) })).toBe('OFFSET_METADATA_TOO_LARGE');
    expect(commit(c, { groupId: '' })).toBe('INVALID_GROUP_ID');
    expect(log.records).toHaveLength(0);
    const { a } = await stableWithOne(c);
    expect(commit(c, { generationId: -1 })).toBe('UNKNOWN_MEMBER_ID');
    expect(commit(c, { generationId: 9, memberId: a })).toBe('ILLEGAL_GENERATION');
    expect(commit(c, { generationId: 1, memberId: a })).toBe('NONE');
    log.failWith = new GroupLogError('KAFKA_STORAGE_ERROR', 'disk full');
    expect(commit(c, { generationId: 1, memberId: a, offset: 99 })).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(c.fetchOffsets('g', [{ name: 't', partitionIndexes: [0] }]).topics[0]!.partitions[0]!.offset).toBe(
      10,
    );
  });

  it('the log read back: a new coordinator has the same offsets, and the stable group takes its members’ heartbeats', async () => {
    const { coordinator: c, log } = setup();
    const { a } = await stableWithOne(c);
    commit(c, { generationId: 1, memberId: a, offset: 5 });
    commit(c, { generationId: 1, memberId: a, offset: 6, partition: 1 });
    commit(c, { groupId: 'simple', offset: 1 });
    c.deleteGroups(['simple']);
    const again = setup();
    for (const r of log.records) again.coordinator.replay(r.key, r.value);
    again.coordinator.loaded();
    const c2 = again.coordinator;
    expect(c2.fetchOffsets('g', null).topics[0]!.partitions.map((p) => p.offset)).toEqual([5, 6]);
    expect(c2.group('simple')).toBeUndefined();
    expect(c2.group('g')!.state).toBe('Stable');
    expect(c2.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null })).toBe('NONE');
    expect(
      (
        await c2.sync({
          groupId: 'g',
          generationId: 1,
          memberId: a,
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: [],
        })
      ).assignment,
    ).toEqual(bytes(7));
    // A member that does not heartbeat after the restart is removed by its session timeout.
    again.timer.advance(SESSION);
    expect(c2.group('g')!.members.size).toBe(0);
  });

  it('DeleteGroups: NON_EMPTY_GROUP while members are in it; an Empty group goes with tombstones for its offsets', async () => {
    const { coordinator: c, log } = setup();
    const { a } = await stableWithOne(c);
    commit(c, { generationId: 1, memberId: a });
    expect(c.deleteGroups(['g', 'nope', ''])).toEqual([
      { groupId: 'g', errorCode: 'NON_EMPTY_GROUP' },
      { groupId: 'nope', errorCode: 'GROUP_ID_NOT_FOUND' },
      { groupId: '', errorCode: 'INVALID_GROUP_ID' },
    ]);
    c.leave('g', [{ memberId: a, groupInstanceId: null }]);
    const before = log.records.length;
    expect(c.deleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: 'NONE' }]);
    const tombstones = log.records.slice(before);
    expect(tombstones.map((r) => [decodeOffsetsRecordKey(r.key).kind, r.value])).toEqual([
      ['offsetCommit', null],
      ['groupMetadata', null],
    ]);
    expect(c.listGroups([], [])).toEqual([]);
  });

  it('OffsetDelete: GROUP_SUBSCRIBED_TO_TOPIC for a topic the members consume; others go', async () => {
    const { coordinator: c } = setup();
    const a = await stableSubscribedToT(c);
    commit(c, { generationId: 1, memberId: a.memberId, topic: 't' });
    commit(c, { generationId: 1, memberId: a.memberId, topic: 'u' });
    expect(
      c
        .deleteOffsets('g', [
          { name: 't', partitions: [0] },
          { name: 'u', partitions: [0] },
        ])
        .topics.map((t) => t.partitions[0]!.errorCode),
    ).toEqual(['GROUP_SUBSCRIBED_TO_TOPIC', 'NONE']);
    expect(c.fetchOffsets('g', null).topics.map((t) => t.name)).toEqual(['t']);
    expect(c.deleteOffsets('nope', []).errorCode).toBe('GROUP_ID_NOT_FOUND');
  });

  it('offsets.retention: an Empty group’s offsets expire, then the group goes; a live group’s stay', async () => {
    const { coordinator: c, timer } = setup({ offsetsRetentionMs: 60_000 });
    commit(c, { groupId: 'idle', offset: 3 });
    const { a } = await stableWithOne(c);
    commit(c, { generationId: 1, memberId: a });
    timer.advance(59_999);
    c.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null });
    expect(c.expireOffsets()).toBe(0);
    timer.advance(1);
    expect(c.expireOffsets()).toBe(1);
    expect(c.group('idle')).toBeUndefined();
    expect(c.fetchOffsets('g', null).topics).toHaveLength(1);
  });

  it("offsets.retention in a Stable consumer group (Kafka's offsetExpirationCondition): offsets of topics it does not subscribe to expire from their commit; its own topic's stay", async () => {
    const { coordinator: c, timer } = setup({ offsetsRetentionMs: 60_000 });
    const a = await stableSubscribedToT(c);
    expect(c.group('g')!.state).toBe('Stable');
    commit(c, { generationId: 1, memberId: a.memberId, topic: 't' });
    commit(c, { generationId: 1, memberId: a.memberId, topic: 'u' });
    // The member heartbeats within its session all along, so the group stays Stable.
    const live = (ms: number) => {
      timer.advance(ms);
      expect(
        c.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null }),
      ).toBe('NONE');
    };
    for (let i = 0; i < 11; i++) live(5_000);
    live(4_999);
    expect(c.expireOffsets()).toBe(0);
    live(1);
    expect(c.expireOffsets()).toBe(1);
    expect(c.fetchOffsets('g', null).topics.map((t) => t.name)).toEqual(['t']);
    expect(c.group('g')!.state).toBe('Stable');
  });

  it('offsets.retention: an offset committed with a retention time (OffsetCommit v2-v4) stays while its group is busy and not a readable consumer group; it goes once the group is Empty', async () => {
    const { coordinator: c, timer } = setup({ offsetsRetentionMs: 600_000 });
    const { a } = await stableWithOne(c);
    c.commit({
      groupId: 'g',
      generationId: 1,
      memberId: a,
      groupInstanceId: null,
      retentionTimeMs: 1_000,
      apiVersion: 2,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 4, committedLeaderEpoch: -1, committedMetadata: null },
          ],
        },
      ],
    });
    timer.advance(1_000);
    expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null })).toBe('NONE');
    expect(c.group('g')!.state).toBe('Stable');
    expect(c.expireOffsets()).toBe(0);
    expect(c.fetchOffsets('g', null).topics).toHaveLength(1);
    c.leave('g', [{ memberId: a, groupInstanceId: null }]);
    expect(c.group('g')!.state).toBe('Empty');
    expect(c.expireOffsets()).toBe(1);
    expect(c.group('g')).toBeUndefined();
  });
});

describe('bounds', () => {
  it('group.max.size: members and pending members past it get GROUP_MAX_SIZE_REACHED; other groups are not affected', async () => {
    const { coordinator: c } = setup({ groupMaxSize: 3 });
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) codes.push((await c.join(joinInput())).errorCode);
    expect(codes).toEqual([
      'MEMBER_ID_REQUIRED',
      'MEMBER_ID_REQUIRED',
      'MEMBER_ID_REQUIRED',
      'GROUP_MAX_SIZE_REACHED',
      'GROUP_MAX_SIZE_REACHED',
    ]);
    expect((await c.join(joinInput({ groupId: 'other' }))).errorCode).toBe('MEMBER_ID_REQUIRED');
  });

  it('protocol metadata past what one GroupMetadata record can hold: MESSAGE_TOO_LARGE, nothing kept', async () => {
    const { coordinator: c } = setup({ groupMaxMetadataBytes: 1000 });
    const big = await c.join(
      joinInput({
        requireKnownMemberId: false,
        protocols: [{ name: 'range', metadata: new Uint8Array(1001) }],
      }),
    );
    expect(big.errorCode).toBe('MESSAGE_TOO_LARGE');
    expect(c.group('g')).toBeUndefined();
  });

  it('close answers waiting joins and syncs NOT_COORDINATOR', async () => {
    const { coordinator: c } = setup();
    await stableWithOne(c);
    const b = await joinNew(c);
    c.close();
    expect((await b.join).errorCode).toBe('NOT_COORDINATOR');
    expect(c.heartbeat({ groupId: 'g', generationId: 1, memberId: 'x', groupInstanceId: null })).toBe(
      'NOT_COORDINATOR',
    );
  });
});

describe('replay of both protocols', () => {
  it('a simple classic group, made by an offset replayed first, gives way to the consumer group replayed after it', () => {
    const { coordinator: c } = setup();
    const offset = newOffsetCommitRecord('g', 't', 0, {
      offset: 5,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: 1,
      expireTimestamp: -1,
    });
    c.replay(offset.key, offset.value);
    expect(c.listGroups([], [])).toMatchObject([{ groupId: 'g', groupType: 'classic' }]);
    // As after compaction dropped the simple group's GroupMetadata tombstone: the consumer record follows.
    const epoch = encodeConsumerGroupRecord(newConsumerGroupEpochRecord('g', 3, 0n));
    c.replay(epoch.key, epoch.value);
    expect(c.group('g')).toBeUndefined();
    expect(c.consumerGroup('g')?.groupEpoch).toBe(3);
    expect(c.listGroups([], [])).toMatchObject([{ groupId: 'g', groupType: 'consumer' }]);
    expect(c.fetchOffsets('g', null).topics).toMatchObject([{ name: 't', partitions: [{ offset: 5 }] }]);
  });
});
