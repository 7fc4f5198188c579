import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendRecords, compact, Partition, StorageError } from '../../src/internals.js';
import { logFiles, NOW, records, tempDir, thrown } from '../helpers.js';

/** When armed, writes to the files whose names hold `marker` (a copy of cut bytes by default) fail as on a full disk. */
const full = vi.hoisted(() => ({ fd: -1, armed: false, marker: '.dropped-' }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = (...args: Parameters<typeof fs.openSync>) => {
    const fd = fs.openSync(...args);
    if (full.armed && String(args[0]).includes(full.marker)) full.fd = fd;
    return fd;
  };
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (full.armed && fd === full.fd) {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
      });
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, openSync, writeSync }, openSync, writeSync };
});

afterEach(() => {
  full.armed = false;
  full.fd = -1;
  full.marker = '.dropped-';
});

describe('a full disk while recovery saves what it cuts', () => {
  it('fails the open with a typed error, cuts nothing, and leaves no partial copy; a retry saves one copy', async () => {
    const { buildPlainBatch } = await import('../../src/internals.js');
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    mkdirSync(dir);
    const whole = buildPlainBatch(records(3), 0, NOW);
    const torn = buildPlainBatch(records(3), 3, NOW).subarray(0, 40);
    writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat([whole, torn]));
    full.armed = true;
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
      expect(error.code).toBe('KAFKA_STORAGE_ERROR');
      expect(error.errno).toBe('ENOSPC');
      expect(error.step).toBe('save the bytes recovery cuts to');
      expect(error.message).toContain('no space left');
      expect(logFiles(dir)).toEqual(['00000000000000000000.log']);
    }
    full.armed = false;
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({ kind: 'torn-tail', truncatedBytes: 40 });
    expect(p.logEndOffset).toBe(3);
    p.close();
    expect(readdirSync(dir).filter((n) => n.includes('.dropped-'))).toEqual([
      `00000000000000000000.log.dropped-${whole.length}`,
    ]);
  });
});

describe('a full disk while compaction writes a cleaned segment', () => {
  it('fails with a typed error naming the step, removes what it wrote, leaves the log as it was; a retry cleans', () => {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0, { segmentBytes: 200 });
    for (let i = 0; i < 12; i++) {
      appendRecords(p, [{ key: Buffer.from(`k${i % 3}`), value: Buffer.from(`v${i}`) }], NOW);
    }
    expect(p.log.segments.length).toBeGreaterThan(2);
    const before = logFiles(p.log.dir);
    const readBack = () => [...p.log.batches()].map(({ batch }) => batch.baseOffset);
    const offsets = readBack();
    full.marker = '.cleaned';
    full.armed = true;
    const error = thrown(StorageError, () => compact(p));
    expect(error.code).toBe('KAFKA_STORAGE_ERROR');
    expect(error.errno).toBe('ENOSPC');
    expect(error.step).toBe('write cleaned segment');
    expect(error.message).toMatch(new RegExp(`^write cleaned segment ${p.log.dir}: ENOSPC`));
    expect(readdirSync(p.log.dir).filter((n) => n.endsWith('.cleaned'))).toEqual([]);
    expect(logFiles(p.log.dir)).toEqual(before);
    expect(readBack()).toEqual(offsets);
    full.armed = false;
    expect(compact(p).recordsAfter).toBeLessThan(12);
    p.close();
  });
});
