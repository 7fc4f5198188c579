import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendRecords,
  LogManager,
  Partition,
  SegmentFileCache,
  StorageError,
  snapshotFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

describe('Partition.open: the data directory around the partition', () => {
  it('creates a data directory that is not there yet, parents included', () => {
    const data = join(tempDir(), 'not', 'yet');
    const p = Partition.open(data, 'orders', 0);
    expect(readdirSync(data).sort()).toEqual(['.lock', 'orders-0']);
    p.close();
  });

  it('names the step and the path when the data directory cannot be made', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const data = join(file, 'data');
    expect(thrown(StorageError, () => Partition.open(data, 'orders', 0))).toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
      message: expect.stringMatching(new RegExp(`^create data directory ${data}: ENOTDIR`)),
    });
  });

  it("names the data directory as what is in use while a LogManager holds it (Kafka's LogManager lock)", () => {
    const data = tempDir();
    const m = LogManager.open(data);
    m.createTopic('orders', 1);
    expect(thrown(StorageError, () => Partition.open(data, 'orders', 0))).toMatchObject({
      code: 'LOCKED',
      message: expect.stringMatching(new RegExp(`^data directory ${data} is in use by`)),
    });
    m.close();
  });
});

describe('Partition.open: the segment file cache it is given', () => {
  it("reads an inactive segment through the caller's cache, as a LogManager shares one", () => {
    const files = new SegmentFileCache(4);
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 200 }, { segmentFiles: files });
    for (let i = 0; i < 6; i++) appendRecords(p, records(1, `r${i}`), NOW);
    expect(p.log.segments.length).toBeGreaterThan(1);
    expect(files.size).toBe(0);
    expect(p.fetch(0, 1).records.length).toBeGreaterThan(0);
    expect(files.size).toBe(1);
    p.close();
  });
});

describe('Partition.open: a producer snapshot that cannot be read', () => {
  /** A directory where the newest snapshot file should be: reading it fails with EISDIR, not a decode error. */
  function unreadableSnapshot(dir: string): string {
    const path = join(dir, snapshotFileName(0));
    mkdirSync(path);
    return path;
  }

  it('fails the open by step and path rather than skipping it, and leaves the partition free to open again', () => {
    const data = tempDir();
    Partition.open(data, 'orders', 0).close();
    const path = unreadableSnapshot(join(data, 'orders-0'));
    const options = { producerSnapshots: true };
    expect(thrown(StorageError, () => Partition.open(data, 'orders', 0, {}, options))).toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
      message: expect.stringMatching(new RegExp(`^read producer snapshot ${path}: EISDIR`)),
    });
    rmSync(path, { recursive: true });
    // Both locks (the partition's and the data directory's) were let go.
    Partition.open(data, 'orders', 0, {}, options).close();
    LogManager.open(data).close();
  });

  it('fails a LogManager partition the same way, and lets it open once the snapshot is gone', () => {
    const data = tempDir();
    const m = LogManager.open(data, { producerSnapshots: true });
    m.createTopic('orders', 1);
    const path = unreadableSnapshot(join(data, 'orders-0'));
    expect(thrown(StorageError, () => m.partition('orders', 0))).toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
      message: expect.stringMatching(/^read producer snapshot .*: EISDIR/),
    });
    rmSync(path, { recursive: true });
    expect(m.partition('orders', 0)!.logEndOffset).toBe(0);
    m.close();
  });
});
