import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../../src/group/group-coordinator.js';
import { OFFSETS_TOPIC } from '../../src/group/offsets-topic.js';
import { type BrokerLog, type LogEvent, openBrokerLog } from '../../src/log/log-port.js';
import { BROKER_DIR } from '../../src/state/broker-dir.js';
import { tempDir } from '../support/broker.js';
import { FakeTimer } from '../support/fake-timer.js';
import { openOffsetsLog } from '../support/offsets-log.js';

/** The coordinator's clock: what its records are stamped with. */
let now = 1_700_000_000_000;

/**
 * A broker's log, topic configs and coordinator over `dir`, as `klog serve` opens them: the offsets read
 * back from disk. `__consumer_offsets` is made through the one creation path, with the coordinator's
 * configs, but small segments (`offsets.topic.segment.bytes` 600), so that commits roll segments and
 * compaction has something to clean.
 */
function open(dir: string, partitions = 3, segmentMs?: number) {
  const defaults = new Map(segmentMs === undefined ? [] : [['log.roll.ms', String(segmentMs)]]);
  const { log, configs, topic } = openOffsetsLog(dir, {
    partitions,
    segmentBytes: 600,
    defaults,
    now: () => now,
  });
  const coordinator = new GroupCoordinator(new FakeTimer(), topic, { groupInitialRebalanceDelayMs: 0 });
  topic.load(coordinator);
  return { log, topic, coordinator, configs };
}

/** Records one cleaner pass of the log manager removed, over every partition it compacted. */
async function cleanerPass(log: BrokerLog): Promise<number> {
  const events: LogEvent[] = await log.cleanLogs();
  return events.reduce(
    (n, e) => n + (e.kind === 'compaction' ? e.report.recordsBefore - e.report.recordsAfter : 0),
    0,
  );
}

type Op =
  | { kind: 'commit'; group: string; topic: string; partition: number; offset: number }
  | { kind: 'deleteOffset'; group: string; topic: string; partition: number }
  | { kind: 'deleteGroup'; group: string }
  | { kind: 'compact' }
  | { kind: 'restart' };

const group = fc.constantFrom('g0', 'g1', 'g2', 'polygenelubricants', 'é-grp');
const topicName = fc.constantFrom('t', 'u');
const partition = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('commit' as const),
      group,
      topic: topicName,
      partition,
      offset: fc.integer({ min: 0, max: 2 ** 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('deleteOffset' as const), group, topic: topicName, partition }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteGroup' as const), group }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
);

function committed(c: GroupCoordinator): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of ['g0', 'g1', 'g2', 'polygenelubricants', 'é-grp']) {
    for (const t of c.fetchOffsets(g, null).topics)
      for (const p of t.partitions) out.set(`${g}/${t.name}/${p.partitionIndex}`, p.offset);
  }
  return out;
}

describe('__consumer_offsets: the last committed value survives restarts and compaction', () => {
  it('random commits, offset and group deletions, compactions and restarts: OffsetFetch returns the last committed value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), async (ops) => {
        const { dir, remove } = tempDir('klog-offsets-prop-');
        let b = open(dir);
        try {
          const model = new Map<string, number>();
          // Groups the coordinator holds: one stays, empty, once its last offset is deleted, until a restart
          // reads back only groups that still have records.
          let groups = new Set<string>();
          for (const o of ops) {
            switch (o.kind) {
              case 'commit': {
                const r = b.coordinator.commit({
                  groupId: o.group,
                  generationId: -1,
                  memberId: '',
                  groupInstanceId: null,
                  retentionTimeMs: -1,
                  apiVersion: 8,
                  topics: [
                    {
                      name: o.topic,
                      partitions: [
                        {
                          partitionIndex: o.partition,
                          committedOffset: o.offset,
                          committedLeaderEpoch: -1,
                          committedMetadata: null,
                        },
                      ],
                    },
                  ],
                });
                expect(r[0]!.partitions[0]!.errorCode).toBe('NONE');
                model.set(`${o.group}/${o.topic}/${o.partition}`, o.offset);
                groups.add(o.group);
                break;
              }
              case 'deleteOffset': {
                const r = b.coordinator.deleteOffsets(o.group, [
                  { name: o.topic, partitions: [o.partition] },
                ]);
                const exists = groups.has(o.group);
                expect(r.errorCode).toBe(exists ? 'NONE' : 'GROUP_ID_NOT_FOUND');
                model.delete(`${o.group}/${o.topic}/${o.partition}`);
                break;
              }
              case 'deleteGroup': {
                groups.delete(o.group);
                b.coordinator.deleteGroups([o.group]);
                for (const k of [...model.keys()]) if (k.startsWith(`${o.group}/`)) model.delete(k);
                break;
              }
              case 'compact':
                await cleanerPass(b.log);
                break;
              case 'restart':
                b.coordinator.close();
                b.log.close();
                b = open(dir);
                groups = new Set([...model.keys()].map((k) => k.slice(0, k.indexOf('/'))));
                break;
            }
          }
          expect(committed(b.coordinator)).toEqual(model);
          // And once more from disk, after a last compaction.
          await cleanerPass(b.log);
          b.coordinator.close();
          b.log.close();
          b = open(dir);
          expect(committed(b.coordinator)).toEqual(model);
        } finally {
          b.coordinator.close();
          b.log.close();
          remove();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('compaction keeps one record per key: the log shrinks to the live offsets and tombstones', async () => {
    const { dir, remove } = tempDir('klog-offsets-compact-');
    let b = open(dir, 1);
    try {
      for (let i = 0; i < 200; i++) {
        b.coordinator.commit({
          groupId: 'g',
          generationId: -1,
          memberId: '',
          groupInstanceId: null,
          retentionTimeMs: -1,
          apiVersion: 8,
          topics: [
            {
              name: 't',
              partitions: [
                {
                  partitionIndex: i % 2,
                  committedOffset: i,
                  committedLeaderEpoch: -1,
                  committedMetadata: null,
                },
              ],
            },
          ],
        });
      }
      const count = (log: BrokerLog) => {
        let n = 0;
        log.partition(OFFSETS_TOPIC, 0)!.readRecords(() => n++);
        return n;
      };
      expect(count(b.log)).toBe(200);
      // The log manager's cleaner, as for any compacted topic: no loop of the coordinator's own.
      expect(await cleanerPass(b.log)).toBeGreaterThan(150);
      // What is left: the active segment's records and one per key before it.
      expect(count(b.log)).toBeLessThan(50);
      b.coordinator.close();
      b.log.close();
      b = open(dir, 1);
      expect(b.coordinator.fetchOffsets('g', null).topics[0]!.partitions.map((p) => p.offset)).toEqual([
        198, 199,
      ]);
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});

describe('__consumer_offsets is an ordinary compacted topic: created by the one path, rolled and cleaned by the log', () => {
  const commit = (c: GroupCoordinator, offset: number) =>
    c.commit({
      groupId: 'g',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      apiVersion: 8,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null },
          ],
        },
      ],
    });
  const segments = (dir: string) =>
    readdirSync(join(dir, `${OFFSETS_TOPIC}-0`))
      .filter((f) => f.endsWith('.log'))
      .sort();

  it('created with the group coordinator’s configs (cleanup.policy=compact, segment.bytes), as topic configs', () => {
    const { dir, remove } = tempDir('klog-offsets-configs-');
    const b = open(dir, 1);
    try {
      b.topic.ensure();
      expect(Object.fromEntries(b.configs.own(OFFSETS_TOPIC))).toEqual({
        'cleanup.policy': 'compact',
        'compression.type': 'producer',
        'segment.bytes': '600',
      });
      expect(b.configs.logConfig(OFFSETS_TOPIC)).toMatchObject({
        compact: true,
        delete: false,
        segmentBytes: 600,
      });
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });

  it('a __consumer_offsets an older klog made without configs is given the coordinator’s on load', () => {
    const { dir, remove } = tempDir('klog-offsets-adopt-');
    const old = openBrokerLog({
      dataDir: dir,
      ownEntries: [BROKER_DIR],
      segmentBytes: 600,
      messageMaxBytes: 1_048_588,
    });
    old.createTopic(OFFSETS_TOPIC, 1);
    old.close();
    const b = open(dir, 1);
    try {
      expect(b.configs.logConfig(OFFSETS_TOPIC)).toMatchObject({ compact: true, delete: false });
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });

  it('rolls on segment.ms (log.roll.ms) when the coordinator writes to it, not only on Produce', () => {
    const { dir, remove } = tempDir('klog-offsets-roll-');
    const b = open(dir, 1, 1000);
    try {
      now = 1_700_000_000_000;
      expect(commit(b.coordinator, 1)[0]!.partitions[0]!.errorCode).toBe('NONE');
      now += 1000;
      commit(b.coordinator, 2);
      expect(segments(dir)).toEqual(['00000000000000000000.log']);
      now += 1;
      commit(b.coordinator, 3);
      expect(segments(dir)).toEqual(['00000000000000000000.log', '00000000000000000002.log']);
    } finally {
      now = 1_700_000_000_000;
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });

  it('compacted by the log manager’s cleaner schedule (log.cleaner.backoff.ms), as every compacted topic', async () => {
    const { dir, remove } = tempDir('klog-offsets-schedule-');
    const b = open(dir, 1);
    try {
      for (let i = 0; i < 100; i++) commit(b.coordinator, i);
      expect(segments(dir).length).toBeGreaterThan(2);
      const compacted = new Promise<LogEvent>((resolve) =>
        b.log.startup({
          retentionCheckIntervalMs: 60_000,
          cleanerBackoffMs: 10,
          onEvent: (e) => {
            if (e.kind === 'compaction' && e.topic === OFFSETS_TOPIC) resolve(e);
          },
        }),
      );
      const event = await compacted;
      if (event.kind !== 'compaction') throw new Error('unreachable');
      expect(event.report.recordsAfter).toBeLessThan(event.report.recordsBefore);
      b.coordinator.close();
      b.log.close();
      const again = open(dir, 1);
      expect(again.coordinator.fetchOffsets('g', null).topics[0]!.partitions[0]!.offset).toBe(99);
      again.coordinator.close();
      again.log.close();
    } finally {
      b.coordinator.close();
      b.log.close();
      remove();
    }
  });
});
