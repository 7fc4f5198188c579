import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/broker.js';
import { FakeTimer } from '../support/fake-timer.js';
import { full, heartbeat, open } from './consumer-group-harness.js';
import { FakeImage } from './modern/harness.js';

describe('consumer group records in __consumer_offsets (encoded at the coordinator, replayed at load)', () => {
  it("after a restart the group's members resume at their epochs, with their partitions, and no epoch moves", () => {
    const { dir, remove } = tempDir('klog-consumer-group-restart-');
    const image = new FakeImage();
    image.create('t', 6);
    let b = open(dir, image);
    try {
      // Two members reconcile to a stable split of the 6 partitions.
      const a = heartbeat(b.coordinator, { memberId: 'a', ...full });
      const c = heartbeat(b.coordinator, { memberId: 'c', ...full });
      const owned = new Map([
        ['a', a.assignment!],
        ['c', c.assignment!],
      ]);
      const epochs = new Map([
        ['a', a.memberEpoch],
        ['c', c.memberEpoch],
      ]);
      for (let round = 0; round < 4; round++) {
        for (const id of ['a', 'c']) {
          const r = heartbeat(b.coordinator, {
            memberId: id,
            memberEpoch: epochs.get(id)!,
            topicPartitions: owned.get(id)!,
          });
          epochs.set(id, r.memberEpoch);
          if (r.assignment !== null) owned.set(id, r.assignment);
        }
      }
      const before = b.coordinator.consumerGroup('g')!;
      expect(before.state()).toBe('Stable');
      const groupEpoch = before.groupEpoch;
      const members = [...before.members.values()].map((m) => [m.memberId, m.memberEpoch, m.state]);
      const partitions = (id: string) => [...(owned.get(id)![0]?.partitions ?? [])].sort();
      expect([...partitions('a'), ...partitions('c')].sort()).toEqual([0, 1, 2, 3, 4, 5]);

      b.coordinator.close();
      b.log.close();
      b = open(dir, image, new FakeTimer(b.timer.now()));
      expect(b.loaded).toBeGreaterThan(0);
      const after = b.coordinator.consumerGroup('g')!;
      expect(after.groupEpoch).toBe(groupEpoch);
      expect(after.state()).toBe('Stable');
      expect([...after.members.values()].map((m) => [m.memberId, m.memberEpoch, m.state])).toEqual(members);
      // Each member heartbeats at its old epoch: accepted, same epoch, no rebalance, no new group epoch.
      for (const id of ['a', 'c']) {
        const r = heartbeat(b.coordinator, {
          memberId: id,
          memberEpoch: epochs.get(id)!,
          topicPartitions: owned.get(id)!,
        });
        expect(r.memberEpoch).toBe(epochs.get(id));
      }
      expect(b.coordinator.consumerGroup('g')!.groupEpoch).toBe(groupEpoch);
      // The loaded members got their session timers back: one that is silent is fenced.
      b.timer.advance(30_000);
      heartbeat(b.coordinator, {
        memberId: 'a',
        memberEpoch: epochs.get('a')!,
        topicPartitions: owned.get('a')!,
      });
      b.timer.advance(15_000);
      expect([...b.coordinator.consumerGroup('g')!.members.keys()]).toEqual(['a']);
      expect(b.lines.some((l) => l.includes('member c expired'))).toBe(true);
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});
