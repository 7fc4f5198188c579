import { decodeConsumerProtocolAssignment, encodeConsumerProtocolAssignment, Writer } from '@klog/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupCoordinator, JoinGroupInput } from '../../src/group/group-coordinator.js';
import { MemberState } from '../../src/group/modern/index.js';
import { tempDir } from '../support/broker.js';
import { full, heartbeat, open } from './consumer-group-harness.js';
import { byName, FakeImage, heartbeatRequest, TEST_CLIENT } from './modern/harness.js';

/**
 * The online migration's timers and records, on the coordinator with a fake clock over real
 * `__consumer_offsets` files: a classic member of a consumer group is fenced when it stops heartbeating,
 * never syncs, or never rejoins when told to; a consumer group whose last consumer-protocol member expires
 * becomes a classic group; both conversions load back from the files as they were written.
 */
const SUBSCRIPTION = new Writer()
  .int16(0, 'version')
  .arrayLength(1, 'topics')
  .string('t', 'topic')
  .nullableBytes(null, 'userData')
  .toBytes();

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

function setup() {
  const { dir, remove } = tempDir('klog-group-migration-');
  cleanups.push(remove);
  const image = new FakeImage();
  image.create('t', 4);
  const b = open(dir, image);
  cleanups.unshift(() => {
    b.coordinator.close();
    b.log.close();
  });
  return { dir, image, ...b };
}

function classicJoin(memberId: string, over: Partial<JoinGroupInput> = {}): JoinGroupInput {
  return {
    groupId: 'g',
    memberId,
    groupInstanceId: null,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 20_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: SUBSCRIPTION }],
    clientId: 'classic',
    clientHost: '/127.0.0.1',
    requireKnownMemberId: false,
    ...over,
  };
}

/** A classic member's SyncGroup with no assignments (a follower's, or any member's in a consumer group). */
function syncAt(coordinator: GroupCoordinator, memberId: string, generationId: number) {
  return coordinator.sync({
    groupId: 'g',
    generationId,
    memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
}

describe('timers of a classic member in a consumer group', () => {
  it('its session timeout (from its JoinGroup) fences it; heartbeats keep it', async () => {
    const { coordinator, timer } = setup();
    heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin(''));
    expect(joined.errorCode).toBe('NONE');
    const id = joined.memberId;
    let generationId = joined.generationId;
    const sync = () => syncAt(coordinator, id, generationId);
    expect((await sync()).errorCode).toBe('NONE');
    // Both members do what their clients do: the consumer one owns nothing it was told to give up, the
    // classic one rejoins when told to.
    for (let i = 0; i < 6; i++) {
      timer.advance(8_000);
      const a = coordinator.consumerGroup('g')!.members.get('a')!;
      heartbeat(coordinator, { memberId: 'a', memberEpoch: a.memberEpoch, topicPartitions: [] });
      const hb = coordinator.heartbeat({ groupId: 'g', generationId, memberId: id, groupInstanceId: null });
      if (hb === 'REBALANCE_IN_PROGRESS') {
        generationId = (await coordinator.join(classicJoin(id))).generationId;
        expect((await sync()).errorCode).toBe('NONE');
      } else expect(hb).toBe('NONE');
    }
    const group = coordinator.consumerGroup('g')!;
    // Its half of the 4 partitions, reached by rejoining when told to.
    expect([...group.members.get(id)!.assignedPartitions.values()].reduce((n, ps) => n + ps.size, 0)).toBe(2);
    const epoch = group.groupEpoch;
    // Silent past its own 10 s session timeout (the group's would be 45 s): fenced.
    timer.advance(8_000);
    const a = group.members.get('a')!;
    heartbeat(coordinator, { memberId: 'a', memberEpoch: a.memberEpoch, topicPartitions: [] });
    timer.advance(2_001);
    expect(coordinator.consumerGroup('g')!.members.has(id)).toBe(false);
    expect(coordinator.consumerGroup('g')!.groupEpoch).toBe(epoch + 1);
  });

  it('a JoinGroup not followed by a SyncGroup within the rebalance timeout: fenced', async () => {
    const { coordinator, timer, lines } = setup();
    heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin('', { sessionTimeoutMs: 30_000 }));
    timer.advance(19_999);
    expect(coordinator.consumerGroup('g')!.members.has(joined.memberId)).toBe(true);
    timer.advance(1);
    expect(coordinator.consumerGroup('g')!.members.has(joined.memberId)).toBe(false);
    expect(lines.some((l) => l.includes('the member failed to sync within timeout.'))).toBe(true);
  });

  it('told to rejoin (REBALANCE_IN_PROGRESS) and not rejoining within the rebalance timeout: fenced', async () => {
    const { coordinator, timer, lines } = setup();
    const a = heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin(''));
    const id = joined.memberId;
    await syncAt(coordinator, id, joined.generationId);
    // A third member moves the group epoch past the classic member's.
    heartbeat(coordinator, { memberId: 'c', ...full });
    const hb = () =>
      coordinator.heartbeat({
        groupId: 'g',
        generationId: joined.generationId,
        memberId: id,
        groupInstanceId: null,
      });
    expect(hb()).toBe('REBALANCE_IN_PROGRESS');
    for (let i = 0; i < 3; i++) {
      timer.advance(5_000);
      heartbeat(coordinator, {
        memberId: 'a',
        memberEpoch: coordinator.consumerGroup('g')!.members.get('a')!.memberEpoch,
        topicPartitions: a.assignment,
      });
      heartbeat(coordinator, {
        memberId: 'c',
        memberEpoch: coordinator.consumerGroup('g')!.members.get('c')!.memberEpoch,
      });
      expect(hb()).toBe('REBALANCE_IN_PROGRESS');
    }
    timer.advance(5_000);
    expect(coordinator.consumerGroup('g')!.members.has(id)).toBe(false);
    expect(
      lines.some((l) => l.includes('the classic member failed to join within the rebalance timeout.')),
    ).toBe(true);
  });
});

describe('the conversions, written and loaded back', () => {
  it('the last consumer-protocol member expires: a classic group, which a restart loads as written', async () => {
    const { dir, image, coordinator, timer, lines, log } = setup();
    heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin(''));
    const id = joined.memberId;
    // The classic member heartbeats; the consumer-protocol member goes silent past its 45 s session.
    for (let i = 0; i < 6; i++) {
      timer.advance(8_000);
      coordinator.heartbeat({
        groupId: 'g',
        generationId: joined.generationId,
        memberId: id,
        groupInstanceId: null,
      });
      if (i === 0) expect((await syncAt(coordinator, id, joined.generationId)).errorCode).toBe('NONE');
    }
    expect(coordinator.consumerGroup('g')).toBeUndefined();
    const classic = coordinator.group('g')!;
    expect(classic.state).toBe('PreparingRebalance');
    expect(classic.generationId).toBe(joined.generationId);
    expect([...classic.members.keys()]).toEqual([id]);
    expect(lines).toContain('group g: converted the consumer group to a classic group');

    coordinator.close();
    log.close();
    const again = open(dir, image);
    const loaded = again.coordinator.group('g')!;
    expect(again.coordinator.consumerGroup('g')).toBeUndefined();
    expect(loaded.state).toBe('Stable');
    expect([loaded.protocolName, loaded.generationId, loaded.leaderId]).toEqual([
      'range',
      classic.generationId,
      id,
    ]);
    const m = loaded.members.get(id)!;
    expect([m.sessionTimeoutMs, m.rebalanceTimeoutMs, Buffer.from(m.metadata('range')!)]).toEqual([
      10_000,
      20_000,
      Buffer.from(SUBSCRIPTION),
    ]);
    // What it owned when the group became classic (it never got past its unreleased partitions: nothing).
    expect(Buffer.from(m.assignment)).toEqual(Buffer.from(classic.members.get(id)!.assignment));
    expect(decodeConsumerProtocolAssignment(m.assignment).assignedPartitions).toEqual([]);
    again.coordinator.close();
    again.log.close();
  });

  it('a classic group upgraded by a consumer-protocol member: the same consumer group after a restart', async () => {
    const { dir, image, coordinator, log } = setup();
    const joinP = coordinator.join(classicJoin(''));
    const joined = await joinP;
    expect(joined).toMatchObject({ errorCode: 'NONE', generationId: 1 });
    const synced = await syncAt(coordinator, joined.memberId, 1);
    expect(synced.errorCode).toBe('NONE');
    const a = heartbeat(coordinator, { memberId: 'a', ...full });
    expect(a.memberEpoch).toBe(2);
    const before = coordinator.consumerGroup('g')!;
    const members = [...before.members.values()].map((m) => [
      m.memberId,
      m.memberEpoch,
      m.classicMemberMetadata?.sessionTimeoutMs ?? null,
    ]);
    expect(members).toEqual([
      [joined.memberId, 1, 10_000],
      ['a', 2, null],
    ]);
    // The whole of each member, and the group's target, come back from the log as they were in memory.
    const snapshot = (g: NonNullable<ReturnType<GroupCoordinator['consumerGroup']>>) =>
      JSON.stringify(
        [...g.members.values()].map((m) => ({
          ...m,
          assignedPartitions: [...m.assignedPartitions].map(([t, ps]) => [t, [...ps]]),
          partitionsPendingRevocation: [...m.partitionsPendingRevocation].map(([t, ps]) => [t, [...ps]]),
          classicMemberMetadata: m.classicMemberMetadata && {
            ...m.classicMemberMetadata,
            supportedProtocols: m.classicMemberMetadata.supportedProtocols.map((p) => [
              p.name,
              Buffer.from(p.metadata).toString('hex'),
            ]),
          },
          target: [...g.targetAssignmentOf(m.memberId)].map(([t, ps]) => [t, [...ps]]),
        })),
      );
    const inMemory = snapshot(before);
    expect(inMemory).toContain(Buffer.from(SUBSCRIPTION).toString('hex'));
    coordinator.close();
    log.close();
    const again = open(dir, image);
    const loaded = again.coordinator.consumerGroup('g')!;
    expect(again.coordinator.group('g')).toBeUndefined();
    expect(
      [...loaded.members.values()].map((m) => [
        m.memberId,
        m.memberEpoch,
        m.classicMemberMetadata?.sessionTimeoutMs ?? null,
      ]),
    ).toEqual(members);
    expect(snapshot(loaded)).toBe(inMemory);
    expect([loaded.groupEpoch, loaded.assignmentEpoch]).toEqual([before.groupEpoch, before.assignmentEpoch]);
    again.coordinator.close();
    again.log.close();
  });

  it('a classic group waiting in a rebalance: its joins are answered REBALANCE_IN_PROGRESS by the upgrade', async () => {
    const { coordinator } = setup();
    const first = await coordinator.join(classicJoin(''));
    await syncAt(coordinator, first.memberId, 1);
    // A second classic member starts a rebalance, and waits for the first to rejoin.
    const waiting = coordinator.join(classicJoin(''));
    let answered: string | undefined;
    void waiting.then((r) => {
      answered = r.errorCode;
    });
    await Promise.resolve();
    expect(answered).toBeUndefined();
    heartbeat(coordinator, { memberId: 'a', ...full });
    expect(await waiting).toMatchObject({ errorCode: 'REBALANCE_IN_PROGRESS' });
    expect(coordinator.consumerGroup('g')!.members.size).toBe(3);
  });

  it("a classic group waiting for its leader's SyncGroup: the waiting SyncGroup is answered REBALANCE_IN_PROGRESS", async () => {
    const { coordinator } = setup();
    const leader = await coordinator.join(classicJoin(''));
    await syncAt(coordinator, leader.memberId, 1);
    const follower = coordinator.join(classicJoin(''));
    // The leader rejoins; the follower's join completes with it, and the follower syncs first and waits.
    const rejoined = await coordinator.join(classicJoin(leader.memberId));
    const f = await follower;
    expect([rejoined.generationId, f.generationId]).toEqual([2, 2]);
    const waiting = syncAt(coordinator, f.memberId, 2);
    heartbeat(coordinator, { memberId: 'a', ...full });
    expect((await waiting).errorCode).toBe('REBALANCE_IN_PROGRESS');
  });

  it('two members given one partition by a classic leader: the upgrade fails with UNKNOWN_SERVER_ERROR, nothing thrown', async () => {
    const { coordinator, lines } = setup();
    const leader = await coordinator.join(classicJoin(''));
    await syncAt(coordinator, leader.memberId, 1);
    const follower = coordinator.join(classicJoin(''));
    await coordinator.join(classicJoin(leader.memberId));
    const f = await follower;
    const both = encodeConsumerProtocolAssignment(
      { assignedPartitions: [{ topic: 't', partitions: [0, 1] }], userData: null },
      0,
    );
    const followerSync = syncAt(coordinator, f.memberId, 2);
    await coordinator.sync({
      groupId: 'g',
      generationId: 2,
      memberId: leader.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [
        { memberId: leader.memberId, assignment: both },
        { memberId: f.memberId, assignment: both },
      ],
    });
    expect((await followerSync).errorCode).toBe('NONE');
    const r = coordinator.consumerGroupHeartbeat(
      heartbeatRequest({ groupId: 'g', memberId: 'a', ...full }),
      TEST_CLIENT,
    );
    expect(r).toMatchObject({ kind: 'error', code: 'UNKNOWN_SERVER_ERROR' });
    expect(r.kind === 'error' && r.message).toMatch(/partition t-0 is assigned to both/);
    expect(coordinator.group('g')?.state).toBe('Stable');
    expect(
      lines.filter((l) => l.includes('ConsumerGroupHeartbeat refused with UNKNOWN_SERVER_ERROR')),
    ).toHaveLength(1);
  });
});

describe('what a classic member brings', () => {
  it('JoinGroup v0 has no rebalance timeout: its session timeout is taken, not -1', async () => {
    const { coordinator, timer } = setup();
    heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin('', { rebalanceTimeoutMs: -1 }));
    expect(coordinator.consumerGroup('g')!.members.get(joined.memberId)!.rebalanceTimeoutMs).toBe(10_000);
    expect((await syncAt(coordinator, joined.memberId, joined.generationId)).errorCode).toBe('NONE');
    // Told to rejoin (a third member moved the group epoch): it has its rebalance timeout to do so.
    heartbeat(coordinator, { memberId: 'c', ...full });
    const hb = () =>
      coordinator.heartbeat({
        groupId: 'g',
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
      });
    expect(hb()).toBe('REBALANCE_IN_PROGRESS');
    timer.advance(1);
    expect(coordinator.consumerGroup('g')!.members.has(joined.memberId)).toBe(true);
  });

  it('a cooperative member (owned partitions in its subscription) revokes before the partitions move', async () => {
    const { coordinator, image } = setup();
    const subscription = (owned: number[]) => {
      const w = new Writer().int16(1, 'version').arrayLength(1, 'topics').string('t', 'topic');
      w.nullableBytes(null, 'userData').arrayLength(owned.length > 0 ? 1 : 0, 'ownedPartitions');
      if (owned.length > 0) {
        w.string('t', 'topic').arrayLength(owned.length, 'partitions');
        for (const p of owned) w.int32(p, 'partition');
      }
      return w.toBytes();
    };
    const join = (memberId: string, owned: number[]) =>
      coordinator.join(
        classicJoin(memberId, { protocols: [{ name: 'cooperative-sticky', metadata: subscription(owned) }] }),
      );
    const first = await join('', []);
    const x = first.memberId;
    // A classic group's leader assigns; here it is alone: it takes all 4.
    const mine = encodeConsumerProtocolAssignment(
      { assignedPartitions: [{ topic: 't', partitions: [0, 1, 2, 3] }], userData: null },
      1,
    );
    await coordinator.sync({
      groupId: 'g',
      generationId: 1,
      memberId: x,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [{ memberId: x, assignment: mine }],
    });
    // Upgrade: the consumer member waits for the partitions the classic member owns.
    const a = heartbeat(coordinator, { memberId: 'a', ...full });
    expect(a.assignment).toEqual([]);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: x, groupInstanceId: null })).toBe(
      'REBALANCE_IN_PROGRESS',
    );
    // It rejoins still owning all 4: it keeps its 2, and must give up the other 2 first.
    const j = await join(x, [0, 1, 2, 3]);
    expect(j.generationId).toBe(1);
    const kept = decodeConsumerProtocolAssignment((await syncAt(coordinator, x, 1)).assignment);
    expect(kept.version).toBe(1);
    const keptPartitions = kept.assignedPartitions[0]!.partitions;
    expect(keptPartitions).toHaveLength(2);
    const group = coordinator.consumerGroup('g')!;
    expect(group.members.get(x)!.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(
      heartbeat(coordinator, { memberId: 'a', memberEpoch: a.memberEpoch, topicPartitions: [] }).assignment,
    ).toBeNull();
    // Revoked: it rejoins owning only what it kept; now the other 2 go to the consumer member.
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: x, groupInstanceId: null })).toBe(
      'REBALANCE_IN_PROGRESS',
    );
    expect((await join(x, keptPartitions)).generationId).toBe(2);
    const theirs = heartbeat(coordinator, { memberId: 'a', memberEpoch: a.memberEpoch, topicPartitions: [] });
    expect(byName(image, theirs.assignment)).toEqual({
      t: [0, 1, 2, 3].filter((p) => !keptPartitions.includes(p)),
    });
  });
});

describe('timers after the conversions', () => {
  it('a member back in a consumer group after a downgrade is not fenced by a timer of its first stay', async () => {
    const { coordinator, timer } = setup();
    heartbeat(coordinator, { memberId: 'a', ...full });
    const joined = await coordinator.join(classicJoin(''));
    const x = joined.memberId;
    await syncAt(coordinator, x, joined.generationId);
    // A second consumer member moves the epoch: x is told to rejoin, and its join timer (20 s) starts.
    heartbeat(coordinator, { memberId: 'c', ...full });
    expect(
      coordinator.heartbeat({
        groupId: 'g',
        generationId: joined.generationId,
        memberId: x,
        groupInstanceId: null,
      }),
    ).toBe('REBALANCE_IN_PROGRESS');
    // Both consumer members leave: the group is classic; x rejoins it and leads generation 3.
    for (const id of ['a', 'c'])
      coordinator.consumerGroupHeartbeat(
        heartbeatRequest({ groupId: 'g', memberId: id, memberEpoch: -1 }),
        TEST_CLIENT,
      );
    expect(coordinator.group('g')?.state).toBe('PreparingRebalance');
    const rejoined = await coordinator.join(classicJoin(x));
    await syncAt(coordinator, x, rejoined.generationId);
    // A consumer member comes back: the group is a consumer group again, x in it at its generation.
    heartbeat(coordinator, { memberId: 'd', ...full });
    expect(coordinator.consumerGroup('g')!.members.has(x)).toBe(true);
    // Told to rejoin again 5 s later, x takes 16 s of its 20 s to do so, heartbeating meanwhile: the join
    // timer of its first stay (due at 20 s from the start) must not be the one that counts.
    let now = 0;
    for (const t of [5, 10, 15, 21]) {
      timer.advance((t - now) * 1000);
      now = t;
      const gen = coordinator.consumerGroup('g')!.members.get(x)?.memberEpoch;
      expect(gen, `x fenced before ${t} s`).toBeDefined();
      expect(
        coordinator.heartbeat({ groupId: 'g', generationId: gen!, memberId: x, groupInstanceId: null }),
      ).toBe('REBALANCE_IN_PROGRESS');
      heartbeat(coordinator, {
        memberId: 'd',
        memberEpoch: coordinator.consumerGroup('g')!.members.get('d')!.memberEpoch,
        topicPartitions: [],
      });
    }
    expect((await coordinator.join(classicJoin(x))).errorCode).toBe('NONE');
    expect(coordinator.consumerGroup('g')!.members.has(x)).toBe(true);
  });
});
