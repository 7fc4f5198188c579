import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  crc32c,
  DecodeError,
  Log,
  Partition,
  RECORD_BATCH_OVERHEAD,
  StorageError,
} from '../../src/internals.js';
import { logFiles, NOW, records, tempDir, thrown, writableLog } from '../helpers.js';

describe('Partition and Log on disk', () => {
  it('creates <topic>-<partition> with a first segment named by its 20-digit base offset', () => {
    const dir = tempDir();
    const p = Partition.open(dir, 'orders', 0);
    expect(p.dir).toBe(join(dir, 'orders-0'));
    expect(readdirSync(p.dir).sort()).toEqual([
      '.lock',
      '00000000000000000000.index',
      '00000000000000000000.log',
      '00000000000000000000.timeindex',
    ]);
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('appends assign offsets from the log end offset', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    expect(appendRecords(p, records(3), NOW)).toMatchObject({ firstOffset: 0, lastOffset: 2, position: 0 });
    const second = appendRecords(p, records(2), NOW);
    expect(second).toMatchObject({ firstOffset: 3, lastOffset: 4 });
    expect(p.logEndOffset).toBe(5);
    expect(statSync(join(p.dir, '00000000000000000000.log')).size).toBe(second.position + second.size);
    p.close();
  });

  it('rolls when the next batch would pass segment.bytes, and the count follows the real batch sizes', () => {
    const dir = tempDir();
    const one = buildPlainBatch(records(1), 0, NOW).length;
    // Room for exactly two batches per segment.
    const p = Partition.open(dir, 't', 1, { segmentBytes: 2 * one + 1 });
    const infos = Array.from({ length: 5 }, () => appendRecords(p, records(1), NOW));
    expect(infos.map((i) => i.rolled)).toEqual([false, false, true, false, true]);
    expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 2, 4]);
    expect(logFiles(p.dir)).toEqual([
      '00000000000000000000.log',
      '00000000000000000002.log',
      '00000000000000000004.log',
    ]);
    p.close();
  });

  it('a batch larger than segment.bytes still goes into an empty segment', () => {
    const p = Partition.open(tempDir(), 't', 0, { segmentBytes: 100 });
    appendRecords(p, records(5), NOW);
    appendRecords(p, records(5), NOW);
    expect(p.log.segments).toHaveLength(2);
    p.close();
  });

  it('reopening from disk finds the same segments and log end offset', () => {
    const dir = tempDir();
    const p = Partition.open(dir, 'orders', 0, { segmentBytes: 300 });
    for (let i = 0; i < 7; i++) appendRecords(p, records(2, `b${i}`), NOW + i);
    const segments = p.log.segments.map((s) => [s.baseOffset, s.size]);
    p.close();
    const again = Partition.open(dir, 'orders', 0, { segmentBytes: 300 });
    expect(again.log.segments.map((s) => [s.baseOffset, s.size])).toEqual(segments);
    expect(again.logEndOffset).toBe(14);
    expect(again.log.recovery).toBeUndefined();
    expect(appendRecords(again, records(1), NOW).firstOffset).toBe(14);
    again.close();
  });

  it('reads batches by offset across segments (the fetch path)', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 250 });
    for (let i = 0; i < 6; i++) appendRecords(p, records(2, `b${i}`), NOW);
    expect(p.log.segments.length).toBeGreaterThan(1);
    const fromFive = p.log.readCheckedBatches(5);
    expect(fromFive[0]!.baseOffset).toBe(4); // the batch holding offset 5
    expect(fromFive.map((b) => b.baseOffset)).toEqual([4, 6, 8, 10]);
    expect(Buffer.from(fromFive[1]!.records[0]!.value!).toString()).toBe('b3-value-0');
    const limited = p.log.readCheckedBatches(0, 1);
    expect(limited).toHaveLength(1); // one whole batch even past maxBytes
    expect(p.log.readChecked(12)).toHaveLength(0);
    expect(() => p.log.readChecked(13)).toThrow(StorageError);
    p.close();
  });

  it('refuses bytes that are not a valid batch, writing nothing', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const bad = buildPlainBatch(records(1), 0, NOW);
    bad[bad.length - 1]! ^= 1;
    expect(() => writableLog(p).append({ origin: 'raw', bytes: bad })).toThrow(DecodeError);
    expect(p.log.activeSegment.size).toBe(0);
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('refuses a batch whose CRC holds but whose records do not, as Kafka validates records on append', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const bad = buildPlainBatch(records(1), 0, NOW);
    bad[RECORD_BATCH_OVERHEAD] = 0x7e; // the record's length now runs past the batch
    bad.writeUInt32BE(crc32c(bad.subarray(21)), 17);
    expect(() => writableLog(p).append({ origin: 'raw', bytes: bad })).toThrow(/records\[0\]\.length/);
    expect(p.log.activeSegment.size).toBe(0);
    p.close();
  });

  it('a closed partition refuses appends', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    p.close();
    expect(() => appendRecords(p, records(1), NOW)).toThrow(/closed/);
  });

  it('refuses a batch of no records by code and message, and writes nothing', () => {
    const p = Partition.open(tempDir(), 'x', 0);
    expect(thrown(StorageError, () => appendRecords(p, [], NOW))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'a batch needs at least one record',
    });
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('validates the config', () => {
    expect(() => Log.open(join(tempDir(), 'x-0'), { segmentBytes: 10 })).toThrow(/segment.bytes/);
    expect(() => Log.open(join(tempDir(), 'x-0'), { flush: { everyMessages: 0 } })).toThrow(/flush/);
  });
});
