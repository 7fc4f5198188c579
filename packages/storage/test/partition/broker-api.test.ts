import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  buildProducerBatch,
  DecodeError,
  decodeProducerSnapshot,
  LogManager,
  Partition,
  StorageError,
  snapshotFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';
import { kafkaJsBatch } from '../kafkajs-compressed.js';

/** A batch as a Kafka client would send it: base offset 0, the producer's fields. */
function clientBatch(pid: number, epoch: number, seq: number, count = 1, timestamp = NOW): Buffer {
  return buildProducerBatch(records(count, `p${pid}e${epoch}s${seq}`), 0, timestamp, {
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
  });
}

describe('Partition.appendProducerBatch: client bytes under Kafka 4.1 rules', () => {
  it('appends, answers a resend with the original offsets, and never writes it twice', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const first = clientBatch(7, 0, 0, 3);
    const copy = Buffer.from(first);
    expect(p.appendProducerBatch(first)).toEqual({
      kind: 'Append',
      firstOffset: 0,
      lastOffset: 2,
      logAppendTimeMs: -1,
      logStartOffset: 0,
    });
    // Kafka assigns the base offset and leader epoch in place (outside the CRC); the rest is as sent.
    expect(first.subarray(16).equals(copy.subarray(16))).toBe(true);
    expect(p.appendProducerBatch(clientBatch(7, 0, 3, 2))).toMatchObject({ kind: 'Append', firstOffset: 3 });
    expect(p.appendProducerBatch(first)).toEqual({
      kind: 'Duplicate',
      firstOffset: 0,
      lastOffset: 2,
      timestamp: NOW,
      logStartOffset: 0,
    });
    expect(p.logEndOffset).toBe(5);
    // On disk: the bytes as sent, but for the base offset and the leader epoch, outside the CRC.
    const stored = p.fetch(3, 1).records;
    const sent = clientBatch(7, 0, 3, 2);
    expect(stored.subarray(16).equals(sent.subarray(16))).toBe(true);
    expect(stored.readBigInt64BE(0)).toBe(3n);
    p.close();
  });

  it('a producer the partition has no state for accepts any sequence; gaps and old epochs are refused', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    expect(p.appendProducerBatch(clientBatch(9, 2, 42)).kind).toBe('Append');
    expect(p.appendProducerBatch(clientBatch(9, 2, 45))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 43,
      got: 45,
    });
    expect(p.appendProducerBatch(clientBatch(9, 1, 43))).toEqual({
      kind: 'InvalidProducerEpoch',
      current: 2,
      got: 1,
    });
    expect(p.appendProducerBatch(clientBatch(9, 3, 43))).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 43,
    });
    expect(p.appendProducerBatch(clientBatch(9, 3, 0)).kind).toBe('Append');
    expect(p.logEndOffset).toBe(2);
    p.close();
  });

  it('refuses what Kafka refuses, before writing: CRC, size, two batches, control records', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { maxBatchBytes: 2000 });
    const bad = clientBatch(1, 0, 0);
    bad[bad.length - 1]! ^= 1;
    expect(thrown(DecodeError, () => p.appendProducerBatch(bad))).toMatchObject({
      code: 'CORRUPT_MESSAGE',
      field: 'crc',
    });
    expect(thrown(StorageError, () => p.appendProducerBatch(clientBatch(1, 0, 0, 100))).code).toBe(
      'MESSAGE_TOO_LARGE',
    );
    const two = Buffer.concat([clientBatch(1, 0, 0), clientBatch(1, 0, 1)]);
    expect(thrown(StorageError, () => p.appendProducerBatch(two)).code).toBe('INVALID_RECORD');
    const control = clientBatch(1, 0, 0);
    control.writeInt16BE(0x20, 21);
    control.writeUInt32BE(crc32c(control.subarray(21)), 17);
    expect(thrown(StorageError, () => p.appendProducerBatch(control)).message).toContain('control records');
    expect(p.logEndOffset).toBe(0);
    expect(p.log.activeSegment.size).toBe(0);
    p.close();
  });

  it('stores a compressed batch as it came (KafkaJS gzip), and fetch serves those bytes', async () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const entries = Array.from({ length: 5 }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(300, i),
    }));
    const gzip = await kafkaJsBatch('gzip', entries, { producerId: 77 });
    expect(p.appendProducerBatch(gzip)).toMatchObject({ kind: 'Append', firstOffset: 0, lastOffset: 4 });
    const served = p.fetch(0, 1 << 20).records;
    expect(served.length).toBe(gzip.length);
    expect(served.subarray(16).equals(gzip.subarray(16))).toBe(true);
    expect(p.log.readCheckedBatches(0)[0]!.records.map((r) => Buffer.from(r.key!).toString())).toEqual(
      entries.map((e) => e.key.toString()),
    );
    p.close();
  });
});

describe('Partition.fetch and offsetForTimestamp', () => {
  it('whole batches from the one holding the offset, up to maxBytes but at least one, with the offsets', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const bytes = clientBatch(3, 0, i * 2, 2, NOW + i * 100);
      sizes.push(bytes.length);
      p.appendProducerBatch(bytes);
    }
    expect(p.fetch(0, 1).records.length).toBe(sizes[0]);
    expect(p.fetch(3, sizes[1]! + sizes[2]!).records.length).toBe(sizes[1]! + sizes[2]!);
    expect(p.fetch(3, sizes[1]! + sizes[2]! - 1).records.length).toBe(sizes[1]);
    expect(p.fetch(0, 1 << 20).records.equals(p.log.readChecked(0, 1 << 20))).toBe(true);
    expect(p.fetch(10, 100)).toEqual({
      records: Buffer.alloc(0),
      highWatermark: 10,
      lastStableOffset: 10,
      logStartOffset: 0,
    });
    expect(thrown(StorageError, () => p.fetch(11, 100)).code).toBe('OFFSET_OUT_OF_RANGE');
    expect(thrown(StorageError, () => p.fetch(-1, 100)).code).toBe('OFFSET_OUT_OF_RANGE');
    expect(p.offsetForTimestamp(NOW + 150)).toEqual({ offset: 4, timestamp: NOW + 200 });
    expect(p.offsetForTimestamp(NOW)).toEqual({ offset: 0, timestamp: NOW });
    expect(p.offsetForTimestamp(NOW + 401)).toBeUndefined();
    p.close();
  });
});

describe('producer snapshots (Kafka .snapshot files), an option', () => {
  const eight = (p: Partition) => {
    for (let seq = 0; seq < 8; seq++)
      expect(p.appendProducerBatch(clientBatch(1000, 0, seq)).kind).toBe('Append');
  };
  const windowOf = (p: Partition) =>
    p.producerState.get(1000 as never)?.batches.map((b) => `${b.firstSeq()}..${b.lastSeq}`) ?? [];

  it("off: the window narrows to the active segment; on: to the snapshot's last batch plus the replay", () => {
    const config = { segmentBytes: 120 };
    const off = tempDir();
    let p = Partition.open(off, 'narrow', 0, config);
    eight(p);
    expect(windowOf(p)).toEqual(['3..3', '4..4', '5..5', '6..6', '7..7']);
    p.close();
    p = Partition.open(off, 'narrow', 0, config);
    expect(windowOf(p)).toEqual(['7..7']);
    p.close();

    const on = tempDir();
    p = Partition.open(on, 'narrow', 0, config, { producerSnapshots: true });
    eight(p);
    p.close();
    p = Partition.open(on, 'narrow', 0, config, { producerSnapshots: true });
    // The snapshot written on close holds each producer's last batch only, as Kafka's does.
    expect(windowOf(p)).toEqual(['7..7']);
    p.close();
    // Without the close's snapshot, the one of the last roll and a replay of the active segment after it.
    const dir = join(on, 'narrow-0');
    const fromRoll = Partition.open(on, 'narrow', 0, config, { producerSnapshots: true });
    expect(fromRoll.appendProducerBatch(clientBatch(1000, 0, 8)).kind).toBe('Append');
    const closeSnapshot = join(dir, snapshotFileName(9));
    fromRoll.close();
    writeFileSync(closeSnapshot, 'not a snapshot');
    p = Partition.open(on, 'narrow', 0, config, { producerSnapshots: true });
    // A skipped snapshot is no batch of the log: position -1, the reason naming the file.
    expect(p.producerStateReport).toEqual([
      { position: -1, reason: expect.stringMatching(new RegExp(`^${closeSnapshot}: `)) },
    ]);
    expect(windowOf(p)).toEqual(['7..7', '8..8']);
    expect(p.appendProducerBatch(clientBatch(1000, 0, 7))).toMatchObject({
      kind: 'Duplicate',
      firstOffset: 7,
    });
    p.close();
  });

  it("writes Kafka's layout: version 1, CRC-32C over the entries, one 46-byte entry per producer", () => {
    const data = tempDir();
    const p = Partition.open(data, 't', 0, {}, { producerSnapshots: true });
    p.appendProducerBatch(clientBatch(5, 2, 10, 3, NOW + 7));
    p.close();
    const bytes = readFileSync(join(data, 't-0', snapshotFileName(3)));
    expect(bytes.length).toBe(2 + 4 + 4 + 46);
    expect(bytes.readInt16BE(0)).toBe(1);
    expect(bytes.readUInt32BE(2)).toBe(crc32c(bytes.subarray(6)));
    expect(bytes.readInt32BE(6)).toBe(1);
    expect(bytes.readBigInt64BE(10)).toBe(5n); // producer id
    expect(bytes.readInt16BE(18)).toBe(2); // epoch
    expect(bytes.readInt32BE(20)).toBe(12); // last sequence
    expect(bytes.readBigInt64BE(24)).toBe(2n); // last offset
    expect(bytes.readInt32BE(32)).toBe(2); // offset delta
    expect(bytes.readBigInt64BE(36)).toBe(BigInt(NOW + 7)); // timestamp
    expect(bytes.readInt32BE(44)).toBe(-1); // coordinator epoch
    expect(bytes.readBigInt64BE(48)).toBe(-1n); // current transaction's first offset
    expect(
      decodeProducerSnapshot(bytes)
        .get(5 as never)
        ?.batches.map((b) => b.lastOffset),
    ).toEqual([2]);
  });
});

describe('producer-id expiry (producer.id.expiration.ms), off by default', () => {
  it('forgets a producer idle that long; it then starts anywhere, as a new one', () => {
    const p = Partition.open(tempDir(), 'orders', 0, {}, { producerIdExpirationMs: 60_000 });
    p.appendProducerBatch(clientBatch(1, 0, 0, 1, NOW));
    p.appendProducerBatch(clientBatch(2, 0, 0, 1, NOW + 50_000), { nowMs: NOW + 50_000 });
    expect(p.producerState.producerIds()).toEqual([1, 2]);
    p.appendProducerBatch(clientBatch(2, 0, 1, 1, NOW + 60_000), { nowMs: NOW + 60_000 });
    expect(p.producerState.producerIds()).toEqual([2]);
    expect(p.appendProducerBatch(clientBatch(1, 0, 17)).kind).toBe('Append');
    p.close();
  });
});

describe('LogManager: a data directory of many partitions', () => {
  it('creates topics, finds them again on open, and opens a partition on first use', () => {
    const data = tempDir();
    let m = LogManager.open(data);
    m.createTopic('orders', 3);
    m.createTopic('a-b-c', 1);
    expect(m.partition('orders', 3)).toBeUndefined();
    expect(m.partition('nope', 0)).toBeUndefined();
    expect(m.partition('orders', 2)!.appendProducerBatch(clientBatch(4, 0, 0)).kind).toBe('Append');
    m.close();
    m = LogManager.open(data, { producerSnapshots: true });
    expect([...m.topics()]).toEqual([
      ['a-b-c', 1],
      ['orders', 3],
    ]);
    expect(m.partition('orders', 2)!.logEndOffset).toBe(1);
    expect(m.partition('orders', 2)!.appendProducerBatch(clientBatch(4, 0, 0)).kind).toBe('Duplicate');
    m.close();
  });

  it('refuses what Kafka refuses, with the code a broker maps', () => {
    const m = LogManager.open(tempDir());
    m.createTopic('orders.v1', 1);
    const code = (fn: () => unknown) => thrown(StorageError, fn).code;
    expect(code(() => m.createTopic('orders.v1', 1))).toBe('TOPIC_ALREADY_EXISTS');
    expect(code(() => m.createTopic('orders_v1', 1))).toBe('INVALID_TOPIC_EXCEPTION');
    expect(code(() => m.createTopic('bad/name', 1))).toBe('INVALID_TOPIC_EXCEPTION');
    expect(code(() => m.createTopic('fine', 0))).toBe('INVALID_PARTITIONS');
    m.close();
  });

  it('holds the data directory: a second manager, or a partition opened alone, is refused; and the reverse', () => {
    const data = tempDir();
    const m = LogManager.open(data);
    m.createTopic('orders', 1);
    expect(thrown(StorageError, () => LogManager.open(data)).code).toBe('LOCKED');
    expect(thrown(StorageError, () => Partition.open(data, 'orders', 0)).code).toBe('LOCKED');
    m.close();
    const alone = Partition.open(data, 'orders', 0);
    const error = thrown(StorageError, () => LogManager.open(data));
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain('partitions opened on their own');
    alone.close();
    LogManager.open(data).close();
  });

  it('refuses a data directory with a missing partition or a stray entry rather than ignoring it', () => {
    const data = tempDir();
    mkdirSync(join(data, 'orders-0'));
    mkdirSync(join(data, 'orders-2'));
    expect(thrown(StorageError, () => LogManager.open(data)).message).toContain('partition 1 is missing');
    const other = tempDir();
    writeFileSync(join(other, 'notes.txt'), 'hello');
    expect(thrown(StorageError, () => LogManager.open(other)).message).toContain('notes.txt');
  });
});
