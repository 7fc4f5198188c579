import { closeSync, openSync, readFileSync, readSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecords, DecodeError, LogSegment, Partition, segmentFileName } from '../../src/internals.js';
import { PENDING_ENTRIES_BEFORE_WRITE } from '../../src/segment/segment-index.js';
import { NOW, tempDir, thrown } from '../helpers.js';

/** One record of `bytes` bytes: batches above index.interval.bytes (4096) each get an offset index entry. */
const big = (bytes: number, fill = 7) => [{ key: null, value: Buffer.alloc(bytes, fill) }];

/** The entries an `.index` file holds, up to the preallocated zeros (no real entry is (0, 0): the first comes after 4 KiB). */
function offsetEntries(path: string, upTo = 4096): { relative: number; position: number }[] {
  const fd = openSync(path, 'r');
  const bytes = Buffer.alloc(upTo * 8);
  const length = readSync(fd, bytes, 0, bytes.length, 0);
  closeSync(fd);
  const entries: { relative: number; position: number }[] = [];
  for (let at = 0; at + 8 <= length; at += 8) {
    const relative = bytes.readInt32BE(at);
    const position = bytes.readInt32BE(at + 4);
    if (relative === 0 && position === 0) break;
    entries.push({ relative, position });
  }
  return entries;
}

/** Every entry points inside the segment, at a whole batch that ends at the entry's offset. */
function expectEntriesMatch(
  segmentPath: string,
  baseOffset: number,
  entries: { relative: number; position: number }[],
) {
  const segment = LogSegment.open(segmentPath, baseOffset, { readOnly: true });
  try {
    for (const { relative, position } of entries) {
      expect(position).toBeLessThan(segment.size);
      const { header } = segment.readCheckedBatchAt(position);
      expect(header.baseOffset + header.lastOffsetDelta).toBe(baseOffset + relative);
    }
  } finally {
    segment.close();
  }
}

describe("the active segment's index files, as appends go", () => {
  it('get their entries a page at a time while appending, each after the batch it points at', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const { offsets } = p.log.activeSegment.indexPaths;
    const path = p.log.activeSegment.path;
    let seen = 0;
    for (let i = 0; i < PENDING_ENTRIES_BEFORE_WRITE * 2 + 10; i++) {
      appendRecords(p, big(4200), NOW + i);
      const entries = offsetEntries(offsets);
      // Never an entry past what is written, and the file never falls behind by a page or more.
      expectEntriesMatch(path, 0, entries.slice(seen));
      seen = entries.length;
      expect(p.log.activeSegment.sparseIndex().entries - entries.length).toBeLessThan(
        PENDING_ENTRIES_BEFORE_WRITE,
      );
    }
    expect(seen).toBeGreaterThanOrEqual(PENDING_ENTRIES_BEFORE_WRITE * 2);
    // Still preallocated while active; the file holds exactly the in-memory entries it was given so far.
    expect(statSync(offsets).size).toBe(10 * 1024 * 1024);
    const memory = p.log.activeSegment.sparseIndex().encodeOffsetIndex();
    expect(
      readFileSync(offsets)
        .subarray(0, seen * 8)
        .equals(memory.subarray(0, seen * 8)),
    ).toBe(true);
    p.close();
    expect(readFileSync(offsets).equals(memory)).toBe(true);
  });

  it('after a crash left entries past the data, open rebuilds them from what recovery kept and rewrites the files', () => {
    const dataDir = tempDir();
    let p = Partition.open(dataDir, 'orders', 0);
    const infos = Array.from({ length: 40 }, (_, i) => appendRecords(p, big(4200, i), NOW + i));
    p.close();
    const dir = join(dataDir, 'orders-0');
    const log = join(dir, segmentFileName(0));
    const index = join(dir, '00000000000000000000.index');
    const timeIndex = join(dir, '00000000000000000000.timeindex');
    const staleEntries = offsetEntries(index).length;
    // A power cut: the index files reached the disk, the last batches and half of one more did not.
    const cut = infos[30]!;
    truncateSync(log, cut.position + 100);
    expect(offsetEntries(index).at(-1)!.position).toBeGreaterThan(cut.position);

    p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({ kind: 'torn-tail', validBytes: cut.position });
    expect(p.logEndOffset).toBe(30);
    // Nothing in the files points past what recovery kept, before anything was appended or closed.
    const rebuilt = offsetEntries(index);
    // Exactly the entries the first 30 appends made (from the second batch on, each is past 4 KiB).
    expect(rebuilt).toEqual(
      infos.slice(1, 30).map((info) => ({ relative: info.lastOffset, position: info.position })),
    );
    expect(rebuilt.length).toBeLessThan(staleEntries);
    expect(rebuilt.every((e) => e.position < cut.position)).toBe(true);
    expectEntriesMatch(log, 0, rebuilt);
    expect(statSync(index).size).toBe(10 * 1024 * 1024);
    const times = readFileSync(timeIndex);
    for (let at = 0; at + 12 <= times.length && times.readInt32BE(at + 8) !== 0; at += 12) {
      expect(times.readInt32BE(at + 8)).toBeLessThan(30);
    }
    // Appends go on at the offsets recovery left, and the index follows them.
    const next = appendRecords(p, big(4200), NOW + 99);
    expect(next.firstOffset).toBe(30);
    for (let offset = 0; offset <= 30; offset++) {
      expect(p.fetch(offset, 1).records.readBigInt64BE(0)).toBe(BigInt(offset));
    }
    p.close();
    expectEntriesMatch(log, 0, offsetEntries(index));
  });

  it('a segment created where stale index files lie (an earlier life of the name) starts them empty', () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    let p = Partition.open(dataDir, 'orders', 0);
    for (let i = 0; i < 10; i++) appendRecords(p, big(4200), NOW + i);
    p.close();
    const index = join(dir, '00000000000000000000.index');
    const stale = readFileSync(index);
    expect(stale.length).toBeGreaterThan(0);
    // The segment is gone, its index is not: a new segment 0 must not inherit its entries.
    writeFileSync(join(dir, segmentFileName(0)), Buffer.alloc(0));
    p = Partition.open(dataDir, 'orders', 0);
    expect(offsetEntries(index)).toEqual([]);
    appendRecords(p, big(100), NOW);
    p.close();
    expect(readFileSync(index).length).toBe(0);
  });
});

describe('Log.read through the offset index', () => {
  /** Two segments; the first of 20 batches of ~4.3 KiB, each with an index entry after the first. */
  function twoSegments() {
    const dataDir = tempDir();
    const config = { segmentBytes: 20 * 4300 };
    const p = Partition.open(dataDir, 'orders', 0, config);
    const infos = Array.from({ length: 24 }, (_, i) => appendRecords(p, big(4200, i), NOW + i));
    p.close();
    expect(infos[20]!.segmentBaseOffset).toBe(20);
    return { dataDir, config, infos, file: join(dataDir, 'orders-0', segmentFileName(0)) };
  }

  it('starts at the index entry: damage before it does not make the offsets after it unreadable', () => {
    const { dataDir, config, infos, file } = twoSegments();
    const bytes = readFileSync(file);
    bytes[infos[3]!.position + 16] = 7; // the magic byte of batch 3: its header cannot be read
    writeFileSync(file, bytes);
    const p = Partition.open(dataDir, 'orders', 0, config);
    expect(p.log.readCheckedBatches(0, 1 << 20).map((b) => b.baseOffset)).toEqual([0, 1, 2]);
    expect(thrown(DecodeError, () => p.log.readChecked(3))).toMatchObject({ field: 'magic', file });
    // Batch 10 has an index entry (written at the roll, before the damage): it and what follows are served.
    expect(p.log.readCheckedBatches(10, 1 << 20).map((b) => b.baseOffset)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
    ]);
    p.close();
  });

  it('checks the batch at an index entry against the offset the entry names (baseOffset is outside the CRC)', () => {
    const { dataDir, config, infos, file } = twoSegments();
    const bytes = readFileSync(file);
    const at = infos[10]!.position;
    bytes.writeBigInt64BE(11n, at); // batch 10 now claims to be offset 11
    writeFileSync(file, bytes);
    const p = Partition.open(dataDir, 'orders', 0, config);
    const error = thrown(DecodeError, () => p.log.readCheckedBatches(10));
    expect(error).toMatchObject({ field: 'baseOffset', offset: at, file });
    expect(error.reason).toMatch(/offset index says the batch at byte \d+ ends at 10/);
    // Read from the start, the neighbour check catches it too: batches 10 (now 11..11) and 11 disagree, neither is served.
    expect(p.log.readCheckedBatches(0, 1 << 20).map((b) => b.baseOffset)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    p.close();
  });
});
