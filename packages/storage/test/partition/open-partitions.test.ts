import { describe, expect, it } from 'vitest';
import { LogManager } from '../../src/index.js';
import { buildProducerBatch } from '../../src/internals.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * Issue 22, case 5: open files are bounded over all partitions. A LogManager keeps at most
 * `maxOpenPartitions` partitions open (four files each); past it the least recently used is closed cleanly
 * and opened again on its next use, its records and its producers' windows intact.
 */
describe('LogManager: at most maxOpenPartitions partitions open, the least recently used closed', () => {
  it('ten partitions through a bound of three: each appended to, its resend still a duplicate after it was closed', () => {
    const manager = LogManager.open(tempDir(), { maxOpenPartitions: 3, producerSnapshots: true });
    try {
      manager.createTopic('many', 10);
      const batch = (p: number) =>
        buildProducerBatch(records(2, `p${p}`), 0, NOW, {
          producerId: 100 + p,
          producerEpoch: 0,
          baseSequence: 0,
        });
      for (let p = 0; p < 10; p++) {
        expect(manager.partition('many', p)!.appendProducerBatch(batch(p))).toMatchObject({
          kind: 'Append',
          firstOffset: 0,
        });
        expect(manager.openPartitions).toBeLessThanOrEqual(3);
      }
      for (let p = 0; p < 10; p++) {
        const partition = manager.partition('many', p)!;
        expect(partition.logEndOffset).toBe(2);
        // Closed and opened again: the producer's window came back with it (its snapshot).
        expect(partition.appendProducerBatch(batch(p))).toMatchObject({ kind: 'Duplicate', firstOffset: 0 });
        expect(manager.openPartitions).toBeLessThanOrEqual(3);
      }
      // The most recently used stay open: using one of them again opens nothing.
      const last = manager.partition('many', 9);
      expect(manager.partition('many', 9)).toBe(last);
    } finally {
      manager.close();
    }
  });
});
