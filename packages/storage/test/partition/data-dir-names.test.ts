import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecords, LogManager } from '../../src/index.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * Every name klog accepts comes back after a restart: a topic may start with `.` (Kafka allows it), so
 * its directories `.name-<p>` are partitions, not hidden files to skip. What maps to no topic is reported.
 */
describe('LogManager: topic names starting with "." come back, unmapped entries are reported', () => {
  it('a topic named .orders (and one named .lock-like) is found again on open, with its records', () => {
    const dataDir = tempDir();
    let manager = LogManager.open(dataDir);
    manager.createTopic('.orders', 2);
    manager.createTopic('..x', 1);
    appendRecords(manager.partition('.orders', 1)!, records(3), NOW);
    manager.close();
    manager = LogManager.open(dataDir);
    try {
      expect(Object.fromEntries(manager.topics())).toEqual({ '.orders': 2, '..x': 1 });
      expect(manager.partition('.orders', 1)!.logEndOffset).toBe(3);
      expect(manager.unmapped).toEqual([]);
    } finally {
      manager.close();
    }
  });

  it("reports a hidden entry that maps to no topic (never skipped silently); leaves the user's own alone", () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, '.broker'));
    mkdirSync(join(dataDir, '.Trash'));
    writeFileSync(join(dataDir, '.DS_Store'), '');
    const manager = LogManager.open(dataDir, { ownEntries: ['.broker'] });
    try {
      expect(manager.unmapped).toEqual([
        {
          path: join(dataDir, '.DS_Store'),
          reason: 'not a directory: a data directory holds partitions only',
        },
        { path: join(dataDir, '.Trash'), reason: 'a directory whose name is no <topic>-<partition>' },
      ]);
      expect(manager.topics().size).toBe(0);
    } finally {
      manager.close();
    }
  });
});
