import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  DecodeError,
  describeRecovery,
  Partition,
  StorageError,
  segmentFileName,
} from '../src/internals.js';
import { logFiles, NOW, records, tempDir, thrown } from './helpers.js';

describe('errors from the file system are StorageErrors naming the path and the step', () => {
  it('EEXIST: a file squatting on the name of the next segment when the log rolls', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 100 });
    appendRecords(p, records(1), NOW);
    const next = join(p.dir, segmentFileName(1));
    writeFileSync(next, 'squatter');
    const error = thrown(StorageError, () => appendRecords(p, records(1), NOW));
    expect(error).toMatchObject({ code: 'KAFKA_STORAGE_ERROR', errno: 'EEXIST', path: next });
    expect(error.message).toContain('open new segment file');
    p.close();
  });

  it('ENOTDIR / EEXIST: the partition directory is a file', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'orders-0'), 'not a directory');
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('KAFKA_STORAGE_ERROR');
    expect(error.path).toBe(join(dataDir, 'orders-0'));
  });
});

describe('input refused at the boundary', () => {
  it('readChecked and readCheckedBatches take safe integer offsets and byte counts only', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendRecords(p, records(3), NOW);
    appendRecords(p, records(3), NOW);
    for (const [offset, maxBytes] of [
      [Number.NaN, 100],
      [2.5, 100],
      [0, Number.NaN],
      [0, -1],
      [0, 1.5],
    ] as const) {
      expect(thrown(StorageError, () => p.log.readChecked(offset, maxBytes)).code).toBe('INVALID_REQUEST');
      expect(thrown(StorageError, () => p.log.readCheckedBatches(offset, maxBytes)).code).toBe(
        'INVALID_REQUEST',
      );
    }
    expect(thrown(StorageError, () => p.log.readChecked(7)).code).toBe('OFFSET_OUT_OF_RANGE');
    p.close();
  });
});

describe('recovery leftovers and its report', () => {
  it('a half-written copy of cut bytes (kill -9 during recovery) is removed; the next open saves a whole one', () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    mkdirSync(dir);
    const whole = buildPlainBatch(records(2), 0, NOW);
    const torn = buildPlainBatch(records(2), 2, NOW).subarray(0, 30);
    writeFileSync(join(dir, segmentFileName(0)), Buffer.concat([whole, torn]));
    // What a kill during the save leaves: the copy under its temporary name, part written, the segment not yet cut.
    writeFileSync(join(dir, `${segmentFileName(0)}.dropped-${whole.length}.tmp`), torn.subarray(0, 10));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery?.savedTo).toBe(join(dir, `${segmentFileName(0)}.dropped-${whole.length}`));
    p.close();
    expect(logFiles(dir)).toEqual([segmentFileName(0), `${segmentFileName(0)}.dropped-${whole.length}`]);
  });

  it('an earlier copy of the same cut bytes (killed after saving, before cutting) is not copied again', () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    mkdirSync(dir);
    const whole = buildPlainBatch(records(2), 0, NOW);
    const torn = buildPlainBatch(records(2), 2, NOW).subarray(0, 30);
    writeFileSync(join(dir, segmentFileName(0)), Buffer.concat([whole, torn]));
    writeFileSync(join(dir, `${segmentFileName(0)}.dropped-${whole.length}`), torn);
    Partition.open(dataDir, 'orders', 0).close();
    expect(readdirSync(dir).filter((n) => n.includes('dropped'))).toEqual([
      `${segmentFileName(0)}.dropped-${whole.length}`,
    ]);
  });

  it('counts every whole batch with a good CRC it cuts: both neighbours of an offset clash', () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    mkdirSync(dir);
    const a = buildPlainBatch(records(2), 0, NOW);
    const b = buildPlainBatch(records(2), 2, NOW);
    // The third batch claims offset 3, inside the second: either baseOffset may be the wrong one, both are cut.
    const c = buildPlainBatch(records(2), 3, NOW);
    writeFileSync(join(dir, segmentFileName(0)), Buffer.concat([a, b, c]));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({ kind: 'corruption', batches: 1, batchesAfter: 2 });
    expect(p.recovery!.error).toBeInstanceOf(DecodeError);
    expect(describeRecovery(p.recovery!)).toContain('2 whole batches with a good CRC in the cut bytes');
    p.close();
  });
});
