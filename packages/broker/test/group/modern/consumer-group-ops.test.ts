import { describe, expect, it } from 'vitest';
import { groupSessionTimeoutKey } from '../../../src/group/modern/consumer/consumer-group-ops.js';
import { MemberState } from '../../../src/group/modern/member-state.js';
import { byName, Coordinator, FakeImage } from './harness.js';

function setup(partitions = 4) {
  const image = new FakeImage();
  image.create('t1', partitions);
  return { image, c: new Coordinator(image) };
}

const full = { rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t1'], topicPartitions: [] };

describe('consumer group heartbeat (GMM.consumerGroupHeartbeat)', () => {
  it('a first member joins at epoch 1 with every partition, and writes types 5, 3, 7, 6, 8', () => {
    const { image, c } = setup();
    const r = c.heartbeat({ groupId: 'g', ...full });
    expect(r).toMatchObject({ kind: 'ok', memberId: 'm1', memberEpoch: 1, heartbeatIntervalMs: 5000 });
    if (r.kind !== 'ok') return;
    expect(byName(image, r.assignment)).toEqual({ t1: [0, 1, 2, 3] });
    expect(c.log.map((x) => x.type)).toEqual([5, 3, 7, 6, 8]);
    const g = c.groups.get('g')!;
    expect([g.state(), g.groupEpoch, g.assignmentEpoch]).toEqual(['Stable', 1, 1]);
    expect(g.metadataHash).not.toBe(0n);
  });

  it('a second member waits until the first revokes, then gets its half (no partition has two owners)', () => {
    const { image, c } = setup();
    const a = c.heartbeat({ groupId: 'g', ...full });
    if (a.kind !== 'ok') throw new Error('join');
    const b = c.heartbeat({ groupId: 'g', ...full });
    if (b.kind !== 'ok') throw new Error('join b');
    // b is at epoch 2 but gets nothing yet: a still owns every partition.
    expect(b.memberEpoch).toBe(2);
    expect(byName(image, b.assignment)).toEqual({});
    expect(c.groups.get('g')!.members.get('m2')!.state).toBe(MemberState.UNRELEASED_PARTITIONS);
    // a learns of the revocation, keeping epoch 1 until it stops owning them.
    const a2 = c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: 1, topicPartitions: a.assignment });
    expect(a2).toMatchObject({ kind: 'ok', memberEpoch: 1 });
    if (a2.kind !== 'ok') return;
    const kept = byName(image, a2.assignment)!.t1!;
    expect(kept).toHaveLength(2);
    const a3 = c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: 1, topicPartitions: a2.assignment });
    expect(a3).toMatchObject({ kind: 'ok', memberEpoch: 2, assignment: null });
    const b2 = c.heartbeat({ groupId: 'g', memberId: 'm2', memberEpoch: 2, topicPartitions: [] });
    if (b2.kind !== 'ok') throw new Error('b2');
    expect(byName(image, b2.assignment)!.t1).toEqual([0, 1, 2, 3].filter((p) => !kept.includes(p)));
    expect(c.groups.get('g')!.state()).toBe('Stable');
  });

  it('a member that stops heartbeating is fenced at the session timeout, and the epoch moves', () => {
    const { c } = setup();
    c.heartbeat({ groupId: 'g', ...full });
    c.heartbeat({ groupId: 'g', ...full });
    expect(c.timer.isScheduled(groupSessionTimeoutKey('g', 'm2'))).toBe(true);
    c.timer.advance(44_999);
    c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: 1, topicPartitions: null });
    c.timer.advance(1);
    const g = c.groups.get('g')!;
    expect([...g.members.keys()]).toEqual(['m1']);
    expect(g.groupEpoch).toBe(3);
    expect(c.logLines.some((l) => /member m2 expired \(no heartbeat within 45000 ms\), fenced/.test(l))).toBe(
      true,
    );
  });

  it('epoch -1 leaves; a greater epoch is FENCED_MEMBER_EPOCH; an unknown member UNKNOWN_MEMBER_ID', () => {
    const { c } = setup();
    c.heartbeat({ groupId: 'g', ...full });
    expect(c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: 7 })).toMatchObject({
      kind: 'error',
      code: 'FENCED_MEMBER_EPOCH',
    });
    expect(c.heartbeat({ groupId: 'g', memberId: 'zz', memberEpoch: 1 })).toMatchObject({
      kind: 'error',
      code: 'UNKNOWN_MEMBER_ID',
    });
    expect(c.heartbeat({ groupId: 'nope', memberId: 'm1', memberEpoch: 1 })).toMatchObject({
      kind: 'error',
      code: 'GROUP_ID_NOT_FOUND',
    });
    expect(c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: -1 })).toMatchObject({
      kind: 'ok',
      memberEpoch: -1,
    });
    const g = c.groups.get('g')!;
    expect([g.state(), g.members.size, g.targetAssignment.size]).toEqual(['Empty', 0, 0]);
    expect(c.timer.isScheduled(groupSessionTimeoutKey('g', 'm1'))).toBe(false);
  });

  it('a static member leaves with -2, keeps its place, and a new id with its instance id takes over its partitions', () => {
    const { image, c } = setup();
    const a = c.heartbeat({ groupId: 'g', instanceId: 'i1', ...full });
    expect(c.heartbeat({ groupId: 'g', instanceId: 'i1', ...full })).toMatchObject({
      kind: 'error',
      code: 'UNRELEASED_INSTANCE_ID',
    });
    expect(c.heartbeat({ groupId: 'g', memberId: 'm1', instanceId: 'i1', memberEpoch: -2 })).toMatchObject({
      kind: 'ok',
      memberEpoch: -2,
    });
    const b = c.heartbeat({ groupId: 'g', memberId: 'new', instanceId: 'i1', ...full });
    expect(b).toMatchObject({ kind: 'ok', memberId: 'new', memberEpoch: 1 });
    if (a.kind !== 'ok' || b.kind !== 'ok') return;
    expect(byName(image, b.assignment)).toEqual(byName(image, a.assignment));
    const g = c.groups.get('g')!;
    expect([...g.members.keys()]).toEqual(['new']);
    expect(g.groupEpoch).toBe(1);
  });

  it('refuses an unknown assignor and an invalid regex with their KIP-848 codes', () => {
    const { c } = setup();
    expect(c.heartbeat({ groupId: 'g', ...full, serverAssignor: 'sticky' })).toMatchObject({
      kind: 'error',
      code: 'UNSUPPORTED_ASSIGNOR',
      message: 'ServerAssignor sticky is not supported. Supported assignors: uniform, range.',
    });
    expect(
      c.heartbeat({ groupId: 'g', rebalanceTimeoutMs: 1, topicPartitions: [], subscribedTopicRegex: '(' }),
    ).toMatchObject({ kind: 'error', code: 'INVALID_REGULAR_EXPRESSION' });
    expect(c.log).toEqual([]);
  });

  it('a regex subscription resolves to the matching topics and follows a new topic', () => {
    const { image, c } = setup(2);
    image.create('other', 1);
    const r = c.heartbeat({
      groupId: 'g',
      rebalanceTimeoutMs: 1,
      topicPartitions: [],
      subscribedTopicRegex: 't.*',
    });
    if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
    expect(byName(image, r.assignment)).toEqual({ t1: [0, 1] });
    image.create('t2', 1);
    const r2 = c.heartbeat({
      groupId: 'g',
      memberId: r.memberId,
      memberEpoch: r.memberEpoch,
      topicPartitions: r.assignment,
    });
    expect(r2).toMatchObject({ kind: 'ok', memberEpoch: 2 });
    if (r2.kind !== 'ok') return;
    expect(byName(image, r2.assignment)).toEqual({ t1: [0, 1], t2: [0] });
    expect(c.log.filter((x) => x.type === 16)).toHaveLength(2);
  });

  it('after a restart (replay of the log) members keep their epochs and timers', () => {
    const { c } = setup();
    const a = c.heartbeat({ groupId: 'g', ...full });
    if (a.kind !== 'ok') throw new Error('join');
    const before = c.log.length;
    const c2 = c.restart();
    expect(c2.timer.isScheduled(groupSessionTimeoutKey('g', 'm1'))).toBe(true);
    expect(
      c2.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: 1, topicPartitions: a.assignment }),
    ).toMatchObject({
      kind: 'ok',
      memberEpoch: 1,
    });
    expect(c2.log.length).toBe(before);
  });

  it('describe answers the group, its epochs and each member with topic names', () => {
    const { c } = setup(2);
    c.heartbeat({ groupId: 'g', ...full });
    const [d, missing] = c.ops.describe(['g', 'nope']);
    expect(d).toMatchObject({
      kind: 'ok',
      groupState: 'Stable',
      groupEpoch: 1,
      assignmentEpoch: 1,
      assignorName: 'uniform',
    });
    if (d?.kind !== 'ok') return;
    expect(d.members[0]).toMatchObject({
      memberId: 'm1',
      memberEpoch: 1,
      memberType: 1,
      assignment: [{ topicName: 't1', partitions: [0, 1] }],
      targetAssignment: [{ topicName: 't1', partitions: [0, 1] }],
    });
    expect(missing).toMatchObject({ kind: 'error', code: 'GROUP_ID_NOT_FOUND' });
  });

  it('an empty regex clears a regex subscription (Kafka clients send "" when switching to names)', () => {
    const { c } = setup(2);
    const r = c.heartbeat({
      groupId: 'g',
      rebalanceTimeoutMs: 1,
      topicPartitions: [],
      subscribedTopicRegex: 't.*',
    });
    if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
    const r2 = c.heartbeat({
      groupId: 'g',
      memberId: r.memberId,
      memberEpoch: r.memberEpoch,
      topicPartitions: r.assignment,
      subscribedTopicNames: ['t1'],
      subscribedTopicRegex: '',
    });
    // The epoch moves (the subscription changed); the partitions stay, so no assignment is sent.
    expect(r2).toMatchObject({ kind: 'ok', memberEpoch: 2, assignment: null });
    const g = c.groups.get('g')!;
    expect(g.members.get(r.memberId)!.subscribedTopicRegex).toBeNull();
    expect([...g.resolvedRegularExpressions.keys()]).toEqual([]);
    expect(
      c.log.filter((x) => x.type === 16).map((x) => [x.type === 16 && x.regex, x.value === null]),
    ).toEqual([
      ['t.*', false],
      ['t.*', true],
    ]);
  });

  it("the group's tombstones, replayed, delete the group (Kafka's createGroupTombstoneRecords order)", () => {
    const { c } = setup(2);
    c.heartbeat({ groupId: 'g', ...full });
    c.heartbeat({ groupId: 'g', rebalanceTimeoutMs: 1, topicPartitions: [], subscribedTopicRegex: 't.*' });
    const g = c.groups.get('g')!;
    const tombstones = g.createGroupTombstoneRecords();
    expect(tombstones.map((r) => r.type)).toEqual([8, 8, 7, 7, 6, 5, 5, 16, 4, 3]);
    c.log.push(...tombstones);
    const c2 = c.restart();
    expect(c2.groups.has('g')).toBe(false);
  });

  it("validates offset commits and fetches as Kafka's ConsumerGroup does (v9, member epochs)", () => {
    const { c } = setup(2);
    c.heartbeat({ groupId: 'g', ...full });
    const g = c.groups.get('g')!;
    expect(g.validateOffsetCommit('m1', null, 1, 9)).toBeUndefined();
    expect(g.validateOffsetCommit('m1', null, 1, 8)).toBe('UNSUPPORTED_VERSION');
    expect(g.validateOffsetCommit('m1', null, 0, 9)).toBe('STALE_MEMBER_EPOCH');
    expect(g.validateOffsetCommit('zz', null, 1, 9)).toBe('UNKNOWN_MEMBER_ID');
    expect(g.validateOffsetCommit('', null, -1, 9)).toBe('UNKNOWN_MEMBER_ID');
    expect(g.validateOffsetFetch(null, -1)).toBeUndefined();
    expect(g.validateOffsetFetch('m1', 2)).toBe('STALE_MEMBER_EPOCH');
    expect(g.validateDeleteGroup()).toBe('NON_EMPTY_GROUP');
    c.heartbeat({ groupId: 'g', memberId: 'm1', memberEpoch: -1 });
    expect(g.validateOffsetCommit('', null, -1, 2)).toBeUndefined();
    expect(g.validateDeleteGroup()).toBeUndefined();
  });
});
