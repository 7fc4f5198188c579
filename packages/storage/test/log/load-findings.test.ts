import { appendFileSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecords, LogManager, Partition } from '../../src/index.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * Issue 22, case 4: damage found when a log is opened is reported, as Kafka's LogLoader logs it: the
 * offsets no segment holds (a deleted segment) and what recovery cut from the active segment.
 */
function filled(dataDir: string): string[] {
  const p = Partition.open(dataDir, 'gappy', 0, { segmentBytes: 1200 });
  for (let i = 0; i < 30; i++) appendRecords(p, records(6, `b${i}`), NOW);
  const segments = p.log.segments.map((s) => s.path);
  p.close();
  return segments;
}

describe('a log opened over missing segments says which offsets are gone', () => {
  it('a deleted inactive segment: its offsets are a gap, before the segment after it', () => {
    const dataDir = tempDir();
    const segments = filled(dataDir);
    expect(segments.length).toBeGreaterThan(3);
    const gone = segments[1]!;
    const base = Number(/(\d+)\.log$/.exec(gone)![1]);
    const next = Number(/(\d+)\.log$/.exec(segments[2]!)![1]);
    unlinkSync(gone);
    const p = Partition.open(dataDir, 'gappy', 0);
    try {
      expect(p.log.gaps).toEqual([{ from: base, to: next - 1, before: segments[2] }]);
    } finally {
      p.close();
    }
  });

  it('the first segment deleted: offsets from 0; a whole log reports nothing', () => {
    const dataDir = tempDir();
    const segments = filled(dataDir);
    let p = Partition.open(dataDir, 'gappy', 0);
    expect(p.log.gaps).toEqual([]);
    p.close();
    unlinkSync(segments[0]!);
    p = Partition.open(dataDir, 'gappy', 0);
    try {
      expect(p.log.gaps).toEqual([{ from: 0, to: p.logStartOffset - 1, before: segments[1] }]);
    } finally {
      p.close();
    }
  });

  it('LogManager.checkLogs opens every partition with segments and lists what each found: gaps and recovery cuts', async () => {
    const dataDir = tempDir();
    let manager = LogManager.open(dataDir, { config: { segmentBytes: 1200 } });
    manager.createTopic('t', 4);
    for (let i = 0; i < 30; i++) appendRecords(manager.partition('t', 0)!, records(6, `b${i}`), NOW);
    appendRecords(manager.partition('t', 1)!, records(3), NOW);
    manager.partition('t', 2);
    manager.close();
    const dir0 = join(dataDir, 't-0');
    unlinkSync(
      join(
        dir0,
        readdirSync(dir0)
          .filter((n) => n.endsWith('.log'))
          .sort()[1]!,
      ),
    );
    const dir1 = join(dataDir, 't-1');
    appendFileSync(join(dir1, '00000000000000000000.log'), Buffer.from('torn tail'));
    manager = LogManager.open(dataDir, { config: { segmentBytes: 1200 } });
    try {
      const check = await manager.checkLogs();
      expect(check.findings.map((f) => [f.topic, f.partition, f.gaps.length, f.recovery?.kind])).toEqual([
        ['t', 0, 1, undefined],
        ['t', 1, 0, 'torn-tail'],
      ]);
      // t-2 and t-3 were never written to (t-2 was opened, so it has its empty segment; t-3 has none, only
      // its topic id).
      expect({ opened: check.opened, empty: check.empty, complete: check.complete }).toEqual({
        opened: 3,
        empty: 1,
        complete: true,
      });
      expect(readdirSync(join(dataDir, 't-3'))).toEqual(['partition.metadata']);
    } finally {
      manager.close();
    }
  });
});
