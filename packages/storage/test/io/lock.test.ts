import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecords, LOCK_FILE_NAME, Log, Partition, StorageError } from '../../src/internals.js';
import { startFixture } from '../fixtures/children.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

describe('one writer per partition directory (Kafka .lock)', () => {
  it('a second open in the same process is refused at once, naming this process', () => {
    const dataDir = tempDir();
    const first = Partition.open(dataDir, 'orders', 0);
    appendRecords(first, records(20), NOW);
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain(`this process (pid ${process.pid})`);
    expect(error.message).toContain(join(dataDir, 'orders-0'));
    // The refused opener changed nothing: the holder goes on, and all 20 acknowledged records stay.
    appendRecords(first, records(5), NOW);
    first.close();
    const again = Partition.open(dataDir, 'orders', 0);
    expect(again.recovery).toBeUndefined();
    expect(again.logEndOffset).toBe(25);
    again.close();
  });

  it('close releases the lock; a Log on the same directory is refused too', () => {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0);
    expect(thrown(StorageError, () => Log.open(p.dir)).code).toBe('LOCKED');
    p.close();
    const log = Log.open(p.dir);
    expect(readFileSync(join(p.dir, LOCK_FILE_NAME), 'latin1')).toBe(`${process.pid}\n`);
    log.close();
  });

  it('a second process is refused, naming the holder; a holder killed with kill -9 blocks nobody', async () => {
    const dataDir = tempDir();
    const holder = startFixture('hold-partition.mjs', [dataDir, 'orders']);
    const line = await holder.waitFor(/^open /);
    const pid = Number(line.split(' ')[1]);
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain(`process ${pid}`);
    await holder.kill();
    // The kernel released the lock with the process: no timeout, no stale lock file to remove.
    const p = Partition.open(dataDir, 'orders', 0);
    p.close();
  });

  it('an opener refused while another process appends does not touch its batches', async () => {
    const dataDir = tempDir();
    const writer = startFixture('hold-partition.mjs', [dataDir, 'orders', 'append']);
    await writer.waitFor(/^ack 20$/);
    for (let i = 0; i < 20; i++) {
      expect(thrown(StorageError, () => Partition.open(dataDir, 'orders', 0)).code).toBe('LOCKED');
    }
    await writer.kill();
    const acked = writer.lines.filter((l) => l.startsWith('ack ')).length;
    const p = Partition.open(dataDir, 'orders', 0);
    // Every acknowledged batch is there; at most one more (written, not yet acknowledged) may be.
    expect(p.logEndOffset).toBeGreaterThanOrEqual(acked);
    expect(p.log.readCheckedBatches(0, 1).map((b) => b.baseOffset)).toEqual([0]);
    expect(p.recovery === undefined || p.recovery.kind === 'torn-tail').toBe(true);
    p.close();
  });
});
