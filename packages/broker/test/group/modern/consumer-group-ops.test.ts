import { describe, expect, it } from 'vitest';
import {
  groupRegexRefreshKey,
  groupSessionTimeoutKey,
  REGEX_BATCH_REFRESH_INTERVAL_MS,
} from '../../../src/group/modern/consumer/consumer-group-ops.js';
import { MemberState } from '../../../src/group/modern/member-state.js';
import { byName, Coordinator, FakeImage } from './harness.js';

function setup(partitions = 4) {
  const image = new FakeImage();
  image.create('t1', partitions);
  return { image, c: new Coordinator(image) };
}

const full = { rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t1'], topicPartitions: [] };

/** A new member subscribing by the regex `t.*`. */
const regexJoin = { groupId: 'g', rebalanceTimeoutMs: 1, topicPartitions: [], subscribedTopicRegex: 't.*' };

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

  it('a regex is resolved after the heartbeat that brings it, in a write of its own, and follows a new topic at most every 10 s', () => {
    const { image, c } = setup(2);
    image.create('other', 1);
    const r = c.heartbeat(regexJoin);
    if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
    // Kafka's executor resolves the regex after this answer: nothing matches yet.
    expect(r.memberEpoch).toBe(1);
    expect(byName(image, r.assignment)).toEqual({});
    expect(c.timer.isScheduled(groupRegexRefreshKey('g'))).toBe(true);
    c.timer.advance(0);
    expect(c.log.filter((x) => x.type === 16)).toHaveLength(1);
    expect(c.groups.get('g')!.groupEpoch).toBe(2);
    const r1 = c.heartbeat({ groupId: 'g', memberId: r.memberId, memberEpoch: 1, topicPartitions: [] });
    expect(r1).toMatchObject({ kind: 'ok', memberEpoch: 2 });
    if (r1.kind !== 'ok') return;
    expect(byName(image, r1.assignment)).toEqual({ t1: [0, 1] });

    // A new topic matching it: no refresh within REGEX_BATCH_REFRESH_INTERVAL_MS of the last one.
    image.create('t2', 1);
    const ack = { groupId: 'g', memberId: r.memberId, memberEpoch: 2, topicPartitions: r1.assignment };
    c.heartbeat(ack);
    expect(c.timer.isScheduled(groupRegexRefreshKey('g'))).toBe(false);
    c.timer.advance(REGEX_BATCH_REFRESH_INTERVAL_MS + 1);
    c.heartbeat(ack);
    expect(c.timer.isScheduled(groupRegexRefreshKey('g'))).toBe(true);
    c.timer.advance(0);
    const r2 = c.heartbeat(ack);
    expect(r2).toMatchObject({ kind: 'ok', memberEpoch: 3 });
    if (r2.kind !== 'ok') return;
    expect(byName(image, r2.assignment)).toEqual({ t1: [0, 1], t2: [0] });
    expect(c.log.filter((x) => x.type === 16)).toHaveLength(2);
  });

  it('a second member with a regex already resolved gets its topics at once (the group epoch bumps in its heartbeat)', () => {
    const { image, c } = setup(2);
    const a = c.heartbeat(regexJoin);
    if (a.kind !== 'ok') throw new Error(JSON.stringify(a));
    c.timer.advance(0);
    const b = c.heartbeat(regexJoin);
    expect(b).toMatchObject({ kind: 'ok', memberEpoch: 3 });
    expect(c.timer.isScheduled(groupRegexRefreshKey('g'))).toBe(false);
    expect(c.log.filter((x) => x.type === 16)).toHaveLength(1);
    // a has not taken t1's partitions yet (it heartbeats after the resolution): b gets its share at once.
    if (b.kind !== 'ok') return;
    expect(Object.keys(byName(image, b.assignment) ?? {})).toEqual(['t1']);
  });

  it('a group deleted before its regex is resolved leaves no timer and writes nothing', () => {
    const { c } = setup(2);
    const r = c.heartbeat(regexJoin);
    if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
    c.heartbeat({ groupId: 'g', memberId: r.memberId, memberEpoch: -1 });
    const g = c.groups.get('g')!;
    const before = c.log.length;
    c.log.push(...g.createGroupTombstoneRecords());
    const c2 = c.restart();
    expect(c2.groups.has('g')).toBe(false);
    c2.timer.advance(0);
    expect(c2.log.length).toBe(before + (c.log.length - before));
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
    const r = c.heartbeat(regexJoin);
    if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
    c.timer.advance(0); // the regex's resolution, written after the answer
    const r1 = c.heartbeat({ groupId: 'g', memberId: r.memberId, memberEpoch: 1, topicPartitions: [] });
    if (r1.kind !== 'ok') throw new Error(JSON.stringify(r1));
    expect(r1.memberEpoch).toBe(2);
    const r2 = c.heartbeat({
      groupId: 'g',
      memberId: r.memberId,
      memberEpoch: r1.memberEpoch,
      topicPartitions: r1.assignment,
      subscribedTopicNames: ['t1'],
      subscribedTopicRegex: '',
    });
    // The epoch moves (the subscription changed); the partitions stay, so no assignment is sent.
    expect(r2).toMatchObject({ kind: 'ok', memberEpoch: 3, assignment: null });
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
    c.heartbeat(regexJoin);
    c.timer.advance(0); // the regex's resolution (its type 16 record)
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
