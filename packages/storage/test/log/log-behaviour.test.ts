import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  appendRecords,
  buildPlainBatch,
  buildProducerBatch,
  compact,
  DecodeError,
  encodeRecordBatch,
  LOG_CONFIG_BOUNDS,
  Log,
  Partition,
  StorageError,
  segmentFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown, writableLog } from '../helpers.js';

const big = (bytes: number, fill = 1) => [{ key: null, value: Buffer.alloc(bytes, fill) }];

describe('Log settings and arguments, refused by name', () => {
  it('config: the smallest values taken, the rest refused with INVALID_CONFIG; an undefined key means the default', () => {
    const dir = () => join(tempDir(), 'x-0');
    Log.open(dir(), { segmentBytes: 61, maxBatchBytes: 61, flush: { everyMessages: 1 } }).close();
    Log.open(dir(), { segmentBytes: 2 ** 31 - 1, maxBatchBytes: 64 * 1024 * 1024 }).close();
    // The bounds the broker and the CLI check against, from the one place that has them.
    expect(LOG_CONFIG_BOUNDS).toEqual({
      segmentBytes: { min: 61, max: 2 ** 31 - 1 },
      maxBatchBytes: { min: 61, max: 64 * 1024 * 1024 },
    });
    // As JavaScript may pass it: the key there, its value undefined.
    const defaults = Log.open(dir(), {
      segmentBytes: undefined,
      maxBatchBytes: undefined,
      flush: undefined,
      compression: undefined,
      compact: undefined,
    } as never);
    expect(defaults.config).toEqual({
      segmentBytes: 1024 * 1024 * 1024,
      flush: 'os',
      maxBatchBytes: 1_048_588,
      compression: 'producer',
      compact: false,
      delete: true,
      segmentMs: 604_800_000,
      retentionMs: 604_800_000,
      retentionBytes: -1,
      minCleanableDirtyRatio: 0.5,
      minCompactionLagMs: 0,
      deleteRetentionMs: 86_400_000,
    });
    defaults.close();
    for (const [config, message] of [
      [{ segmentBytes: 60 }, 'segment.bytes must be an integer >= 61, got 60'],
      [{ segmentBytes: 2 ** 31 }, 'segment.bytes must be at most 2147483647 (a Kafka int), got 2147483648'],
      [{ maxBatchBytes: 60 }, /max batch bytes must be an integer in 61\.\.67108864 .*, got 60/],
      [{ maxBatchBytes: Number.NaN }, /max batch bytes must be an integer in 61\.\.67108864 .*, got NaN/],
      [{ flush: { everyMessages: 0 } }, 'flush every N messages needs N >= 1, got 0'],
      [{ compact: 'yes' }, 'compact must be true or false, got yes'],
      [{ segmentMs: 0 }, 'segment.ms must be an integer >= 1, got 0'],
      [{ retentionMs: -2 }, 'retention.ms must be an integer >= -1, got -2'],
      [{ minCleanableDirtyRatio: 1.5 }, 'min.cleanable.dirty.ratio must be from 0 to 1, got 1.5'],
    ] as const) {
      const error = thrown(StorageError, () => Log.open(dir(), config as never));
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toMatch(message);
    }
  });

  it('offsets and byte budgets: messages that name them; max bytes 0 still serves one batch', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendRecords(p, records(2, 'a'), NOW);
    appendRecords(p, records(2, 'b'), NOW);
    expect(thrown(StorageError, () => p.log.readChecked(1.5)).message).toBe(
      'offset must be a safe integer, got 1.5',
    );
    expect(thrown(StorageError, () => p.log.readChecked(0, -1)).message).toBe(
      'max bytes must be a safe integer >= 0, got -1',
    );
    expect(thrown(StorageError, () => p.log.readChecked(9)).message).toBe(
      'offset 9 is outside the log [0, 4]',
    );
    expect(thrown(StorageError, () => p.fetch(9, 10)).message).toBe('offset 9 is outside the log [0, 4]');
    expect(thrown(StorageError, () => p.offsetForTimestamp(Number.NaN))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'timestamp must be a safe integer, got NaN',
    });
    expect(p.log.readCheckedBatches(0, 0).map((b) => b.baseOffset)).toEqual([0]);
    // The default budget (1 MiB) takes both; a budget of exactly both sizes too, one byte less only the first.
    expect(p.log.readCheckedBatches(0).map((b) => b.baseOffset)).toEqual([0, 2]);
    const [one, two] = p.log.readCheckedBatches(0);
    const sizes = [one, two].map((b) => 12 + b!.batchLength);
    expect(p.log.readCheckedBatches(0, sizes[0]! + sizes[1]!).length).toBe(2);
    expect(p.log.readCheckedBatches(0, sizes[0]! + sizes[1]! - 1).length).toBe(1);
    expect(p.log.segmentFor(p.logEndOffset)).toBeUndefined();
    expect(p.log.segmentFor(3)).toBe(p.log.activeSegment);
    expect(p.log.size).toBe(sizes[0]! + sizes[1]!);
    p.close();
    expect(thrown(StorageError, () => p.log.readChecked(0)).message).toBe(`log ${p.dir} is closed`);
    expect(thrown(StorageError, () => writableLog(p).flush()).code).toBe('CLOSED');
  });
});

describe("Log.append of 'raw' bytes: the raw path checks everything", () => {
  it('size first (an oversized batch with a bad CRC is MESSAGE_TOO_LARGE), then one whole batch, no more', () => {
    const log = Log.open(join(tempDir(), 'x-0'), { maxBatchBytes: 200 });
    const over = buildPlainBatch(big(300), 0, NOW);
    over[over.length - 1]! ^= 1;
    expect(thrown(StorageError, () => log.append({ origin: 'raw', bytes: over }))).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      message: `batch of ${over.length} bytes exceeds the limit of 200 (message.max.bytes)`,
    });
    const one = buildPlainBatch(records(1), 0, NOW);
    const padded = Buffer.concat([one, Buffer.alloc(3)]);
    expect(thrown(DecodeError, () => log.append({ origin: 'raw', bytes: padded }))).toMatchObject({
      field: 'batchLength',
      offset: 8,
      reason: `says ${one.length} bytes but the buffer holds ${one.length + 3}`,
    });
    expect(log.logEndOffset).toBe(0);
    log.close();
  });

  it('a log opened on its own rolls without a listener; a relative offset past 2^31 - 1 rolls too', () => {
    const dir = join(tempDir(), 'x-0');
    const log = Log.open(dir, { segmentBytes: 100 });
    log.append({ origin: 'raw', bytes: buildPlainBatch(records(1), 0, NOW) });
    expect(log.append({ origin: 'raw', bytes: buildPlainBatch(records(1), 0, NOW) }).rolled).toBe(true);
    log.close();

    // A segment at 0 whose one batch starts at 2^31 - 10: its next offsets are near the index's limit.
    const far = join(tempDir(), 'y-0');
    Log.open(far).close();
    const start = 2 ** 31 - 10;
    writeFileSync(join(far, segmentFileName(0)), buildPlainBatch(records(5), start, NOW));
    const near = Log.open(far);
    expect(near.logEndOffset).toBe(start + 5);
    // Last offset 2^31 - 1 fits (relative 2^31 - 1): no roll.
    expect(near.append({ origin: 'raw', bytes: buildPlainBatch(records(5), 0, NOW) })).toMatchObject({
      lastOffset: 2 ** 31 - 1,
      rolled: false,
    });
    // Last offset 2^31 does not: a new segment, though segment.bytes is far away.
    expect(near.append({ origin: 'raw', bytes: buildPlainBatch(records(1), 0, NOW) })).toMatchObject({
      firstOffset: 2 ** 31,
      rolled: true,
      segmentBaseOffset: 2 ** 31,
    });
    near.close();
  });

  it('an active segment named at the last offset of the one before it is refused; one past it is taken', () => {
    for (const [name, refused] of [
      [2, true],
      [3, false],
    ] as const) {
      const dataDir = tempDir();
      const p = Partition.open(dataDir, 'orders', 0);
      appendRecords(p, records(3), NOW); // offsets 0..2 in segment 0
      p.close();
      writeFileSync(join(dataDir, 'orders-0', segmentFileName(name)), Buffer.alloc(0));
      if (refused) {
        const error = thrown(StorageError, () => Partition.open(dataDir, 'orders', 0));
        expect(error.code).toBe('CORRUPT_MESSAGE');
        expect(error.message).toContain(
          'holds offsets up to 2: the active segment would hand out offsets the log already has',
        );
      } else {
        const q = Partition.open(dataDir, 'orders', 0);
        expect(q.logEndOffset).toBe(3);
        q.close();
      }
    }
  });
});

describe('what a leader stamps, and what reads find by time', () => {
  it("a client's batch gets partition leader epoch 0 whatever it carried", () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const batch = buildProducerBatch(records(1), 0, NOW, {
      producerId: 3,
      producerEpoch: 0,
      baseSequence: 0,
    });
    batch.writeInt32BE(-1, 12);
    p.appendProducerBatch(batch);
    expect(p.fetch(0, 1).records.readInt32BE(12)).toBe(0);
    p.close();
  });

  it('offsetForTimestamp: the first record at or after the time, inside a batch, at a segment’s exact largest timestamp too', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 300 });
    // One batch of three records 10 ms apart (CreateTime), then a LogAppendTime batch, then more.
    const withDeltas = encodeRecordBatch({
      baseOffset: 0,
      partitionLeaderEpoch: 0,
      attributes: 0,
      lastOffsetDelta: 2,
      baseTimestamp: NOW,
      maxTimestamp: NOW + 20,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: [0, 1, 2].map((i) => ({
        attributes: 0,
        timestampDelta: i * 10,
        offsetDelta: i,
        key: null,
        value: Buffer.from(`v${i}`),
        headers: [],
      })),
    });
    writableLog(p).append({ origin: 'raw', bytes: withDeltas });
    const logAppend = Buffer.from(buildPlainBatch(records(2), 0, NOW + 100));
    logAppend.writeInt16BE(0x08, 21); // timestamp type: LogAppendTime, the batch's max timestamp for every record
    logAppend.writeBigInt64BE(BigInt(NOW + 50), 27); // base timestamp below
    logAppend.writeUInt32BE(crc32c(logAppend.subarray(21)), 17);
    writableLog(p).append({ origin: 'raw', bytes: logAppend });
    appendRecords(p, records(1), NOW + 200);
    expect(p.offsetForTimestamp(NOW)).toEqual({ offset: 0, timestamp: NOW });
    expect(p.offsetForTimestamp(NOW + 11)).toEqual({ offset: 2, timestamp: NOW + 20 });
    expect(p.offsetForTimestamp(NOW + 20)).toEqual({ offset: 2, timestamp: NOW + 20 });
    expect(p.offsetForTimestamp(NOW + 21)).toEqual({ offset: 3, timestamp: NOW + 100 });
    expect(p.offsetForTimestamp(NOW + 100)).toEqual({ offset: 3, timestamp: NOW + 100 });
    expect(p.offsetForTimestamp(NOW + 101)).toEqual({ offset: 5, timestamp: NOW + 200 });
    expect(p.offsetForTimestamp(NOW + 201)).toBeUndefined();
    p.close();
  });
});

describe('headersFrom: what a producer-state replay reads', () => {
  it('every batch header ending at or after the offset, across segments, in order', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 3 * 4400 });
    const infos = Array.from({ length: 10 }, (_, i) =>
      appendRecords(p, [...big(4300, i), ...big(10, i)], NOW + i),
    );
    expect(new Set(infos.map((i) => i.segmentBaseOffset)).size).toBeGreaterThanOrEqual(3);
    for (const offset of [0, 1, 5, 6, 7, 12, 19]) {
      const bases = [...p.log.headersFrom(offset)].map((e) => e.header.baseOffset);
      expect(bases, `from ${offset}`).toEqual(
        infos.filter((i) => i.lastOffset >= offset).map((i) => i.firstOffset),
      );
    }
    expect([...p.log.headersFrom(20)]).toEqual([]);
    p.close();
  });
});

describe('compaction and the index files', () => {
  it('a cleaned segment gets an index of its own: every offset it keeps is fetched from its own batch', () => {
    const dataDir = tempDir();
    const config = { segmentBytes: 40 * 4400 };
    const p = Partition.open(dataDir, 'orders', 0, config);
    // Forty 4 KiB batches of 4 keys over and over, then a roll: the cleaned segment is a tenth of the old one.
    for (let i = 0; i < 45; i++) {
      appendRecords(p, [{ key: Buffer.from(`k${i % 4}`), value: Buffer.alloc(4300, i) }], NOW + i);
    }
    const old = p.log.segments[0]!;
    const before = statSync(old.indexPaths.offsets).size;
    expect(before).toBeGreaterThan(8 * 20);
    compact(p);
    const cleaned = p.log.segments[0]!;
    const kept = [...cleaned.headers()].map((e) => e.header.baseOffset);
    expect(kept.length).toBeLessThan(10);
    for (const offset of kept) expect(p.fetch(offset, 1).records.readBigInt64BE(0)).toBe(BigInt(offset));
    p.close();
    const again = Partition.open(dataDir, 'orders', 0, config);
    for (const offset of kept) expect(again.fetch(offset, 1).records.readBigInt64BE(0)).toBe(BigInt(offset));
    expect(again.log.segments[0]!.indexRebuiltBecause).toBeUndefined();
    again.close();
  });

  it('replacing the active segment, or one that is not there, is refused', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendRecords(p, records(1), NOW);
    for (const base of [0, 77]) {
      expect(thrown(StorageError, () => writableLog(p).replaceWithCleaned([[base]]))).toMatchObject({
        code: 'INVALID_REQUEST',
        message: `no inactive segments at offsets ${base} in ${p.dir}`,
      });
    }
    p.close();
  });
});
