import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecords, type LogEvent, LogManager, type LogManagerOptions } from '../../src/index.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * Issue 40, item 1a: a background pass looks at each partition's segment list (its directory's listing when
 * it is not open) and opens only the partitions that have work; the cleaner's progress is kept in Kafka's
 * `cleaner-offset-checkpoint`, so a restart does not clean every compacted log again.
 */
const PARTITIONS = 2000;
const WORKED = [3, 700, 1999];

function options(topicConfig: NonNullable<LogManagerOptions['topicConfig']>): LogManagerOptions {
  // Every batch rolls a segment: a few appends leave segments to clean or to delete.
  return { config: { segmentBytes: 200 }, topicConfig, time: () => NOW + 60_000 };
}

const compacted = options(() => ({ compact: true, delete: false }));

/** A topic of PARTITIONS partitions, WORKED of them with several segments (the same keys again), closed. */
function fill(dataDir: string, opts: LogManagerOptions): void {
  const manager = LogManager.open(dataDir, opts);
  manager.createTopic('t', PARTITIONS);
  for (const p of WORKED) {
    for (let round = 0; round < 6; round++) appendRecords(manager.partition('t', p)!, records(2), NOW);
  }
  manager.close();
}

/**
 * Partition directories holding any file but the topic id's (`partition.metadata`, written on creation): a
 * partition that was opened has at least its segment.
 */
function withFiles(dataDir: string): number[] {
  const found: number[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    const names = readdirSync(join(dataDir, `t-${p}`)).filter((n) => n !== 'partition.metadata');
    if (names.length > 0) found.push(p);
  }
  return found;
}

function passes(events: LogEvent[]) {
  return events.flatMap((e) =>
    e.kind === 'pass' ? [`${e.task} ${e.phase} ${e.partitions} ${e.opened}`] : [],
  );
}

describe('background passes open only the partitions that have work', () => {
  it('a cleaner pass over 2,000 compacted partitions opens the 3 with segments to clean, and no other', async () => {
    const dataDir = tempDir();
    fill(dataDir, compacted);
    const manager = LogManager.open(dataDir, compacted);
    try {
      const told: LogEvent[] = [];
      const cleaned = await manager.cleanLogs((e) => told.push(e));
      expect(cleaned.map((e) => (e.kind === 'compaction' ? e.partition : e.kind))).toEqual(WORKED);
      expect(passes(told)).toEqual([`compaction started 0 0`, `compaction done ${PARTITIONS} 3`]);
      // An opened partition writes its segment: the other 1,997 directories are still empty.
      expect(withFiles(dataDir)).toEqual(WORKED);
      // Cleaned up to the active segment: the next pass has nothing to open.
      told.length = 0;
      expect(await manager.cleanLogs((e) => told.push(e))).toEqual([]);
      expect(passes(told)).toEqual([`compaction started 0 0`, `compaction done ${PARTITIONS} 0`]);
    } finally {
      manager.close();
    }
  });

  it("the cleaner's progress is in Kafka's cleaner-offset-checkpoint: a restart does not clean again", async () => {
    const dataDir = tempDir();
    fill(dataDir, compacted);
    let manager = LogManager.open(dataDir, compacted);
    const actives: number[] = [];
    try {
      await manager.cleanLogs();
      for (const p of WORKED) actives.push(manager.partition('t', p)!.log.segments.at(-1)!.baseOffset);
    } finally {
      manager.close();
    }
    // Kafka's OffsetCheckpointFile: version 0, the count, then `topic partition offset` (the first dirty offset).
    expect(readFileSync(join(dataDir, 'cleaner-offset-checkpoint'), 'latin1')).toBe(
      `0\n3\n${WORKED.map((p, i) => `t ${p} ${actives[i]}\n`).join('')}`,
    );
    manager = LogManager.open(dataDir, compacted);
    try {
      const told: LogEvent[] = [];
      expect(await manager.cleanLogs((e) => told.push(e))).toEqual([]);
      expect(passes(told).at(-1)).toBe(`compaction done ${PARTITIONS} 0`);
      // New records on one partition make it dirty again: only it is cleaned.
      for (let round = 0; round < 6; round++) appendRecords(manager.partition('t', 700)!, records(2), NOW);
      const cleaned = await manager.cleanLogs();
      expect(cleaned.map((e) => (e.kind === 'compaction' ? e.partition : e.kind))).toEqual([700]);
    } finally {
      manager.close();
    }
  });

  it('a retention pass opens only partitions whose oldest inactive segment breaches retention.bytes', async () => {
    const dataDir = tempDir();
    const retained = options(() => ({ compact: false, delete: true, retentionBytes: 300 }));
    fill(dataDir, retained);
    const manager = LogManager.open(dataDir, retained);
    try {
      const told: LogEvent[] = [];
      const deleted = await manager.cleanupLogs((e) => told.push(e));
      expect(deleted.map((e) => (e.kind === 'retention' ? e.partition : e.kind))).toEqual(WORKED);
      expect(passes(told)).toEqual([`retention started 0 0`, `retention done ${PARTITIONS} 3`]);
      expect(withFiles(dataDir)).toEqual(WORKED);
    } finally {
      manager.close();
    }
  });

  it('close stops a pass at its next slice: the pass says so, with fewer partitions looked at', async () => {
    const dataDir = tempDir();
    fill(dataDir, compacted);
    const manager = LogManager.open(dataDir, compacted);
    const told: LogEvent[] = [];
    const pass = manager.cleanLogs((e) => told.push(e));
    manager.close();
    await pass;
    const last = told.at(-1);
    expect(last?.kind === 'pass' && last.phase).toBe('stopped');
    expect(last?.kind === 'pass' && last.partitions).toBeLessThan(PARTITIONS);
  });
});
