import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ActiveIndexFiles,
  PENDING_ENTRIES_BEFORE_WRITE,
  SegmentIndex,
} from '../../src/segment/segment-index.js';
import { tempDir } from '../helpers.js';

/** Batches of `size` bytes at positions 0, size, 2·size, …, each one offset, timestamps as given. */
function indexOf(base: number, size: number, timestamps: number[], interval = 100): SegmentIndex {
  const index = new SegmentIndex(base, interval);
  timestamps.forEach((t, i) => {
    index.onBatch(i * size, size, base + i, t);
  });
  return index;
}

const offsetEntries = (index: SegmentIndex) => {
  const bytes = index.encodeOffsetIndex();
  return Array.from({ length: bytes.length / 8 }, (_, i) => [
    bytes.readInt32BE(i * 8),
    bytes.readInt32BE(i * 8 + 4),
  ]);
};
const timeEntries = (index: SegmentIndex) => {
  const bytes = index.encodeTimeIndex();
  return Array.from({ length: bytes.length / 12 }, (_, i) => [
    Number(bytes.readBigInt64BE(i * 12)),
    bytes.readInt32BE(i * 12 + 8),
  ]);
};

describe('SegmentIndex: the entries Kafka would make', () => {
  it('an offset entry once more than index.interval.bytes were appended since the last (not at exactly that many)', () => {
    // 50-byte batches, interval 100: after 150 bytes, i.e. at batches 3, 6, 9.
    const index = indexOf(1000, 50, Array(10).fill(5));
    expect(offsetEntries(index)).toEqual([
      [3, 150],
      [6, 300],
      [9, 450],
    ]);
    expect(index.entries).toBe(3);
  });

  it('a time entry with each offset entry, only when the largest timestamp grew, naming the first batch that holds it', () => {
    const index = indexOf(0, 60, [10, 30, 30, 20, 30, 40, 40, 40]);
    // Entries at batches 2, 4, 6 (after 120 bytes each time): max so far 30 (first at 1), 30 (no growth), 40 (first at 5).
    expect(offsetEntries(index).map(([o]) => o)).toEqual([2, 4, 6]);
    expect(timeEntries(index)).toEqual([
      [30, 1],
      [40, 5],
    ]);
    expect(index.maxTimestamp).toBe(40);
    // finish (the segment rolls): the largest timestamp only if it is not there yet.
    index.finish();
    expect(timeEntries(index)).toEqual([
      [30, 1],
      [40, 5],
    ]);
    const grown = indexOf(0, 60, [10, 30, 30, 50]);
    grown.finish();
    expect(timeEntries(grown)).toEqual([
      [30, 1],
      [50, 3],
    ]);
  });

  it('finish records a largest timestamp of 0, and nothing for a segment with no batch', () => {
    const zero = indexOf(7, 10, [0]);
    zero.finish();
    expect(timeEntries(zero)).toEqual([[0, 0]]);
    const empty = new SegmentIndex(7);
    expect(empty.maxTimestamp).toBe(-1);
    empty.finish();
    expect(empty.timeEntries).toBe(0);
  });

  it('lookup, entryAtOrBelow, lookupTime and lastEntryPosition answer from the largest entry at or below', () => {
    const index = indexOf(1000, 50, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); // offset entries 1003@150, 1006@300, 1009@450
    expect(index.lookup(1000)).toBe(0);
    expect(index.lookup(1002)).toBe(0);
    expect(index.lookup(1003)).toBe(150);
    expect(index.lookup(1005)).toBe(150);
    expect(index.lookup(1006)).toBe(300);
    expect(index.lookup(5000)).toBe(450);
    expect(index.entryAtOrBelow(1002)).toBeUndefined();
    expect(index.entryAtOrBelow(1004)).toEqual({ offset: 1003, position: 150 });
    expect(index.entryAtOrBelow(1009)).toEqual({ offset: 1009, position: 450 });
    expect(index.lastEntryPosition()).toBe(450);
    expect(new SegmentIndex(0).lastEntryPosition()).toBe(0);
    // Time entries (4, 1003), (7, 1006), (10, 1009): the offset to scan from for a timestamp.
    expect(timeEntries(index)).toEqual([
      [4, 3],
      [7, 6],
      [10, 9],
    ]);
    expect(index.lookupTime(3)).toBe(1000);
    expect(index.lookupTime(4)).toBe(1003);
    expect(index.lookupTime(6)).toBe(1003);
    expect(index.lookupTime(7)).toBe(1006);
    expect(index.lookupTime(99)).toBe(1009);
    expect(new SegmentIndex(42).lookupTime(5)).toBe(42);
  });

  it('encodes from any entry on: the tail of the whole file', () => {
    const index = indexOf(0, 50, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(index.encodeOffsetIndex(1).equals(index.encodeOffsetIndex().subarray(8))).toBe(true);
    expect(index.encodeTimeIndex(2).equals(index.encodeTimeIndex().subarray(24))).toBe(true);
    expect(index.encodeOffsetIndex(3).length).toBe(0);
  });
});

describe('SegmentIndex.decode: the sanity check an older segment’s files must pass', () => {
  const offsets = (...entries: [number, number][]) => {
    const b = Buffer.alloc(entries.length * 8);
    entries.forEach(([o, p], i) => {
      b.writeInt32BE(o, i * 8);
      b.writeInt32BE(p, i * 8 + 4);
    });
    return b;
  };
  const times = (...entries: [number, number][]) => {
    const b = Buffer.alloc(entries.length * 12);
    entries.forEach(([t, o], i) => {
      b.writeBigInt64BE(BigInt(t), i * 12);
      b.writeInt32BE(o, i * 12 + 8);
    });
    return b;
  };
  // A segment at base 100 of 1000 bytes; the next segment starts at 150 (relative offsets below 50).
  const decode = (o: Buffer, t: Buffer, next: number | undefined = 150) =>
    SegmentIndex.decode(o, t, 100, 1000, next);

  it('takes entries in order inside the segment, and keeps the largest timestamp and its offset', () => {
    const index = decode(offsets([3, 100], [7, 200]), times([5, 3], [9, 7]));
    if (typeof index === 'string') throw new Error(index);
    expect(index.lookup(105)).toBe(100);
    expect(index.maxTimestamp).toBe(9);
    index.finish();
    expect(index.timeEntries).toBe(2);
    expect(index.lookupTime(9)).toBe(107);
    // With no next segment, any relative offset is inside.
    expect(typeof SegmentIndex.decode(offsets([1_000_000, 10]), times(), 100, 1000, undefined)).not.toBe(
      'string',
    );
    expect(typeof decode(offsets([49, 10]), times([1, 49]))).not.toBe('string');
    // A time entry may name the segment's first offset (its first batch held the largest timestamp).
    expect(typeof decode(offsets(), times([8, 0]))).not.toBe('string');
  });

  it.each([
    [
      'a partial offset entry',
      offsets([3, 100]).subarray(0, 7),
      times(),
      /offset index of 7 bytes is not a whole number of 8-byte entries/,
    ],
    [
      'a partial time entry',
      offsets(),
      times([5, 3]).subarray(0, 11),
      /time index of 11 bytes is not a whole number of 12-byte entries/,
    ],
    [
      'a negative relative offset',
      offsets([-1, 100]),
      times(),
      /offset index entry 0: relative offset -1 is out of order or out of the segment/,
    ],
    [
      'a relative offset at the next segment',
      offsets([3, 100], [50, 200]),
      times(),
      /offset index entry 1: relative offset 50 is out/,
    ],
    [
      'an offset that does not grow',
      offsets([3, 100], [3, 200]),
      times(),
      /offset index entry 1: relative offset 3 is out of order/,
    ],
    [
      'a negative position',
      offsets([3, -1]),
      times(),
      /offset index entry 0: position -1 is out of order or past the segment/,
    ],
    [
      'a position at the end of the segment',
      offsets([3, 100], [4, 1000]),
      times(),
      /offset index entry 1: position 1000/,
    ],
    [
      'a position that does not grow',
      offsets([3, 100], [4, 100]),
      times(),
      /offset index entry 1: position 100 is out of order/,
    ],
    [
      'a timestamp that does not grow',
      offsets(),
      times([5, 3], [5, 4]),
      /time index entry 1: timestamp 5 is out of order/,
    ],
    ['a timestamp past 2^53', offsets(), times([2 ** 53 + 2, 3]), /time index entry 0: timestamp/],
    [
      'a negative time offset',
      offsets(),
      times([5, -1]),
      /time index entry 0: relative offset -1 is out of the segment/,
    ],
    [
      'a time offset at the next segment',
      offsets(),
      times([5, 3], [6, 50]),
      /time index entry 1: relative offset 50 is out of the segment/,
    ],
  ])('refuses %s', (_, o, t, reason) => {
    const result = decode(o, t);
    expect(typeof result).toBe('string');
    expect(result).toMatch(reason);
  });
});

describe("ActiveIndexFiles: the active segment's files as appends go", () => {
  const readEntries = (path: string, count: number, size: number) => {
    const fd = openSync(path, 'r');
    const bytes = Buffer.alloc(count * size);
    readSync(fd, bytes, 0, bytes.length, 0);
    closeSync(fd);
    return bytes;
  };

  it('start empties the files, preallocates them and writes what the index holds; then a page of either at a time', () => {
    const dir = tempDir();
    const paths = { offsets: join(dir, '0.index'), times: join(dir, '0.timeindex') };
    // An index with 2 entries of each kind, 60-byte batches, interval 100, timestamps growing.
    const index = new SegmentIndex(0, 100);
    let n = 0;
    const add = (timestamp: number) => {
      index.onBatch(n * 60, 60, n, timestamp);
      n++;
    };
    for (let i = 0; i < 6; i++) add(i);
    const files = ActiveIndexFiles.start(paths, index);
    expect(statSync(paths.offsets).size).toBe(10 * 1024 * 1024);
    expect(statSync(paths.times).size).toBe(10 * 1024 * 1024);
    expect(
      readEntries(paths.offsets, 3, 8).equals(Buffer.concat([index.encodeOffsetIndex(), Buffer.alloc(8)])),
    ).toBe(true);
    expect(readEntries(paths.times, 2, 12).equals(index.encodeTimeIndex())).toBe(true);
    // Entries come every second batch; a page of offset entries is PENDING_ENTRIES_BEFORE_WRITE of them.
    while (index.entries < 2 + PENDING_ENTRIES_BEFORE_WRITE - 1) {
      add(n);
      files.afterAppend();
    }
    const page = PENDING_ENTRIES_BEFORE_WRITE * 8;
    expect(
      readEntries(paths.offsets, PENDING_ENTRIES_BEFORE_WRITE + 2, 8)
        .subarray(16)
        .equals(Buffer.alloc(page)),
    ).toBe(true);
    add(n);
    add(n);
    files.afterAppend();
    expect(index.entries).toBe(2 + PENDING_ENTRIES_BEFORE_WRITE);
    expect(readEntries(paths.offsets, index.entries, 8).equals(index.encodeOffsetIndex())).toBe(true);
    expect(readEntries(paths.times, index.timeEntries, 12).equals(index.encodeTimeIndex())).toBe(true);
    files.close();
    files.close();
    // Started again (the segment reopened): emptied first, so nothing stale is left past what the index holds now.
    const fresh = new SegmentIndex(0, 100);
    ActiveIndexFiles.start(paths, fresh).close();
    expect(readFileSync(paths.offsets).subarray(0, 64).equals(Buffer.alloc(64))).toBe(true);
  });
});
