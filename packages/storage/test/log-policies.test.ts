import { describe, expect, it } from 'vitest';
import { appendRecords, type LogEvent, LogManager } from '../src/internals.js';
import { NOW, records, tempDir } from './helpers.js';

/** The next event `manager`'s schedule reports that `match` accepts. */
function nextEvent(
  start: (onEvent: (event: LogEvent) => void) => void,
  match: (event: LogEvent) => boolean,
): Promise<LogEvent> {
  return new Promise((resolve) => start((event) => match(event) && resolve(event)));
}

describe('the log owns its policies: roll on time, retention and compaction (Kafka’s UnifiedLog and LogManager)', () => {
  it('a log written by klog itself (not a Produce) rolls on segment.ms: a batch more than segment.ms after the segment’s first', () => {
    const manager = LogManager.open(tempDir(), { config: { segmentMs: 1000 } });
    try {
      manager.createTopic('t', 1);
      const p = manager.partition('t', 0)!;
      appendRecords(p, records(1, 'a'), NOW);
      appendRecords(p, records(1, 'b'), NOW + 1000); // exactly segment.ms later: not past it
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0]);
      appendRecords(p, records(1, 'c'), NOW + 1001);
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 2]);
      // The new segment's clock starts at its own first batch.
      appendRecords(p, records(1, 'd'), NOW + 1500);
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 2]);
    } finally {
      manager.close();
    }
  });

  it('segment.ms changed on a topic (AlterConfigs) applies to its open log at the next append', () => {
    let segmentMs = 60_000;
    const manager = LogManager.open(tempDir(), { topicConfig: () => ({ segmentMs }) });
    try {
      manager.createTopic('t', 1);
      const p = manager.partition('t', 0)!;
      appendRecords(p, records(1, 'a'), NOW);
      appendRecords(p, records(1, 'b'), NOW + 10);
      expect(p.log.segments).toHaveLength(1);
      segmentMs = 5;
      manager.reconfigureTopic('t');
      appendRecords(p, records(1, 'c'), NOW + 10);
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 2]);
    } finally {
      manager.close();
    }
  });

  it('retention: the log manager’s schedule (log.retention.check.interval.ms) deletes segments past retention.ms', async () => {
    let now = NOW;
    const manager = LogManager.open(tempDir(), {
      config: { segmentBytes: 150, retentionMs: 10_000 },
      time: () => now,
    });
    try {
      manager.createTopic('t', 2);
      const p = manager.partition('t', 1)!;
      for (let i = 0; i < 4; i++) appendRecords(p, records(1, `r${i}`), NOW + i);
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 1, 2, 3]);
      // Not yet old enough: a pass changes nothing.
      expect(await manager.cleanupLogs()).toEqual([]);
      now = NOW + 10_002; // segments 0 and 1 are past retention.ms, 2 is not
      const deleted = nextEvent(
        (onEvent) => manager.startup({ retentionCheckIntervalMs: 10, cleanerBackoffMs: 60_000, onEvent }),
        (e) => e.kind === 'retention',
      );
      expect(await deleted).toEqual({
        kind: 'retention',
        topic: 't',
        partition: 1,
        deleted: [0, 1],
        logStartOffset: 2,
      });
      expect(p.log.segments.map((s) => s.baseOffset)).toEqual([2, 3]);
    } finally {
      manager.close();
    }
  });

  it('retention.bytes by the log’s config; a compacted-only topic (no delete) is left to the cleaner', async () => {
    const manager = LogManager.open(tempDir(), {
      config: { segmentBytes: 150, retentionBytes: 1 },
      topicConfig: (topic) => (topic === 'kept' ? { compact: true, delete: false } : {}),
    });
    try {
      manager.createTopic('trimmed', 1);
      manager.createTopic('kept', 1);
      for (const topic of ['trimmed', 'kept']) {
        const p = manager.partition(topic, 0)!;
        for (let i = 0; i < 3; i++) appendRecords(p, records(1, `r${i}`), NOW + i);
      }
      const events = await manager.cleanupLogs();
      expect(events.map((e) => e.kind === 'retention' && [e.topic, e.deleted])).toEqual([
        ['trimmed', [0, 1]],
      ]);
      expect(manager.partition('kept', 0)!.log.segments).toHaveLength(3);
    } finally {
      manager.close();
    }
  });

  it('compaction: the log manager’s schedule (log.cleaner.backoff.ms) compacts a compacted topic once dirty enough', async () => {
    const manager = LogManager.open(tempDir(), {
      config: { segmentBytes: 200, compact: true, delete: false },
      time: () => NOW + 1000,
    });
    try {
      manager.createTopic('c', 1);
      const p = manager.partition('c', 0)!;
      for (let i = 0; i < 8; i++)
        appendRecords(p, [{ key: Buffer.from('k'), value: Buffer.from(`v${i}`) }], NOW);
      const before = p.log.segments.length;
      expect(before).toBeGreaterThan(2);
      const cleaned = nextEvent(
        (onEvent) => manager.startup({ retentionCheckIntervalMs: 60_000, cleanerBackoffMs: 10, onEvent }),
        (e) => e.kind === 'compaction',
      );
      const event = await cleaned;
      expect(event).toMatchObject({ kind: 'compaction', topic: 'c', partition: 0, tombstonesRemoved: false });
      if (event.kind !== 'compaction') throw new Error('unreachable');
      expect(event.report.recordsAfter).toBeLessThan(event.report.recordsBefore);
      // Cleaned: a second pass finds nothing dirty.
      expect(await manager.cleanLogs()).toEqual([]);
    } finally {
      manager.close();
    }
  });
});
