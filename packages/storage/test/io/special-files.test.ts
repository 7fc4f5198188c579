import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlainBatch, Partition, StorageError, segmentFileName } from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

const SEGMENT = segmentFileName(0);

function partitionDir(): { dataDir: string; dir: string } {
  const dataDir = tempDir();
  const dir = join(dataDir, 'orders-0');
  mkdirSync(dir);
  return { dataDir, dir };
}

describe('a partition directory holds regular files only: nothing is followed', () => {
  it('an active segment that is a symlink to a file outside is refused; the outside file is untouched', () => {
    const { dataDir, dir } = partitionDir();
    const outside = join(tempDir(), 'precious.txt');
    // Not a batch: recovery would have "cut" it to 0 bytes.
    writeFileSync(outside, 'bytes that belong to someone else');
    symlinkSync(outside, join(dir, SEGMENT));
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('NOT_A_SEGMENT');
    expect(error.message).toContain('symbolic link');
    expect(readFileSync(outside, 'utf8')).toBe('bytes that belong to someone else');
  });

  it('an older segment that is a symlink is refused too, and so is a directory named like a segment', () => {
    const { dataDir, dir } = partitionDir();
    const outside = join(tempDir(), 'elsewhere.log');
    writeFileSync(outside, buildPlainBatch(records(1), 0, NOW));
    symlinkSync(outside, join(dir, SEGMENT));
    writeFileSync(join(dir, segmentFileName(1)), buildPlainBatch(records(1), 1, NOW));
    expect(thrown(StorageError, () => Partition.open(dataDir, 'orders', 0)).message).toContain(
      'symbolic link',
    );

    const second = partitionDir();
    mkdirSync(join(second.dir, SEGMENT));
    expect(thrown(StorageError, () => Partition.open(second.dataDir, 'orders', 0)).message).toContain(
      'a directory',
    );
  });

  it('a FIFO named like a segment is refused at once instead of blocking the open', () => {
    const { dataDir, dir } = partitionDir();
    execFileSync('mkfifo', [join(dir, SEGMENT)]);
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('NOT_A_SEGMENT');
    expect(error.message).toContain('FIFO');
  });

  it('a lock file that is a symlink is refused rather than followed', () => {
    const { dataDir, dir } = partitionDir();
    const outside = join(tempDir(), 'not-a-lock');
    writeFileSync(outside, 'keep me');
    symlinkSync(outside, join(dir, '.lock'));
    expect(thrown(StorageError, () => Partition.open(dataDir, 'orders', 0)).code).toBe('NOT_A_SEGMENT');
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
  });
});
