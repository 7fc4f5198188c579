import { Writer } from '@klog/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupCoordinator, JoinGroupInput } from '../../src/group/group-coordinator.js';
import { tempDir } from '../support/broker.js';
import { full, heartbeat, open } from './consumer-group-harness.js';
import { FakeImage } from './modern/harness.js';

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
    expect(group.members.get(id)!.assignedPartitions.size).toBe(1);
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
      if (i === 0) await syncAt(coordinator, id, joined.generationId);
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
    expect(loaded.protocolName).toBe('range');
    expect([...loaded.members.keys()]).toEqual([id]);
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
    expect(loaded.groupEpoch).toBe(before.groupEpoch);
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
});
