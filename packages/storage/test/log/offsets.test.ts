import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  DecodeError,
  MAX_OFFSET,
  Partition,
  StorageError,
  segmentFileName,
} from '../../src/internals.js';
import { fingerprint, NOW, records, tempDir, thrown } from '../helpers.js';

/** A partition directory holding these files, made by hand. */
function partitionWith(files: Record<string, Uint8Array>): { dataDir: string; dir: string } {
  const dataDir = tempDir();
  const dir = join(dataDir, 'orders-0');
  mkdirSync(dir);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  return { dataDir, dir };
}

describe('offsets past 2^53 - 1, where a JS number stops counting exactly', () => {
  it('appends stop with OFFSET_OVERFLOW at the last offset klog can hold; no two records share one', () => {
    const base = MAX_OFFSET - 3;
    const { dataDir, dir } = partitionWith({ [segmentFileName(base)]: new Uint8Array() });
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.logEndOffset).toBe(base);
    expect(appendRecords(p, records(2), NOW)).toMatchObject({ firstOffset: base, lastOffset: base + 1 });
    const before = fingerprint(dir);
    // Three more would end at MAX_OFFSET + 1.
    expect(thrown(StorageError, () => appendRecords(p, records(3), NOW))).toMatchObject({
      code: 'OFFSET_OVERFLOW',
      message:
        `the batch would end at offset ${base + 2} + 2, past ${MAX_OFFSET}, ` +
        'the largest offset klog holds exactly',
    });
    expect(fingerprint(dir)).toEqual(before);
    expect(appendRecords(p, records(2), NOW)).toMatchObject({
      firstOffset: base + 2,
      lastOffset: MAX_OFFSET,
    });
    expect(p.logEndOffset).toBe(Number.MAX_SAFE_INTEGER);
    expect(thrown(StorageError, () => appendRecords(p, records(1), NOW)).code).toBe('OFFSET_OVERFLOW');
    p.close();
  });

  it('a batch on disk whose last offset is past 2^53 - 2 is not a batch klog can serve: it is never counted', () => {
    const bytes = buildPlainBatch(records(10), 0, NOW);
    bytes.writeUInt32BE(0x1fffff, 0); // baseOffset = 2^53 - 2^32 + ..., safe, but + 9 passes MAX_OFFSET
    bytes.writeUInt32BE(0xfffffff8, 4);
    expect(thrown(DecodeError, () => buildAndDecode(bytes)).field).toBe('lastOffsetDelta');
  });

  it('a segment named past 2^53 - 1 is refused by name, not skipped (and no segment 0 is made)', () => {
    const name = '09007199254740993.log'.padStart(24, '0');
    const { dataDir, dir } = partitionWith({ [name]: new Uint8Array() });
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('OFFSET_OVERFLOW');
    expect(error.message).toContain(name);
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toEqual([name]);
  });

  it('an active segment named below where the previous one ends is refused: the LEO never goes back', () => {
    const older = buildPlainBatch(records(10), 0, NOW);
    const { dataDir, dir } = partitionWith({
      [segmentFileName(0)]: older,
      [segmentFileName(5)]: new Uint8Array(),
    });
    const before = fingerprint(dir);
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('CORRUPT_MESSAGE');
    expect(error.message).toContain('holds offsets up to 9');
    expect(fingerprint(dir)).toEqual(before);
  });

  it('a .log file whose name is not a segment name is refused, never ignored', () => {
    const { dataDir } = partitionWith({
      [segmentFileName(0)]: buildPlainBatch(records(1), 0, NOW),
      '123.log': buildPlainBatch(records(1), 123, NOW),
    });
    const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
    expect(error.code).toBe('NOT_A_SEGMENT');
    expect(error.message).toContain('123.log');
  });
});

function buildAndDecode(bytes: Buffer): unknown {
  const { dataDir } = partitionWith({ [segmentFileName(0)]: bytes });
  const p = Partition.open(dataDir, 'orders', 0);
  try {
    if (p.recovery?.error !== undefined) throw p.recovery.error;
    return p.logEndOffset;
  } finally {
    p.close();
  }
}
