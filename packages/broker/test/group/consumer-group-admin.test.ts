// DeleteGroups, OffsetDelete and offset expiry for Kafka 4's consumer groups, on a coordinator over real
// `__consumer_offsets` files: what each writes is checked by loading the files again, as a restart does.
import { describe, expect, it } from 'vitest';
import type { GroupCoordinator } from '../../src/group/group-coordinator.js';
import { tempDir } from '../support/broker.js';
import { FakeTimer } from '../support/fake-timer.js';
import { full, heartbeat, open } from './consumer-group-harness.js';
import { FakeImage } from './modern/harness.js';

/** A v9 commit of offset `offset` on partition 0 of each topic, by `memberId` at `memberEpoch`. */
function commit(c: GroupCoordinator, memberId: string, memberEpoch: number, topics: string[], offset = 7) {
  const r = c.commit({
    groupId: 'g',
    generationId: memberEpoch,
    memberId,
    groupInstanceId: null,
    apiVersion: 9,
    retentionTimeMs: -1,
    topics: topics.map((name) => ({
      name,
      partitions: [
        { partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null },
      ],
    })),
  });
  expect(r.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual(topics.map(() => 'NONE'));
}

const committedTopics = (c: GroupCoordinator) =>
  c
    .fetchOffsets('g', null)
    .topics.map((t) => t.name)
    .sort();

/** One member `a` of group `g`, subscribed to `t`, with offsets committed on `t` and `u`. */
function groupWithOffsets(dir: string, config = {}) {
  const image = new FakeImage();
  image.create('t', 2);
  image.create('u', 2);
  const b = open(dir, image, new FakeTimer(), config);
  const a = heartbeat(b.coordinator, { memberId: 'a', ...full });
  commit(b.coordinator, 'a', a.memberEpoch, ['t', 'u']);
  return { ...b, image, epoch: a.memberEpoch };
}

describe('DeleteGroups for a consumer group (GroupCoordinatorShard.deleteGroups)', () => {
  it('NON_EMPTY_GROUP while a member is in it; once it has left, the group and its offsets go, and stay gone after a restart', () => {
    const { dir, remove } = tempDir('klog-consumer-group-delete-');
    let b = groupWithOffsets(dir);
    try {
      expect(b.coordinator.deleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: 'NON_EMPTY_GROUP' }]);
      expect(b.coordinator.consumerGroup('g')).toBeDefined();
      heartbeat(b.coordinator, { memberId: 'a', memberEpoch: -1 });
      expect(b.coordinator.consumerGroup('g')!.state()).toBe('Empty');
      expect(b.coordinator.deleteGroups(['g', 'nope'])).toEqual([
        { groupId: 'g', errorCode: 'NONE' },
        { groupId: 'nope', errorCode: 'GROUP_ID_NOT_FOUND' },
      ]);
      expect(b.coordinator.consumerGroup('g')).toBeUndefined();
      expect(b.coordinator.listGroups([], [])).toEqual([]);
      expect(b.lines).toContain('group g: deleted');

      b.coordinator.close();
      b.log.close();
      b = { ...b, ...open(dir, b.image, new FakeTimer(b.timer.now())) };
      expect(b.coordinator.consumerGroup('g')).toBeUndefined();
      expect(b.coordinator.listGroups([], [])).toEqual([]);
      expect(committedTopics(b.coordinator)).toEqual([]);
      // The id is free again: a new member starts the group at epoch 1.
      expect(heartbeat(b.coordinator, { memberId: 'z', ...full }).memberEpoch).toBe(1);
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});

describe('OffsetDelete for a consumer group (OffsetMetadataManager.deleteOffsets)', () => {
  it('GROUP_SUBSCRIBED_TO_TOPIC for a topic a member subscribes to; another topic’s offsets go, in any state', () => {
    const { dir, remove } = tempDir('klog-consumer-group-offset-delete-');
    const b = groupWithOffsets(dir);
    try {
      const r = b.coordinator.deleteOffsets('g', [
        { name: 't', partitions: [0] },
        { name: 'u', partitions: [0, 1] },
      ]);
      expect(r.errorCode).toBe('NONE');
      expect(r.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)])).toEqual([
        ['t', ['GROUP_SUBSCRIBED_TO_TOPIC']],
        ['u', ['NONE', 'NONE']],
      ]);
      expect(committedTopics(b.coordinator)).toEqual(['t']);
      expect(b.coordinator.deleteOffsets('nope', [{ name: 'u', partitions: [0] }]).errorCode).toBe(
        'GROUP_ID_NOT_FOUND',
      );
      // Once the member is gone nothing is subscribed: `t`'s offset may go too.
      heartbeat(b.coordinator, { memberId: 'a', memberEpoch: -1 });
      const empty = b.coordinator.deleteOffsets('g', [{ name: 't', partitions: [0] }]);
      expect(empty.topics[0]!.partitions[0]!.errorCode).toBe('NONE');
      expect(committedTopics(b.coordinator)).toEqual([]);
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});

describe('offsets.retention for a consumer group (ConsumerGroup.offsetExpirationCondition)', () => {
  it('offsets of topics no member subscribes to expire from their commit; the subscribed topic’s stay until the group is empty, then the group goes too', () => {
    const { dir, remove } = tempDir('klog-consumer-group-expiry-');
    let b = groupWithOffsets(dir, { offsetsRetentionMs: 60_000 });
    try {
      const keepAlive = () => heartbeat(b.coordinator, { memberId: 'a', memberEpoch: b.epoch });
      b.timer.advance(30_000);
      keepAlive();
      b.timer.advance(29_999);
      keepAlive();
      expect(b.coordinator.expireOffsets()).toBe(0);
      b.timer.advance(1);
      keepAlive();
      expect(b.coordinator.expireOffsets()).toBe(1);
      expect(committedTopics(b.coordinator)).toEqual(['t']);
      expect(b.coordinator.consumerGroup('g')!.state()).toBe('Stable');
      // The member leaves: `t` is no longer subscribed and its commit is past retention.
      heartbeat(b.coordinator, { memberId: 'a', memberEpoch: -1 });
      expect(b.coordinator.expireOffsets()).toBe(1);
      expect(b.coordinator.consumerGroup('g')).toBeUndefined();
      expect(b.lines.some((l) => l === 'group g: 1 offset(s) expired, group deleted')).toBe(true);

      b.coordinator.close();
      b.log.close();
      b = { ...b, ...open(dir, b.image, new FakeTimer(b.timer.now()), { offsetsRetentionMs: 60_000 }) };
      expect(b.coordinator.consumerGroup('g')).toBeUndefined();
      expect(committedTopics(b.coordinator)).toEqual([]);
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });

  it('an empty consumer group with no offsets is deleted by the next expiry pass, as Kafka’s cleanupGroupMetadata does', () => {
    const { dir, remove } = tempDir('klog-consumer-group-expiry-empty-');
    const image = new FakeImage();
    image.create('t', 2);
    const b = open(dir, image);
    try {
      heartbeat(b.coordinator, { memberId: 'a', ...full });
      expect(b.coordinator.expireOffsets()).toBe(0);
      expect(b.coordinator.consumerGroup('g')).toBeDefined();
      heartbeat(b.coordinator, { memberId: 'a', memberEpoch: -1 });
      expect(b.coordinator.expireOffsets()).toBe(0);
      expect(b.coordinator.consumerGroup('g')).toBeUndefined();
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});
