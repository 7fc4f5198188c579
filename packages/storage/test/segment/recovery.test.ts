import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProducerState } from '@klog/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  appendRecords,
  buildPlainBatch,
  DecodeError,
  describeRecovery,
  Partition,
  type RecoveryReport,
  rebuildProducerState,
} from '../../src/internals.js';
import { fingerprint, LONG_TEST, logFiles, NOW, records, tempDir } from '../helpers.js';

const SEGMENT = '00000000000000000000.log';
const PID = 1000;

function window(state: ProducerState, pid: number): string[] {
  return (state.get(pid as never)?.batches ?? []).map(
    (b) => `${b.firstSeq()}..${b.lastSeq}@${b.firstOffset()}..${b.lastOffset}`,
  );
}

interface Written {
  /** The active segment's bytes after every append. */
  readonly bytes: Buffer;
  /** Byte position and offsets of each batch, in order. */
  readonly batches: { position: number; end: number; firstOffset: number; lastOffset: number }[];
  /** The producer window after each batch (index i: after batch i). */
  readonly windows: string[][];
  /** The next sequence for PID after each batch. */
  readonly nextSeq: number[];
}

/**
 * A one-segment partition with idempotent batches of pid 1000 (one plain batch among
 * them), the last one a 4-record batch with headers: the one the tests cut.
 */
function writeLog(): Written {
  const dir = tempDir();
  const p = Partition.open(dir, 'orders', 0);
  const state = p.producerState;
  const batches: Written['batches'] = [];
  const windows: string[][] = [];
  const nextSeq: number[] = [];
  let seq = 0;
  for (const n of [2, 1, 0, 3, 4]) {
    let info: { firstOffset: number; lastOffset: number };
    if (n === 0) {
      info = appendRecords(p, records(2, 'plain'), NOW);
    } else {
      const input = records(n, `s${seq}`).map((r) => ({
        ...r,
        headers: [{ key: 'trace', value: Buffer.from('x') }],
      }));
      const result = appendIdempotent(p, {
        producerId: PID,
        producerEpoch: 0,
        firstSequence: seq,
        records: input,
        nowMs: NOW + seq,
      });
      if (result.kind !== 'Append') throw new Error(`setup: ${result.kind}`);
      info = result;
      seq += n;
    }
    const position = batches.at(-1)?.end ?? 0;
    batches.push({ position, end: p.log.activeSegment.size, ...info });
    windows.push(window(state, PID));
    nextSeq.push(seq);
  }
  p.close();
  return { bytes: readFileSync(join(dir, 'orders-0', SEGMENT)), batches, windows, nextSeq };
}

/** A fresh partition directory holding `bytes` as its only segment. */
function partitionWith(bytes: Uint8Array): { dataDir: string; segment: string } {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'orders-0'));
  const segment = join(dataDir, 'orders-0', SEGMENT);
  writeFileSync(segment, bytes);
  return { dataDir, segment };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, nothing was thrown');
}

const written = writeLog();
const last = written.batches.at(-1)!;
const beforeLast = written.batches.at(-2)!;

describe('recovery on open: a torn last batch', () => {
  it(
    'cut at every byte: open keeps exactly the whole batches, LEO and window match, appends go on',
    LONG_TEST,
    () => {
      expect(last.end - last.position).toBeGreaterThan(100);
      for (let cut = last.position; cut < last.end; cut++) {
        const { dataDir, segment } = partitionWith(written.bytes.subarray(0, cut));
        const p = Partition.open(dataDir, 'orders', 0);
        const at = `cut at byte ${cut}`;
        expect(p.logEndOffset, at).toBe(beforeLast.lastOffset + 1);
        expect(statSync(segment).size, at).toBe(last.position);
        if (cut === last.position) {
          expect(p.recovery, at).toBeUndefined();
        } else {
          const report = p.recovery!;
          expect(report, at).toMatchObject({
            segmentPath: segment,
            kind: 'torn-tail',
            batches: written.batches.length - 1,
            validBytes: last.position,
            truncatedBytes: cut - last.position,
            batchesAfter: 0,
            savedTo: `${segment}.dropped-${last.position}`,
          });
          expect(report.error, at).toBeInstanceOf(DecodeError);
          expect(report.error!.file, at).toBe(segment);
          expect(report.error!.reason, at).toMatch(/truncated/);
          // Nothing lost: the cut bytes are in the saved file, byte for byte.
          expect(readFileSync(report.savedTo!).equals(written.bytes.subarray(last.position, cut)), at).toBe(
            true,
          );
        }
        // The producer-state rebuild on open ran on what survived: the window before the last batch.
        const state = p.producerState;
        expect(window(state, PID), at).toEqual(written.windows.at(-2));
        // The producer resends the batch whose ack it never got: appended again, at the same offsets.
        const seq = written.nextSeq.at(-2)!;
        const resend = records(4, `s${seq}`).map((r) => ({
          ...r,
          headers: [{ key: 'trace', value: Buffer.from('x') }],
        }));
        expect(
          appendIdempotent(p, {
            producerId: PID,
            producerEpoch: 0,
            firstSequence: seq,
            records: resend,
            nowMs: NOW + seq,
          }),
          at,
        ).toEqual({
          kind: 'Append',
          firstOffset: last.firstOffset,
          lastOffset: last.lastOffset,
        });
        expect(window(state, PID), at).toEqual(written.windows.at(-1));
        expect(
          p.log.readCheckedBatches(0).map((b) => b.baseOffset),
          at,
        ).toEqual(written.batches.map((b) => b.firstOffset));
        p.close();
        // The same bytes as a log that never crashed.
        expect(readFileSync(segment).equals(written.bytes), at).toBe(true);
      }
    },
  );

  it('a cut anywhere in the file keeps the whole batches before it and saves the rest', LONG_TEST, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: written.bytes.length }), (cut) => {
        const { dataDir, segment } = partitionWith(written.bytes.subarray(0, cut));
        const p = Partition.open(dataDir, 'orders', 0);
        const whole = written.batches.filter((b) => b.end <= cut);
        const keep = whole.at(-1)?.end ?? 0;
        expect(p.logEndOffset).toBe((whole.at(-1)?.lastOffset ?? -1) + 1);
        expect(statSync(segment).size).toBe(keep);
        expect(p.recovery?.truncatedBytes ?? 0).toBe(cut - keep);
        if (cut > keep) expect(readFileSync(p.recovery!.savedTo!).length).toBe(cut - keep);
        expect(window(rebuildProducerState(p.log), PID)).toEqual(
          whole.length === 0 ? [] : written.windows[whole.length - 1],
        );
        p.close();
      }),
      { numRuns: 30 },
    );
  });

  it('zeros after the last batch (space the filesystem allocated but never wrote) are a torn tail', () => {
    const { dataDir, segment } = partitionWith(Buffer.concat([written.bytes, Buffer.alloc(4096)]));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({
      kind: 'torn-tail',
      truncatedBytes: 4096,
      validBytes: written.bytes.length,
    });
    expect(p.logEndOffset).toBe(last.lastOffset + 1);
    p.close();
    expect(readFileSync(segment).equals(written.bytes)).toBe(true);
  });

  it('a whole last batch whose bytes did not all arrive (CRC fails, length reaches the end) is a torn tail', () => {
    const bytes = Buffer.from(written.bytes);
    bytes.fill(0, last.end - 20, last.end);
    const { dataDir } = partitionWith(bytes);
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({ kind: 'torn-tail', validBytes: last.position, batchesAfter: 0 });
    expect(p.recovery!.error).toMatchObject({ field: 'crc', offset: last.position + 17 });
    p.close();
  });

  it('a second recovery at the same byte keeps the first saved file', () => {
    const torn = written.bytes.subarray(0, last.position + 30);
    const { dataDir, segment } = partitionWith(torn);
    Partition.open(dataDir, 'orders', 0).close();
    appendFileSync(segment, Buffer.from('another torn write'));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery!.savedTo).toBe(`${segment}.dropped-${last.position}.1`);
    p.close();
    expect(readFileSync(`${segment}.dropped-${last.position}`).equals(torn.subarray(last.position))).toBe(
      true,
    );
    expect(readFileSync(`${segment}.dropped-${last.position}.1`).toString()).toBe('another torn write');
    expect(logFiles(join(dataDir, 'orders-0'))).toEqual([
      SEGMENT,
      `${SEGMENT}.dropped-${last.position}`,
      `${SEGMENT}.dropped-${last.position}.1`,
    ]);
  });

  it('a whole log is left alone: no report, no file changed', () => {
    const { dataDir } = partitionWith(written.bytes);
    const before = fingerprint(join(dataDir, 'orders-0'));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toBeUndefined();
    p.close();
    expect(fingerprint(join(dataDir, 'orders-0'))).toEqual(before);
  });
});

describe('recovery on open: corruption before the tail of the active segment', () => {
  const bad = written.batches[2]!; // the plain batch; two batches after it

  function openCorrupt(bytes: Buffer): { p: Partition; report: RecoveryReport; segment: string } {
    const { dataDir, segment } = partitionWith(bytes);
    const p = Partition.open(dataDir, 'orders', 0);
    return { p, report: p.recovery!, segment };
  }

  it('a bad CRC: cut at that batch, the batches before stay readable, the rest is saved and counted', () => {
    const bytes = Buffer.from(written.bytes);
    bytes[bad.end - 3]! ^= 0x40; // a value byte: only the CRC can tell
    const { p, report, segment } = openCorrupt(bytes);
    expect(report).toMatchObject({
      kind: 'corruption',
      validBytes: bad.position,
      truncatedBytes: bytes.length - bad.position,
      batches: 2,
      batchesAfter: 2,
      savedTo: `${segment}.dropped-${bad.position}`,
    });
    expect(report.error).toMatchObject({ field: 'crc', offset: bad.position + 17, file: segment });
    expect(p.logEndOffset).toBe(bad.firstOffset);
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0, 2]);
    expect(readFileSync(report.savedTo!).equals(bytes.subarray(bad.position))).toBe(true);
    const line = describeRecovery(report);
    expect(line).toContain(`${SEGMENT}: found corrupt data at byte ${bad.position}`);
    expect(line).toContain('crc at byte');
    expect(line).toContain('2 whole batches with a good CRC in the cut bytes');
    expect(line).toContain(`saved the cut bytes to ${report.savedTo}`);
    p.close();
  });

  it('a header that is garbage: the bytes after it are searched, and the valid batches there counted', () => {
    const bytes = Buffer.from(written.bytes);
    bytes.writeInt32BE(0x7fff0000, bad.position + 8); // batchLength: no next batch to be found from it
    const { p, report, segment } = openCorrupt(bytes);
    expect(report).toMatchObject({
      kind: 'corruption',
      validBytes: bad.position,
      batches: 2,
      batchesAfter: 2,
    });
    expect(report.error).toMatchObject({ field: 'batchLength', offset: bad.position + 8, file: segment });
    expect(p.logEndOffset).toBe(bad.firstOffset);
    p.close();
  });

  it('offsets that go backwards: neither neighbour is trusted', () => {
    const bytes = Buffer.from(written.bytes);
    // baseOffset is outside the CRC: move the fourth batch back onto the third's offsets.
    const fourth = written.batches[3]!;
    bytes.writeBigInt64BE(BigInt(bad.firstOffset), fourth.position);
    const { p, report } = openCorrupt(bytes);
    expect(report.kind).toBe('corruption');
    expect(report.error).toMatchObject({ field: 'baseOffset', offset: fourth.position });
    expect(report.error!.reason).toMatch(/is below \d+, where the previous batch ended/);
    expect(report.validBytes).toBe(bad.position);
    expect(p.logEndOffset).toBe(bad.firstOffset);
    p.close();
  });

  it('a raised baseOffset followed by a batch whose CRC fails: neither is kept', () => {
    const bytes = Buffer.from(written.bytes);
    const first = written.batches[0]!;
    const second = written.batches[1]!;
    bytes.writeBigInt64BE(BigInt(first.firstOffset + 256), first.position); // outside the CRC
    bytes[second.end - 2]! ^= 0x10; // inside the CRC of the next batch
    const { p, report } = openCorrupt(bytes);
    expect(report).toMatchObject({ kind: 'corruption', validBytes: 0, batches: 0 });
    expect(report.error).toMatchObject({ field: 'crc', offset: second.position + 17 });
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('a first batch below the segment base offset', () => {
    // An empty first segment, then the same bytes in a segment whose name says it starts at offset 5.
    const { dataDir } = partitionWith(Buffer.alloc(0));
    writeFileSync(join(dataDir, 'orders-0', '00000000000000000005.log'), written.bytes);
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toMatchObject({ kind: 'corruption', validBytes: 0, batches: 0 });
    expect(p.recovery!.error!.reason).toMatch(/below the segment's base offset 5/);
    expect(p.logEndOffset).toBe(5);
    p.close();
  });
});

describe('corruption in a segment that is not the active one', () => {
  /** Three segments of two batches each; returns the partition's directory and each batch's place. */
  function threeSegments() {
    const dataDir = tempDir();
    const one = buildPlainBatch(records(2, 'b0'), 0, NOW).length;
    const p = Partition.open(dataDir, 'orders', 0, { segmentBytes: 2 * one });
    const infos = Array.from({ length: 6 }, (_, i) => appendRecords(p, records(2, `b${i}`), NOW));
    p.close();
    const dir = join(dataDir, 'orders-0');
    const segmentOf = (i: number) =>
      join(dir, `${String(infos[i]!.segmentBaseOffset).padStart(20, '0')}.log`);
    return { dataDir, dir, infos, segmentOf, config: { segmentBytes: 2 * one } };
  }

  it('open does not touch it; reads serve the batches before the bad one, and a read of it names file and byte', () => {
    const { dataDir, dir, infos, segmentOf, config } = threeSegments();
    expect(new Set(infos.map((i) => i.segmentBaseOffset)).size).toBe(3);
    const bad = infos[3]!; // second batch of the middle segment
    const file = segmentOf(3);
    const bytes = readFileSync(file);
    bytes[bad.position + bad.size - 2]! ^= 0x01;
    writeFileSync(file, bytes);
    const before = fingerprint(dir);
    const p = Partition.open(dataDir, 'orders', 0, config);
    expect(p.recovery).toBeUndefined();
    expect(fingerprint(dir)).toEqual(before);
    expect(p.logEndOffset).toBe(12);
    // A read from the start stops before the bad batch.
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0, 2, 4]);
    // A read that starts at it gets the typed error, naming the file and the byte.
    for (const read of [
      () => p.log.readCheckedBatches(bad.firstOffset),
      () => p.log.readChecked(bad.lastOffset),
    ]) {
      const error = thrown(read);
      expect(error).toBeInstanceOf(DecodeError);
      expect(error).toMatchObject({ field: 'crc', offset: bad.position + 17, file });
      expect((error as Error).message).toContain(`of ${file}`);
    }
    // The segment after it reads as before.
    expect(p.log.readCheckedBatches(8).map((b) => b.baseOffset)).toEqual([8, 10]);
    // And nothing built from the whole log (compaction) gets past it.
    expect(() => [...p.log.batches()]).toThrow(DecodeError);
    p.close();
    expect(fingerprint(dir)).toEqual(before);
  });

  it('a header that is garbage makes every offset past it unreadable, with the error, not skipped', () => {
    const { dataDir, infos, segmentOf, config } = threeSegments();
    const bad = infos[2]!; // first batch of the middle segment
    const file = segmentOf(2);
    const bytes = readFileSync(file);
    bytes[bad.position + 16] = 7; // magic
    writeFileSync(file, bytes);
    const p = Partition.open(dataDir, 'orders', 0, config);
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0, 2]);
    for (const offset of [4, 5, 6, 7]) {
      const error = thrown(() => p.log.readChecked(offset));
      expect(error).toBeInstanceOf(DecodeError);
      expect(error).toMatchObject({ field: 'magic', offset: 16, file });
    }
    expect(p.log.readCheckedBatches(8)).toHaveLength(2);
    p.close();
  });

  it('a baseOffset (outside the CRC) that runs into the next segment is found', () => {
    const { dataDir, infos, segmentOf, config } = threeSegments();
    const lastOfFirst = infos[1]!;
    const file = segmentOf(1);
    const bytes = readFileSync(file);
    bytes.writeBigInt64BE(BigInt(lastOfFirst.firstOffset + 1), lastOfFirst.position);
    writeFileSync(file, bytes);
    const p = Partition.open(dataDir, 'orders', 0, config);
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0]);
    expect(() => p.log.readChecked(2)).toThrow(/not below the next segment's base offset 4/);
    p.close();
  });
});
