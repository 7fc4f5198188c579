import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  appendRecords,
  buildPlainBatch,
  buildProducerBatch,
  CONTROL_FLAG,
  computeBatchCrc,
  decodeBatchHeader,
  type IdempotentAppend,
  Partition,
  rebuildProducerState,
  type SkippedBatch,
  StorageError,
  TRANSACTIONAL_FLAG,
} from '../../src/internals.js';
import { fingerprint, NOW, records, tempDir, thrown, writableLog } from '../helpers.js';

const SEGMENT = '00000000000000000000.log';
const big = (bytes: number) => [{ key: null, value: Buffer.alloc(bytes, 1) }];

/** `batch` with its attributes, producer fields or count changed, and its CRC made right again. */
function edited(
  batch: Buffer,
  change: { attributes?: number; producerEpoch?: number; baseSequence?: number; recordsCount?: number },
): Buffer {
  const out = Buffer.from(batch);
  if (change.attributes !== undefined) out.writeInt16BE(change.attributes, 21);
  if (change.producerEpoch !== undefined) out.writeInt16BE(change.producerEpoch, 51);
  if (change.baseSequence !== undefined) out.writeInt32BE(change.baseSequence, 53);
  if (change.recordsCount !== undefined) out.writeInt32BE(change.recordsCount, 57);
  out.writeUInt32BE(computeBatchCrc(out, 0, decodeBatchHeader(out)), 17);
  return out;
}

describe('every write path refuses, before writing, what a reader would refuse', () => {
  it('a batch over message.max.bytes is refused by appendRecords and appendIdempotent, nothing written', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendRecords(p, records(1), NOW);
    const before = fingerprint(p.dir);
    expect(thrown(StorageError, () => appendRecords(p, big(2 * 1024 * 1024), NOW)).code).toBe(
      'MESSAGE_TOO_LARGE',
    );
    const state = p.producerState;
    const error = thrown(StorageError, () =>
      appendIdempotent(p, {
        producerId: 9,
        producerEpoch: 0,
        firstSequence: 0,
        records: big(2 * 1024 * 1024),
        nowMs: NOW,
      }),
    );
    expect(error.code).toBe('MESSAGE_TOO_LARGE');
    expect(error.message).toContain('1048588');
    expect(state.get(9 as never)).toBeUndefined();
    expect(fingerprint(p.dir)).toEqual(before);
    // The producer's next try (a smaller batch, same sequence) is appended: nothing was half-recorded.
    expect(
      appendIdempotent(p, {
        producerId: 9,
        producerEpoch: 0,
        firstSequence: 0,
        records: records(1),
        nowMs: NOW,
      }).kind,
    ).toBe('Append');
    appendRecords(p, records(1), NOW);
    p.close();
    const again = Partition.open(join(p.dir, '..'), 'orders', 0);
    expect(again.recovery).toBeUndefined();
    expect(again.logEndOffset).toBe(3);
    again.close();
  });

  it('data accepted under a larger message.max.bytes is never cut when the setting shrinks', () => {
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'orders', 0, { maxBatchBytes: 4 * 1024 * 1024 });
    appendRecords(p, big(2 * 1024 * 1024), NOW);
    appendRecords(p, records(3), NOW);
    p.close();
    const before = fingerprint(p.dir);
    const again = Partition.open(dataDir, 'orders', 0, { maxBatchBytes: 1000 });
    expect(again.recovery).toBeUndefined();
    expect(again.logEndOffset).toBe(4);
    expect(again.log.readCheckedBatches(0, 1)[0]!.records[0]!.value!.length).toBe(2 * 1024 * 1024);
    expect(again.log.readCheckedBatches(1).map((b) => b.baseOffset)).toEqual([1]);
    // What the smaller setting refuses is what comes in from now on.
    expect(thrown(StorageError, () => appendRecords(again, big(2000), NOW)).code).toBe('MESSAGE_TOO_LARGE');
    again.close();
    expect(fingerprint(p.dir)).toEqual(before);
  });

  it('a timestamp that is not a safe integer >= 0 is refused, not rounded or stored as 0', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    for (const nowMs of [2 ** 53, -(2 ** 60), Number.NaN, 1.5, -1, Number.POSITIVE_INFINITY]) {
      expect(thrown(StorageError, () => appendRecords(p, records(1), nowMs)).code).toBe('INVALID_TIMESTAMP');
      expect(
        thrown(StorageError, () =>
          appendIdempotent(p, {
            producerId: 1,
            producerEpoch: 0,
            firstSequence: 0,
            records: records(1),
            nowMs: nowMs,
          }),
        ).code,
      ).toBe('INVALID_TIMESTAMP');
    }
    expect(p.logEndOffset).toBe(0);
    expect(p.log.activeSegment.size).toBe(0);
    appendRecords(p, records(1), Number.MAX_SAFE_INTEGER);
    expect(p.log.readCheckedBatches(0)[0]!.maxTimestamp).toBe(Number.MAX_SAFE_INTEGER);
    p.close();
  });

  it("Log.append of 'raw' bytes refuses what Kafka's LogValidator refuses from a client, writing nothing", () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const good = buildProducerBatch(records(2), 0, NOW, { producerId: 5, producerEpoch: 0, baseSequence: 0 });
    const cases: [string, Buffer, string][] = [
      ['producer 5 with epoch -1', edited(good, { producerEpoch: -1 }), 'INVALID_RECORD'],
      ['producer 5 with sequence -1', edited(good, { baseSequence: -1 }), 'INVALID_RECORD'],
      ['a control batch', edited(good, { attributes: CONTROL_FLAG }), 'INVALID_RECORD'],
      ['a transactional batch', edited(good, { attributes: TRANSACTIONAL_FLAG }), 'INVALID_TXN_STATE'],
    ];
    for (const [what, bytes, code] of cases) {
      expect(
        thrown(StorageError, () => writableLog(p).append({ origin: 'raw', bytes: bytes })).code,
        what,
      ).toBe(code);
    }
    // Kafka's words for the two producer fields.
    expect(
      thrown(StorageError, () => writableLog(p).append({ origin: 'raw', bytes: cases[0]![1] })).message,
    ).toBe('invalid producer epoch -1 in record batch with producerId 5');
    expect(
      thrown(StorageError, () => writableLog(p).append({ origin: 'raw', bytes: cases[1]![1] })).message,
    ).toBe('invalid sequence number -1 in record batch with producerId 5');
    expect(p.logEndOffset).toBe(0);
    expect(p.log.activeSegment.size).toBe(0);
    writableLog(p).append({ origin: 'raw', bytes: good });
    expect(p.logEndOffset).toBe(2);
    p.close();
  });

  it("Log.append of 'raw' bytes does not write into the caller's buffer", () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    appendRecords(p, records(3), NOW);
    const batch = buildPlainBatch(records(2), 0, NOW);
    const copy = Buffer.from(batch);
    expect(writableLog(p).append({ origin: 'raw', bytes: batch })).toMatchObject({
      firstOffset: 3,
      lastOffset: 4,
    });
    expect(batch.equals(copy)).toBe(true);
    expect(p.log.readCheckedBatches(3)[0]!.baseOffset).toBe(3);
    p.close();
  });
});

describe('a batch on disk no producer could have sent (producer 5, epoch -1)', () => {
  it('does not stop the log from opening; the rebuild reports it and keeps the rest', () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'orders-0');
    mkdirSync(dir);
    const ok = buildProducerBatch(records(1), 0, NOW, { producerId: 6, producerEpoch: 0, baseSequence: 0 });
    const odd = edited(
      buildProducerBatch(records(1), 1, NOW, { producerId: 5, producerEpoch: 0, baseSequence: 0 }),
      {
        producerEpoch: -1,
      },
    );
    writeFileSync(join(dir, SEGMENT), Buffer.concat([ok, odd]));
    const p = Partition.open(dataDir, 'orders', 0);
    expect(p.recovery).toBeUndefined();
    expect(p.logEndOffset).toBe(2);
    const skipped: SkippedBatch[] = [];
    const state = rebuildProducerState(p.log, (s) => skipped.push(s));
    expect(state.producerIds()).toEqual([6]);
    expect(skipped).toEqual([{ position: ok.length, reason: expect.stringContaining('epoch -1') }]);
    const resend: IdempotentAppend = appendIdempotent(p, {
      producerId: 6,
      producerEpoch: 0,
      firstSequence: 0,
      records: records(1),
      nowMs: NOW,
    });
    expect(resend.kind).toBe('Duplicate');
    p.close();
    expect(readFileSync(join(dir, SEGMENT)).equals(Buffer.concat([ok, odd]))).toBe(true);
  });
});
