import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  appendIdempotent,
  buildPlainBatch,
  buildProducerBatch,
  CONTROL_FLAG,
  encodeRecordBatch,
  Partition,
  readProducedBatch,
  rebuildProducerState,
  StorageError,
  segmentFileName,
  snapshotFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

function clientBatch(pid: number, epoch: number, seq: number, count = 1): Buffer {
  return buildProducerBatch(records(count, `p${pid}s${seq}`), 0, NOW, {
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
  });
}

const snapshots = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.snapshot'))
    .sort();

describe('appendProducerBatch, in the order Kafka checks', () => {
  it('the size first: an oversized batch with a bad CRC is MESSAGE_TOO_LARGE; exactly message.max.bytes is taken', () => {
    const fits = clientBatch(1, 0, 0, 3);
    const p = Partition.open(tempDir(), 'orders', 0, { maxBatchBytes: fits.length });
    const over = clientBatch(1, 0, 0, 4);
    over[over.length - 1]! ^= 1; // the CRC no longer matches; the size is what Kafka reports
    const error = thrown(StorageError, () => p.appendProducerBatch(over));
    expect(error.code).toBe('MESSAGE_TOO_LARGE');
    expect(error.message).toContain(
      `batch of ${over.length} bytes exceeds the limit of ${fits.length} (message.max.bytes)`,
    );
    expect(p.appendProducerBatch(fits)).toMatchObject({ kind: 'Append', firstOffset: 0, lastOffset: 2 });
    p.close();
  });

  it('says why two batches in one request are refused, with both sizes', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const one = clientBatch(1, 0, 0);
    const two = Buffer.concat([one, clientBatch(1, 0, 1)]);
    expect(thrown(StorageError, () => p.appendProducerBatch(two)).message).toBe(
      `the records hold ${two.length} bytes but the batch is ${one.length}: ` +
        'a produce request carries exactly one record batch per partition',
    );
    expect(thrown(StorageError, () => p.appendProducerBatch(one, { nowMs: -1 })).message).toBe(
      'nowMs must be a safe integer >= 0, got -1',
    );
    expect(p.logEndOffset).toBe(0);
    p.close();
  });

  it('a Produce batch read once (readProducedBatch, as the broker does) is appended as read: its header is not decoded again', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const bytes = clientBatch(7, 0, 0, 2);
    const batch = readProducedBatch(bytes);
    expect(batch.header).toMatchObject({ producerId: 7, baseSequence: 0, lastOffsetDelta: 1 });
    // The header the append judges is the one read: a copy that names another producer is taken at its word.
    const asRead = { bytes, header: { ...batch.header, producerId: 8 } };
    expect(p.appendProducerBatch(asRead)).toMatchObject({ kind: 'Append', firstOffset: 0, lastOffset: 1 });
    expect(p.producerState.producerIds()).toEqual([8]);
    // Written in place, as received, with the offsets the log gave it.
    expect(p.log.readChecked(0).equals(bytes)).toBe(true);
    // Bytes that are not one batch are refused by the reader, in the words every path uses.
    const two = Buffer.concat([clientBatch(1, 0, 0), clientBatch(1, 0, 1)]);
    expect(thrown(StorageError, () => readProducedBatch(two)).message).toBe(
      `the records hold ${two.length} bytes but the batch is ${two.length / 2}: ` +
        'a produce request carries exactly one record batch per partition',
    );
    p.close();
  });

  it('a batch with no producer (id -1) is appended each time it comes; producer id 0 is a producer like any other', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const plain = buildPlainBatch(records(2, 'plain'), 0, NOW);
    expect(p.appendProducerBatch(Buffer.from(plain))).toMatchObject({ kind: 'Append', firstOffset: 0 });
    expect(p.appendProducerBatch(Buffer.from(plain))).toMatchObject({ kind: 'Append', firstOffset: 2 });
    expect(p.producerState.producerIds()).toEqual([]);
    const zero = clientBatch(0, 0, 0);
    expect(p.appendProducerBatch(Buffer.from(zero))).toMatchObject({ kind: 'Append', firstOffset: 4 });
    expect(p.appendProducerBatch(Buffer.from(zero))).toMatchObject({ kind: 'Duplicate', firstOffset: 4 });
    expect(p.producerState.producerIds()).toEqual([0]);
    p.close();
    // After a restart too: the rebuild knows producer 0 and skips the plain batches without a word.
    const again = Partition.open(p.dataDir, 'orders', 0);
    expect(again.producerStateReport).toEqual([]);
    expect(again.appendProducerBatch(Buffer.from(zero))).toMatchObject({ kind: 'Duplicate', firstOffset: 4 });
    again.close();
  });
});

describe('producer snapshots, when on', () => {
  const config = { segmentBytes: 200 };
  const roll = (p: Partition, seqs: number) => {
    for (let seq = 0; seq < seqs; seq++)
      expect(p.appendProducerBatch(clientBatch(3, 0, seq)).kind).toBe('Append');
  };

  it("are written at each roll, named for the new segment's base offset (the two newest kept), and on close", () => {
    const data = tempDir();
    const dir = join(data, 'orders-0');
    const p = Partition.open(data, 'orders', 0, config, { producerSnapshots: true });
    roll(p, 8);
    const bases = p.log.segments.map((s) => s.baseOffset);
    expect(bases.length).toBeGreaterThanOrEqual(3);
    expect(snapshots(dir)).toEqual(bases.slice(-2).map(snapshotFileName));
    p.close();
    expect(snapshots(dir).at(-1)).toBe(snapshotFileName(p.logEndOffset));
  });

  it('are never written when off, neither at a roll nor on close', () => {
    const data = tempDir();
    const p = Partition.open(data, 'orders', 0, config);
    roll(p, 8);
    expect(p.log.segments.length).toBeGreaterThanOrEqual(3);
    p.close();
    expect(snapshots(join(data, 'orders-0'))).toEqual([]);
  });

  it('reopen: the log again from disk, recovered, the producer state rebuilt, snapshots still taken at each roll', () => {
    const data = tempDir();
    const dir = join(data, 'orders-0');
    // Snapshots off: the rebuild sees the active segment only, as after a restart.
    const p = Partition.open(data, 'orders', 0, config);
    roll(p, 8);
    const window = () => p.producerState.get(3 as never)!.batches.map((b) => b.lastSeq);
    expect(window()).toEqual([3, 4, 5, 6, 7]);
    const active = p.log.activeSegment.path;
    const inActive = [...p.log.activeSegment.headers()].map((e) => e.header.baseSequence);
    expect(inActive.length).toBeLessThan(5);
    writeFileSync(active, Buffer.concat([readFileSync(active), Buffer.alloc(20)]));
    p.reopen();
    expect(p.recovery).toMatchObject({ kind: 'torn-tail', truncatedBytes: 20 });
    expect(window()).toEqual(inActive);
    expect(p.appendProducerBatch(clientBatch(3, 0, 7))).toMatchObject({ kind: 'Duplicate', firstOffset: 7 });
    p.close();
    // Snapshots on: the roll listener is set again on the reopened log.
    const q = Partition.open(data, 'orders', 0, config, { producerSnapshots: true });
    q.reopen();
    for (let seq = 8; seq < 12; seq++) q.appendProducerBatch(clientBatch(3, 0, seq));
    const bases = q.log.segments.map((s) => s.baseOffset);
    expect(snapshots(dir)).toEqual(bases.slice(-2).map(snapshotFileName));
    q.close();
  });

  it("with no snapshot left, replay the last two segments, as Kafka's loadProducerState does", () => {
    const data = tempDir();
    const p = Partition.open(data, 'orders', 0, config, { producerSnapshots: true });
    roll(p, 4);
    // Two segments: the one before the active segment is replayed as well.
    expect(p.log.segments.length).toBe(2);
    p.close();
    for (const name of snapshots(join(data, 'orders-0'))) rmSync(join(data, 'orders-0', name));
    const q = Partition.open(data, 'orders', 0, config, { producerSnapshots: true });
    expect(q.producerState.get(3 as never)!.batches.map((b) => b.lastSeq)).toEqual([0, 1, 2, 3]);
    expect(q.appendProducerBatch(clientBatch(3, 0, 0))).toMatchObject({ kind: 'Duplicate', firstOffset: 0 });
    q.close();
  });

  it('a second close touches nothing: the directory may be gone by then', () => {
    const data = tempDir();
    const p = Partition.open(data, 'orders', 0, config, { producerSnapshots: true });
    roll(p, 1);
    p.close();
    rmSync(data, { recursive: true });
    expect(() => p.close()).not.toThrow();
    expect(() => readdirSync(data)).toThrow(/ENOENT/);
  });
});

describe('producer-id expiry on open', () => {
  it('forgets producers idle for producerIdExpirationMs as of nowMs; keeps them when the setting is off or they are younger', () => {
    const data = tempDir();
    const p = Partition.open(data, 'orders', 0);
    p.appendProducerBatch(clientBatch(4, 0, 0));
    p.close();
    const open = (options: object) => {
      const q = Partition.open(data, 'orders', 0, {}, options);
      const ids = q.producerState.producerIds();
      q.close();
      return ids;
    };
    expect(open({ nowMs: NOW + 10_000 })).toEqual([4]);
    expect(open({ producerIdExpirationMs: 10_000, nowMs: NOW + 9_999 })).toEqual([4]);
    expect(open({ producerIdExpirationMs: 10_000, nowMs: NOW + 10_000 })).toEqual([]);
    expect(p.removeExpiredProducers(NOW)).toEqual([]);
  });
});

describe('the producer-state rebuild, on batches no producer state comes from', () => {
  /** A partition whose active segment holds `batches`, written as they are (then opened: recovery keeps them). */
  function partitionWith(batches: Buffer[]): Partition {
    const data = tempDir();
    Partition.open(data, 'orders', 0).close();
    writeFileSync(join(data, 'orders-0', segmentFileName(0)), Buffer.concat(batches));
    return Partition.open(data, 'orders', 0);
  }
  const fields = (
    baseOffset: number,
    producerId: number,
    producerEpoch: number,
    baseSequence: number,
    attributes = 0,
  ) => ({
    baseOffset,
    partitionLeaderEpoch: 0,
    attributes,
    lastOffsetDelta: 0,
    baseTimestamp: NOW,
    maxTimestamp: NOW,
    producerId,
    producerEpoch,
    baseSequence,
    records: [
      { attributes: 0, timestampDelta: 0, offsetDelta: 0, key: null, value: Buffer.from('v'), headers: [] },
    ],
  });

  it('leaves out a transaction marker (control batch, sequence -1) without reporting it', () => {
    const p = partitionWith([
      encodeRecordBatch(fields(0, 5, 0, 0)),
      encodeRecordBatch(fields(1, 5, 0, -1, CONTROL_FLAG)),
    ]);
    expect(p.producerStateReport).toEqual([]);
    expect(p.producerState.get(5 as never)?.batches.map((b) => b.lastSeq)).toEqual([0]);
    p.close();
  });

  it('reports a producer batch with a negative epoch or sequence, with or without a listener, and never throws', () => {
    const p = partitionWith([
      encodeRecordBatch(fields(0, 5, -1, 3)),
      encodeRecordBatch(fields(1, 6, 0, -1)),
      encodeRecordBatch(fields(2, 7, 0, 0)),
    ]);
    expect(p.producerStateReport.map((r) => r.reason)).toEqual([
      'producer 5 with epoch -1 and base sequence 3: no producer sends that',
      'producer 6 with epoch 0 and base sequence -1: no producer sends that',
    ]);
    expect(p.producerState.producerIds()).toEqual([7]);
    expect(rebuildProducerState(p.log).producerIds()).toEqual([7]);
    p.close();
  });

  it('reports them too when snapshots are on and the log is replayed, by byte position', () => {
    const first = encodeRecordBatch(fields(0, 5, -1, 3));
    const p = partitionWith([first, encodeRecordBatch(fields(1, 7, 0, 0))]);
    p.close();
    const q = Partition.open(p.dataDir, 'orders', 0, {}, { producerSnapshots: true });
    expect(q.producerStateReport).toEqual([
      { position: 0, reason: 'producer 5 with epoch -1 and base sequence 3: no producer sends that' },
    ]);
    expect(q.producerState.producerIds()).toEqual([7]);
    q.close();
  });
});

describe('appendIdempotent', () => {
  it("judges by the chapter's rule unless told otherwise, and refuses an empty batch by name", () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const batch = { producerId: 1, producerEpoch: 0, firstSequence: 5, records: records(1), nowMs: NOW };
    expect(appendIdempotent(p, batch)).toEqual({ kind: 'OutOfOrderSequence', expected: 0, got: 5 });
    expect(appendIdempotent(p, { ...batch, rule: 'kafka' })).toMatchObject({ kind: 'Append' });
    expect(thrown(StorageError, () => appendIdempotent(p, { ...batch, records: [] }))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'a batch needs at least one record',
    });
    p.close();
  });
});

describe("what the validator refuses from a client (Kafka's LogValidator), by name", () => {
  /** A client batch with header fields edited and the CRC made right again: only the rule under test is broken. */
  function edited(edit: (b: Buffer) => void, count = 3): Buffer {
    const b = clientBatch(8, 0, 0, count);
    edit(b);
    b.writeUInt32BE(crc32c(b.subarray(21)), 17);
    return b;
  }
  const refusal = (bytes: Buffer) => {
    const p = Partition.open(tempDir(), 'orders', 0);
    try {
      return thrown(StorageError, () => p.appendProducerBatch(bytes));
    } finally {
      expect(p.logEndOffset).toBe(0);
      p.close();
    }
  };

  it('a count of 0, and a count that disagrees with the offsets, each with its own message', () => {
    expect(refusal(edited((b) => b.writeInt32BE(0, 57)))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'invalid reported count for record batch: 0',
    });
    expect(refusal(edited((b) => b.writeInt32BE(2, 57)))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'inconsistent batch offset range [0, 2] and count of records 2',
    });
  });

  it('a transactional batch, saying why', () => {
    expect(refusal(edited((b) => b.writeInt16BE(0x10, 21)))).toMatchObject({
      code: 'INVALID_TXN_STATE',
      message: 'a transactional batch: klog does not build transactions (no coordinator, no markers)',
    });
  });

  it('takes the largest sequence and epoch a header can hold (2^31 - 1, 32767)', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    expect(p.appendProducerBatch(clientBatch(8, 0, 2 ** 31 - 1, 2)).kind).toBe('Append');
    expect(p.appendProducerBatch(clientBatch(9, 32767, 0)).kind).toBe('Append');
    p.close();
  });

  it('names the timestamp it refuses', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const batch = {
      producerId: 1,
      producerEpoch: 0,
      firstSequence: 0,
      records: records(1),
      nowMs: Number.NaN,
    };
    expect(thrown(StorageError, () => appendIdempotent(p, batch))).toMatchObject({
      code: 'INVALID_TIMESTAMP',
      message: 'timestamp must be a safe integer >= 0, got NaN',
    });
    p.close();
  });
});
