import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  appendRecords,
  buildPlainBatch,
  DecodeError,
  encodeRecordBatch,
  LogSegment,
  Partition,
  StorageError,
  segmentFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

const openFds = () => readdirSync('/proc/self/fd').length;
const big = (bytes: number, fill = 1) => [{ key: null, value: Buffer.alloc(bytes, fill) }];

/** A plain batch at `baseOffset` with header fields changed outside the CRC, or inside it with the CRC made right. */
function batchAt(baseOffset: number, edit?: (b: Buffer) => void): Buffer {
  const b = buildPlainBatch(records(2, `b${baseOffset}`), baseOffset, NOW);
  edit?.(b);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

describe('LogSegment: file descriptors, and what a sealed segment refuses', () => {
  it('opening and closing a partition, rolls and recovery included, leaves no file open', () => {
    const dataDir = tempDir();
    const before = openFds();
    for (let round = 0; round < 5; round++) {
      const p = Partition.open(dataDir, 'orders', 0, { segmentBytes: 3 * 4400 });
      for (let i = 0; i < 7; i++) appendRecords(p, big(4300, i), NOW + i);
      for (let offset = 0; offset < p.logEndOffset; offset += 3) p.log.readChecked(offset, 1);
      p.close();
    }
    // A torn tail makes the next open recover (and restart the active index files).
    const dir = join(dataDir, 'orders-0');
    const last = readdirSync(dir)
      .filter((n) => n.endsWith('.log'))
      .sort()
      .at(-1)!;
    writeFileSync(join(dir, last), Buffer.concat([readFileSync(join(dir, last)), Buffer.alloc(30)]));
    const p = Partition.open(dataDir, 'orders', 0, { segmentBytes: 3 * 4400 });
    expect(p.recovery?.kind).toBe('torn-tail');
    p.close();
    expect(openFds()).toBe(before);
  });

  it('a segment that rolled takes no more appends', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 4400 });
    appendRecords(p, big(4300), NOW);
    appendRecords(p, big(4300), NOW);
    const sealed = p.log.segments[0]!;
    const error = thrown(StorageError, () => sealed.append(batchAt(9), 10));
    expect(error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: `segment ${sealed.path} is open for reading only`,
    });
    p.close();
  });

  it('a writable segment opened on its own takes appends and indexes them when asked', () => {
    const path = join(tempDir(), segmentFileName(0));
    writeFileSync(path, Buffer.alloc(0));
    const segment = LogSegment.open(path, 0);
    const batches = [0, 2, 4].map((o) => batchAt(o));
    for (const [i, b] of batches.entries()) segment.append(b, i * 2 + 1);
    expect([...segment.checkedPositionsFrom(3)].map((e) => e.position)).toEqual([
      batches[0]!.length,
      batches[0]!.length + batches[1]!.length,
    ]);
    expect(segment.sparseIndex().entries).toBe(0);
    segment.close();
    expect(readFileSync(path).equals(Buffer.concat(batches))).toBe(true);
  });
});

describe('checks on what the CRC does not cover, and on what it does', () => {
  /** A read-only segment at base 0 holding `bytes`, the next segment at `next`. */
  function segmentOf(bytes: Buffer, next?: number): LogSegment {
    const path = join(tempDir(), segmentFileName(0));
    writeFileSync(path, bytes);
    return LogSegment.open(path, 0, { readOnly: true, nextBaseOffset: next });
  }
  const served = (segment: LogSegment) => {
    const positions: number[] = [];
    try {
      for (const { position } of segment.checkedPositionsFrom(0)) positions.push(position);
      return { positions, error: undefined };
    } catch (error) {
      return { positions, error: error as DecodeError };
    }
  };

  it('a leader epoch of -1 is fine; below it is refused by name, and the batch before is still served', () => {
    const bytes = [
      batchAt(0),
      batchAt(2, (b) => b.writeInt32BE(-1, 12)),
      batchAt(4, (b) => b.writeInt32BE(-2, 12)),
    ];
    const segment = segmentOf(Buffer.concat(bytes));
    const { positions, error } = served(segment);
    expect(positions).toEqual([0, bytes[0]!.length]);
    expect(error).toMatchObject({
      field: 'partitionLeaderEpoch',
      offset: bytes[0]!.length + bytes[1]!.length + 12,
      reason: '-2 is below -1 (no epoch)',
    });
    segment.close();
  });

  it("a batch running into the next segment's base offset is refused by name; the one before is served", () => {
    const bytes = [batchAt(0), batchAt(2)];
    const segment = segmentOf(Buffer.concat(bytes), 3);
    const { positions, error } = served(segment);
    expect(positions).toEqual([0]);
    expect(error).toMatchObject({ field: 'baseOffset', offset: bytes[0]!.length });
    expect(error!.reason).toBe("the batch ends at offset 3, not below the next segment's base offset 3");
    segment.close();
  });

  it('a batch cut short says how many bytes it needs and how many the file has', () => {
    const whole = batchAt(0);
    const segment = segmentOf(whole.subarray(0, whole.length - 5));
    const { positions, error } = served(segment);
    expect(positions).toEqual([]);
    expect(error!.reason).toBe(
      `truncated: batch needs ${whole.length} bytes, the file has ${whole.length - 5} left`,
    );
    segment.close();
  });

  it('a batch whose CRC is right but whose records are not stops Log.batches() and readCheckedBatches with the error', () => {
    const dataDir = tempDir();
    Partition.open(dataDir, 'orders', 0).close();
    // One record whose key length says 100 bytes in a record of 10: the CRC is computed over the bad bytes.
    const bad = encodeRecordBatch({
      baseOffset: 2,
      partitionLeaderEpoch: 0,
      attributes: 0,
      lastOffsetDelta: 0,
      baseTimestamp: NOW,
      maxTimestamp: NOW,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: [
        {
          attributes: 0,
          timestampDelta: 0,
          offsetDelta: 0,
          key: Buffer.from('k'),
          value: Buffer.from('v'),
          headers: [],
        },
      ],
    });
    bad[61 + 4] = 200; // the key length varint (after length, attributes, timestamp delta, offset delta)
    bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
    const file = join(dataDir, 'orders-0', segmentFileName(0));
    writeFileSync(file, Buffer.concat([batchAt(0), bad]));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.logEndOffset).toBe(3);
    const error = thrown(DecodeError, () => [...p.log.batches()]);
    expect(error.file).toBe(file);
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0]);
    expect(thrown(DecodeError, () => p.log.readCheckedBatches(2)).file).toBe(file);
    p.close();
  });
});

describe('older segments through their index files', () => {
  it('an index rebuilt from the segment on first read is written back, byte for byte as it was', () => {
    const dataDir = tempDir();
    const config = { segmentBytes: 20 * 4400 };
    let p = Partition.open(dataDir, 'orders', 0, config);
    for (let i = 0; i < 25; i++) appendRecords(p, big(4300, i), NOW + i);
    const first = p.log.segments[0]!;
    const { offsets, times } = first.indexPaths;
    p.close();
    const written = [readFileSync(offsets), readFileSync(times)];
    expect(written[0]!.length).toBeGreaterThan(0);
    unlinkSync(offsets);
    unlinkSync(times);
    p = Partition.open(dataDir, 'orders', 0, config);
    expect(p.log.readChecked(5, 1).readBigInt64BE(0)).toBe(5n);
    expect(readFileSync(offsets).equals(written[0]!)).toBe(true);
    expect(readFileSync(times).equals(written[1]!)).toBe(true);
    p.close();
  });

  it('Log.read reads near its offset through the index, not the segment from its start', () => {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0, { segmentBytes: 200 * 4400 });
    for (let i = 0; i < 150; i++) appendRecords(p, big(4300, i), NOW + i);
    const read = vi.spyOn(LogSegment.prototype, 'read');
    const bytes = p.log.readChecked(140, 1);
    const bytesRead = read.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
    read.mockRestore();
    expect(bytes.readBigInt64BE(0)).toBe(140n);
    // The segment holds ~650 KiB; the entry before offset 140 is one batch back.
    expect(bytesRead).toBeLessThan(4 * 4400 + 64 * 1024);
    p.close();
  });
});
