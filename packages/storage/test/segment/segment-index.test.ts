import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { appendRecords, LogSegment, Partition } from '../../src/internals.js';
import { SegmentIndex } from '../../src/segment/segment-index.js';
import { NOW, tempDir } from '../helpers.js';

const value = (bytes: number) => [{ key: null, value: Buffer.alloc(bytes, 7) }];

/** A partition of several segments of 1 KiB-value batches, timestamps growing by 10 ms a batch. */
function filled(batches: number, segmentBytes = 64 * 1024): Partition {
  const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes });
  for (let i = 0; i < batches; i++) appendRecords(p, value(1024), NOW + i * 10);
  return p;
}

describe("segment indexes in Kafka's formats", () => {
  it('writes <base>.index (8-byte entries) and <base>.timeindex (12-byte entries), one per 4 KiB appended', () => {
    const p = filled(200);
    const sealed = p.log.segments[0]!;
    const { offsets, times } = sealed.indexPaths;
    const index = readFileSync(offsets);
    const timeIndex = readFileSync(times);
    expect(index.length % 8).toBe(0);
    expect(timeIndex.length % 12).toBe(0);
    // About one entry per 4 KiB of ~1.1 KiB batches: every fourth or fifth batch.
    const entries = index.length / 8;
    expect(entries).toBeGreaterThan(sealed.size / 8192);
    expect(entries).toBeLessThan(sealed.size / 4096);
    // Each entry: a batch's last offset (relative) and that batch's position.
    for (let i = 0; i < entries; i++) {
      const relative = index.readInt32BE(i * 8);
      const position = index.readInt32BE(i * 8 + 4);
      const [batch] = p.log.readCheckedBatches(sealed.baseOffset + relative, 1);
      expect(batch!.baseOffset + batch!.lastOffsetDelta).toBe(sealed.baseOffset + relative);
      expect(p.fetch(sealed.baseOffset + relative, 1).records.readBigInt64BE(0)).toBe(
        BigInt(batch!.baseOffset),
      );
      expect(position).toBeLessThan(sealed.size);
    }
    // The time index ends with the segment's largest timestamp (Kafka's onBecomeInactiveSegment).
    const last = timeIndex.length - 12;
    const lastOffsetOfSegment = p.log.segments[1]!.baseOffset - 1;
    expect(Number(timeIndex.readBigInt64BE(last))).toBe(NOW + lastOffsetOfSegment * 10);
    expect(timeIndex.readInt32BE(last + 8)).toBe(lastOffsetOfSegment - sealed.baseOffset);
    p.close();
  });

  it("preallocates the active segment's index files and trims them on close", () => {
    const p = filled(3);
    const { offsets, times } = p.log.activeSegment.indexPaths;
    expect(statSync(offsets).size).toBe(10 * 1024 * 1024);
    expect(statSync(times).size).toBe(10 * 1024 * 1024);
    p.close();
    expect(statSync(offsets).size).toBe(0);
    expect(statSync(times).size).toBe(12);
  });

  it('rebuilds an index that is missing or fails its sanity check, and serves the same bytes', () => {
    const p = filled(200);
    const dataDir = p.dataDir;
    const expected = p.fetch(37, 5000).records;
    const [first, second] = p.log.segments;
    p.close();
    unlinkSync(first!.indexPaths.offsets);
    writeFileSync(second!.indexPaths.offsets, Buffer.from([0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0]));
    const again = Partition.open(dataDir, 'orders', 0, { segmentBytes: 64 * 1024 });
    expect(again.fetch(37, 5000).records.equals(expected)).toBe(true);
    const [a, b] = again.log.segments;
    expect(a!.indexRebuiltBecause).toMatch(/cannot be read/);
    expect(b!.indexRebuiltBecause).toMatch(/out of order/);
    expect(readFileSync(b!.indexPaths.offsets).length % 8).toBe(0);
    again.close();
  });

  it("decode refuses what Kafka's sanity check refuses", () => {
    const entry = (rel: number, pos: number) => {
      const b = Buffer.alloc(8);
      b.writeInt32BE(rel, 0);
      b.writeInt32BE(pos, 4);
      return b;
    };
    const ok = Buffer.concat([entry(3, 0), entry(9, 100)]);
    expect(SegmentIndex.decode(ok, Buffer.alloc(0), 100, 200, 120)).toBeInstanceOf(SegmentIndex);
    expect(SegmentIndex.decode(ok.subarray(0, 7), Buffer.alloc(0), 100, 200, 120)).toMatch(/whole number/);
    expect(SegmentIndex.decode(ok, Buffer.alloc(0), 100, 50, 120)).toMatch(/past the segment/);
    expect(SegmentIndex.decode(ok, Buffer.alloc(0), 100, 200, 105)).toMatch(/out of the segment/);
  });
});

describe('reading by offset at scale', () => {
  it('a fetch reads near its offset, not the segment from the start', () => {
    const p = filled(60, 1024 * 1024);
    const segment = p.log.activeSegment;
    segment.sparseIndex();
    const read = vi.spyOn(LogSegment.prototype, 'read');
    const records = p.fetch(55, 1).records;
    const bytesRead = read.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
    read.mockRestore();
    expect(records.readBigInt64BE(0)).toBe(55n);
    // The index entry before offset 55 is at most ~4 KiB back; a header scan reads 64 KiB chunks at most.
    expect(bytesRead).toBeLessThan(64 * 1024 + 2 * records.length);
    p.close();
  });

  it('opening a log reads its active segment, not the older ones (their index files are enough)', () => {
    const p = filled(300);
    const dataDir = p.dataDir;
    const older = p.log.segments.slice(0, -1).reduce((sum, s) => sum + s.size, 0);
    p.close();
    const read = vi.spyOn(LogSegment.prototype, 'read');
    const again = Partition.open(dataDir, 'orders', 0, { segmentBytes: 64 * 1024 });
    const bytesRead = read.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
    read.mockRestore();
    expect(older).toBeGreaterThan(200 * 1024);
    expect(bytesRead).toBeLessThan(again.log.activeSegment.size * 3 + 64 * 1024);
    expect(again.offsetForTimestamp(NOW + 1234)).toEqual({ offset: 124, timestamp: NOW + 1240 });
    again.close();
  });
});
