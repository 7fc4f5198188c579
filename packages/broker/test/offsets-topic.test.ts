import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../src/group/group-coordinator.js';
import { OFFSETS_TOPIC, OffsetsTopic } from '../src/group/offsets-topic.js';
import { type BrokerLog, openBrokerLog } from '../src/log-port.js';
import { SILENT } from '../src/logger.js';
import { tempDir } from './support/broker.js';
import { FakeTimer } from './support/fake-timer.js';

/** A broker's log and coordinator over `dir`, as `klog serve` opens them: the offsets read back from disk. */
function open(dir: string, partitions = 3) {
  // Small segments, so that commits roll segments and compaction has something to clean.
  const log = openBrokerLog({ dataDir: dir, segmentBytes: 600, messageMaxBytes: 1_048_588 });
  const topic = new OffsetsTopic(log, partitions, SILENT, () => 1_700_000_000_000);
  const coordinator = new GroupCoordinator(new FakeTimer(), topic, { groupInitialRebalanceDelayMs: 0 });
  topic.load(coordinator);
  return { log, topic, coordinator };
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
  it('random commits, offset and group deletions, compactions and restarts: OffsetFetch returns the last committed value', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const { dir, remove } = tempDir('klog-offsets-prop-');
        let b = open(dir);
        try {
          const model = new Map<string, number>();
          for (const o of ops) {
            switch (o.kind) {
              case 'commit': {
                const r = b.coordinator.commit({
                  groupId: o.group,
                  generationId: -1,
                  memberId: '',
                  groupInstanceId: null,
                  retentionTimeMs: -1,
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
                break;
              }
              case 'deleteOffset': {
                const r = b.coordinator.deleteOffsets(o.group, [
                  { name: o.topic, partitions: [o.partition] },
                ]);
                const exists = [...model.keys()].some((k) => k.startsWith(`${o.group}/`));
                expect(r.errorCode).toBe(exists ? 'NONE' : 'GROUP_ID_NOT_FOUND');
                model.delete(`${o.group}/${o.topic}/${o.partition}`);
                break;
              }
              case 'deleteGroup': {
                b.coordinator.deleteGroups([o.group]);
                for (const k of [...model.keys()]) if (k.startsWith(`${o.group}/`)) model.delete(k);
                break;
              }
              case 'compact':
                b.topic.clean(true);
                break;
              case 'restart':
                b.coordinator.close();
                b.log.close();
                b = open(dir);
                break;
            }
          }
          expect(committed(b.coordinator)).toEqual(model);
          // And once more from disk, after a last compaction.
          b.topic.clean(true);
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

  it('compaction keeps one record per key: the log shrinks to the live offsets and tombstones', () => {
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
      expect(b.topic.clean(true)).toBeGreaterThan(150);
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
