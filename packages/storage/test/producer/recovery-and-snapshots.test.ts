import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchMetadata, ProducerState } from '@klog/core';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  appendRecords,
  DecodeError,
  decodeProducerSnapshot,
  describeRecovery,
  encodeProducerSnapshot,
  Partition,
  StorageError,
  segmentFileName,
  snapshotFileName,
} from '../../src/internals.js';
import { loadLatestSnapshot, writeProducerSnapshot } from '../../src/producer/producer-snapshot.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

/** A partition of two whole batches, then `tail` appended to its segment; opened again (recovery runs). */
function withTail(tail: Buffer) {
  const dataDir = tempDir();
  const p = Partition.open(dataDir, 'orders', 0);
  appendRecords(p, records(2, 'a'), NOW);
  appendRecords(p, records(2, 'b'), NOW);
  const whole = p.log.activeSegment.size;
  p.close();
  const file = join(dataDir, 'orders-0', segmentFileName(0));
  writeFileSync(file, Buffer.concat([readFileSync(file), tail]));
  const q = Partition.open(dataDir, 'orders', 0);
  return { dataDir, q, whole, file, report: q.recovery! };
}

/** A whole batch with a good CRC that could follow `withTail`'s two: its first, moved to offset 4 (outside the CRC). */
function nextBatch(): Buffer {
  const { q, file, whole } = withTail(Buffer.alloc(0));
  q.close();
  const batch = Buffer.from(readFileSync(file).subarray(0, whole / 2));
  batch.writeBigInt64BE(4n, 0);
  return batch;
}

describe('recovery tells a torn tail from corruption', () => {
  it('zeros after the last batch (space never written) are a torn tail; other bytes that are no batch are corruption', () => {
    const zeros = withTail(Buffer.alloc(100));
    expect(zeros.report).toMatchObject({
      kind: 'torn-tail',
      validBytes: zeros.whole,
      truncatedBytes: 100,
      batchesAfter: 0,
    });
    zeros.q.close();
    const junk = withTail(Buffer.alloc(100, 1));
    expect(junk.report).toMatchObject({
      kind: 'corruption',
      validBytes: junk.whole,
      truncatedBytes: 100,
      batchesAfter: 0,
    });
    junk.q.close();
    // A zero tail longer than one read of the check (1 MiB) is still all zeros; one non-zero byte at its end is not.
    const long = Buffer.alloc(1024 * 1024 + 10);
    expect(withTail(long).report.kind).toBe('torn-tail');
    long[long.length - 1] = 7;
    expect(withTail(long).report.kind).toBe('corruption');
  });

  it('describeRecovery says what was cut, where, why, and where it went, in one line', () => {
    const torn = withTail(Buffer.alloc(5, 0));
    expect(describeRecovery(torn.report)).toBe(
      `00000000000000000000.log: found a torn last batch at byte ${torn.whole} (batchLength at byte ${torn.whole + 8}: ` +
        `truncated: 5 bytes left, the length prefix needs 12); cut 5 bytes, kept 2 batches, saved the cut bytes to ${torn.report.savedTo}`,
    );
    torn.q.close();
    const extra = readFileSync(torn.file);
    const one = extra.subarray(0, torn.whole / 2);
    const garbage = Buffer.concat([Buffer.alloc(70, 1), one]);
    const corrupt = withTail(garbage);
    expect(describeRecovery(corrupt.report)).toMatch(
      new RegExp(
        `^00000000000000000000\\.log: found corrupt data at byte ${corrupt.whole} \\(.*\\), 1 whole batch with a good CRC in the cut bytes; cut ${garbage.length} bytes, kept 2 batches, saved the cut bytes to .*dropped-${corrupt.whole}$`,
      ),
    );
    corrupt.q.close();
    const two = withTail(Buffer.concat([Buffer.alloc(70, 1), one, one]));
    expect(describeRecovery(two.report)).toContain(', 2 whole batches with a good CRC in the cut bytes;');
    two.q.close();
    expect(
      describeRecovery({
        ...two.report,
        kind: 'clean',
        batches: 4,
        truncatedBytes: 0,
        batchesAfter: 0,
        error: undefined,
      }),
    ).toBe('00000000000000000000.log: 4 batches, nothing to recover');
    expect(describeRecovery({ ...torn.report, error: undefined })).toBe(
      `00000000000000000000.log: found a torn last batch at byte ${torn.whole}; ` +
        `cut 5 bytes, kept 2 batches, saved the cut bytes to ${torn.report.savedTo}`,
    );
  });

  it('a batch with a bad CRC is a torn tail only when it ends the file; bytes after it make it corruption', () => {
    const batch = nextBatch();
    const badCrc = Buffer.from(batch);
    badCrc[badCrc.length - 1]! ^= 0xff;
    const atEnd = withTail(badCrc);
    expect(atEnd.report).toMatchObject({ kind: 'torn-tail', validBytes: atEnd.whole, batchesAfter: 0 });
    atEnd.q.close();
    const followed = withTail(Buffer.concat([badCrc, Buffer.alloc(10, 1)]));
    expect(followed.report).toMatchObject({
      kind: 'corruption',
      validBytes: followed.whole,
      batchesAfter: 0,
    });
    followed.q.close();
  });

  it('a batch running past the end of the file is corruption, not a torn write, when whole batches follow it', () => {
    const batch = nextBatch();
    const tooLong = Buffer.from(batch);
    tooLong.writeInt32BE(tooLong.readInt32BE(8) + 1000, 8); // batchLength, outside the CRC
    const { q, whole, report } = withTail(Buffer.concat([tooLong, batch]));
    expect(report).toMatchObject({ kind: 'corruption', validBytes: whole, batchesAfter: 1 });
    expect(report.error?.reason).toMatch(/^truncated: /);
    q.close();
  });

  it('the cut bytes go beside the segment once: the same bytes again reuse the copy, other bytes get .1', () => {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0);
    appendRecords(p, records(2), NOW);
    const whole = p.log.activeSegment.size;
    p.close();
    const dir = join(dataDir, 'orders-0');
    const file = join(dir, segmentFileName(0));
    const good = readFileSync(file);
    const cutWith = (tail: Buffer) => {
      writeFileSync(file, Buffer.concat([good, tail]));
      const q = Partition.open(dataDir, 'orders', 0);
      const saved = q.recovery!.savedTo!;
      q.close();
      return saved;
    };
    const first = cutWith(Buffer.alloc(40, 3));
    expect(first).toBe(`${file}.dropped-${whole}`);
    expect(cutWith(Buffer.alloc(40, 3))).toBe(first);
    const other = cutWith(Buffer.alloc(40, 4));
    expect(other).toBe(`${file}.dropped-${whole}.1`);
    expect(cutWith(Buffer.alloc(41, 3))).toBe(`${file}.dropped-${whole}.2`);
    expect(readFileSync(first).equals(Buffer.alloc(40, 3))).toBe(true);
    expect(readFileSync(other).equals(Buffer.alloc(40, 4))).toBe(true);
    expect(
      readdirSync(dir)
        .filter((n) => n.includes('dropped'))
        .sort(),
    ).toEqual([
      `${segmentFileName(0)}.dropped-${whole}`,
      `${segmentFileName(0)}.dropped-${whole}.1`,
      `${segmentFileName(0)}.dropped-${whole}.2`,
    ]);
  });
});

describe("recovery's copy of the cut bytes, when something is in its way", () => {
  /** A partition of one batch whose segment then gets `tail`; returns where recovery will save the tail. */
  function cutAhead(tail: Buffer) {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0);
    appendRecords(p, records(2), NOW);
    const whole = p.log.activeSegment.size;
    p.close();
    const file = join(dataDir, 'orders-0', segmentFileName(0));
    writeFileSync(file, Buffer.concat([readFileSync(file), tail]));
    return { dataDir, saved: `${file}.dropped-${whole}` };
  }

  it('a leftover temporary that cannot be removed stops the open, by step and path', () => {
    const { dataDir, saved } = cutAhead(Buffer.alloc(30, 1));
    mkdirSync(`${saved}.tmp`);
    expect(thrown(StorageError, () => Partition.open(dataDir, 'orders', 0))).toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
      message: expect.stringMatching(new RegExp(`^remove ${saved}\\.tmp: EISDIR`)),
    });
  });

  it('a directory where the copy goes is refused by name, not overwritten or taken for an earlier copy', () => {
    const { dataDir, saved } = cutAhead(Buffer.alloc(30, 1));
    mkdirSync(saved);
    expect(thrown(StorageError, () => Partition.open(dataDir, 'orders', 0))).toMatchObject({
      code: 'NOT_A_SEGMENT',
      message: expect.stringMatching(new RegExp(`^copy of cut bytes ${saved} is a directory`)),
    });
  });

  it('an earlier copy alike for the first MiB (one read) but not after is another copy: the new one gets .1', () => {
    const tail = Buffer.alloc(1024 * 1024 + 100, 1);
    const { dataDir, saved } = cutAhead(tail);
    const earlier = Buffer.from(tail);
    earlier[earlier.length - 1] = 2;
    writeFileSync(saved, earlier);
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const q = Partition.open(dataDir, 'orders', 0);
    expect(q.recovery!.savedTo).toBe(`${saved}.1`);
    q.close();
    // The comparison with the earlier copy left no file open.
    expect(openFiles()).toBe(before);
    expect(readFileSync(saved).equals(earlier)).toBe(true);
    expect(readFileSync(`${saved}.1`).equals(tail)).toBe(true);
  });
});

describe('producer snapshot files', () => {
  const stateOf = (...producers: [id: number, epoch: number, lastSeq: number, lastOffset: number][]) => {
    const state = new ProducerState();
    for (const [id, epoch, lastSeq, lastOffset] of producers) {
      state
        .entry(id as never)
        .addBatch(epoch as never, new BatchMetadata(lastSeq as never, lastOffset, 1, NOW + id));
    }
    return state;
  };
  const shown = (state: ProducerState) =>
    state.producerIds().map((id) => {
      const e = state.get(id)!;
      return [
        id,
        e.producerEpoch,
        e.batches.map((b) => [b.lastSeq, b.lastOffset, b.offsetDelta, b.timestamp]),
      ];
    });

  it('round-trip several producers, and a producer whose window is empty (its epoch only)', () => {
    const state = stateOf([9, 1, 5, 20], [3, 0, 7, 12]);
    state.entry(40 as never).maybeUpdateProducerEpoch(2 as never);
    const bytes = encodeProducerSnapshot(state);
    expect(bytes.length).toBe(10 + 3 * 46);
    const back = decodeProducerSnapshot(bytes);
    expect(shown(back)).toEqual([
      [3, 0, [[7, 12, 1, NOW + 3]]],
      [9, 1, [[5, 20, 1, NOW + 9]]],
      [40, 2, []],
    ]);
  });

  it('refuse, by field, what is not a snapshot', () => {
    const good = encodeProducerSnapshot(stateOf([1, 0, 0, 0]));
    const resealed = (edit: (b: Buffer) => void) => {
      const b = Buffer.from(good);
      edit(b);
      b.writeUInt32BE(crc32c(b.subarray(6)), 2);
      return b;
    };
    const cases: [Buffer, string, number, RegExp][] = [
      [good.subarray(0, 9), 'version', 0, /^truncated: 9 bytes$/],
      [resealed((b) => b.writeInt16BE(2, 0)), 'version', 0, /^snapshot version 2 is not 1$/],
      [
        Buffer.concat([good.subarray(0, 20), Buffer.from([1]), good.subarray(21)]).fill(9, 20, 21),
        'crc',
        2,
        /^stored \d+ but the bytes give \d+$/,
      ],
      [resealed((b) => b.writeInt32BE(2, 6)), 'producerEntries', 6, /^2 entries do not fill 56 bytes$/],
      [resealed((b) => b.writeInt32BE(-1, 6)), 'producerEntries', 6, /^-1 entries do not fill 56 bytes$/],
    ];
    for (const [bytes, field, offset, reason] of cases) {
      const error = thrown(DecodeError, () => decodeProducerSnapshot(bytes, '/x.snapshot'));
      expect(error).toMatchObject({ field, offset, file: '/x.snapshot' });
      expect(error.reason).toMatch(reason);
    }
    // An entry whose numbers no producer has: named by entry.
    const badEpoch = resealed((b) => b.writeInt16BE(-5, 10 + 8));
    expect(thrown(DecodeError, () => decodeProducerSnapshot(badEpoch)).field).toBe('producerEntries[0]');
  });

  it('on open: the newest at or below the log end offset; newer ones and other files are passed over, each said why', () => {
    const dir = tempDir();
    writeProducerSnapshot(dir, 5, stateOf([1, 0, 4, 4]), 10);
    writeProducerSnapshot(dir, 40, stateOf([1, 0, 39, 39]), 10);
    writeProducerSnapshot(dir, 100, stateOf([1, 0, 99, 99]), 10);
    writeProducerSnapshot(dir, 200, stateOf([1, 0, 199, 199]), 10);
    writeFileSync(join(dir, `${snapshotFileName(150)}.tmp`), 'half');
    writeFileSync(join(dir, `x${snapshotFileName(160)}`), 'other');
    writeFileSync(join(dir, snapshotFileName(120)), 'not one');
    const skipped: string[] = [];
    const loaded = loadLatestSnapshot(dir, 130, (path, reason) =>
      skipped.push(`${path.split('/').at(-1)} ${reason}`),
    );
    expect(loaded?.offset).toBe(100);
    expect(shown(loaded!.state)).toEqual([[1, 0, [[99, 99, 1, NOW + 1]]]]);
    expect(skipped).toEqual([
      `${snapshotFileName(200)} snapshot at offset 200 is past the log end offset 130`,
      expect.stringMatching(
        new RegExp(`^${snapshotFileName(120)} version at byte 0 of .*: truncated: 7 bytes$`),
      ),
    ]);
    // Only the newest `keep` are kept when one is written.
    writeProducerSnapshot(dir, 300, stateOf([1, 0, 299, 299]), 2);
    expect(readdirSync(dir).filter((n) => /^\d{20}\.snapshot$/.test(n))).toEqual([
      snapshotFileName(200),
      snapshotFileName(300),
    ]);
  });
});
