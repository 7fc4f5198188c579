import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  buildProducerBatch,
  decodeRecordBatch,
  LogManager,
  StorageError,
  TIMESTAMP_TYPE_MASK,
} from '../../src/internals.js';
import { LOG_START_OFFSET_FILE } from '../../src/log/log-start-offset.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'klog-retention-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const value = (i: number) => ({
  key: Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i}`.padEnd(40, '.')),
});

/** A manager whose topic `t` rolls a segment after every batch (segment.bytes smaller than two batches). */
function withSegments(batches: number, timestamp = (i: number) => 1_000 + i) {
  const manager = LogManager.open(dataDir, { config: { segmentBytes: 150 } });
  manager.createTopic('t', 1);
  const p = manager.partition('t', 0)!;
  for (let i = 0; i < batches; i++) appendRecords(p, [value(i)], timestamp(i));
  return { manager, p };
}

function code(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (error) {
    return error instanceof StorageError ? error.code : String(error);
  }
}

describe('the log start offset (DeleteRecords)', () => {
  it('moves up, hides what is below from readers, deletes whole segments below it, and survives a reopen', () => {
    const { manager, p } = withSegments(6);
    expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(p.advanceLogStartOffset(3)).toBe(3);
    expect(p.logStartOffset).toBe(3);
    expect(p.log.segments.map((s) => s.baseOffset)).toEqual([3, 4, 5]);
    expect(code(() => p.fetch(2, 1000))).toBe('OFFSET_OUT_OF_RANGE');
    expect(decodeRecordBatch(p.fetch(3, 1000).records, 0).baseOffset).toBe(3);
    expect(p.fetch(3, 1000).logStartOffset).toBe(3);
    // Lower than now: nothing changes; past the end: refused.
    expect(p.advanceLogStartOffset(1)).toBe(3);
    expect(code(() => p.advanceLogStartOffset(7))).toBe('OFFSET_OUT_OF_RANGE');
    manager.close();
    const again = LogManager.open(dataDir, { config: { segmentBytes: 150 } });
    expect(again.partition('t', 0)!.logStartOffset).toBe(3);
    expect(readFileSync(join(dataDir, 't-0', LOG_START_OFFSET_FILE), 'utf8')).toBe('0\n3\n');
    again.close();
  });

  it('inside a segment: the segment stays, the start is the offset asked for; ListOffsets by time follows', () => {
    const manager = LogManager.open(dataDir);
    manager.createTopic('t', 1);
    const p = manager.partition('t', 0)!;
    appendRecords(p, [value(0), value(1), value(2), value(3)], 5_000);
    expect(p.advanceLogStartOffset(2)).toBe(2);
    expect(p.log.segments).toHaveLength(1);
    expect(p.offsetForTimestamp(0)?.offset).toBe(2);
    // To the log end: an empty log for readers, appends go on from there.
    expect(p.advanceLogStartOffset(4)).toBe(4);
    appendRecords(p, [value(4)], 6_000);
    expect(decodeRecordBatch(p.fetch(4, 1000).records, 0).baseOffset).toBe(4);
    manager.close();
  });
});

describe('retention: old segments deleted, never the active one', () => {
  it('by time: segments whose newest record is older than the limit', () => {
    const { manager, p } = withSegments(5, (i) => (i < 3 ? 1_000 : 9_000));
    const deleted = p.deleteOldSegments((s) => s.maxTimestamp() < 5_000);
    expect(deleted).toEqual([0, 1, 2]);
    expect(p.logStartOffset).toBe(3);
    expect(readdirSync(join(dataDir, 't-0')).filter((f) => f.endsWith('.log'))).toEqual([
      '00000000000000000003.log',
      '00000000000000000004.log',
    ]);
    expect(existsSync(join(dataDir, 't-0', '00000000000000000000.index'))).toBe(false);
    manager.close();
  });

  it('by size: the oldest go while the log is over the limit; everything old: the active segment stays', () => {
    const { manager, p } = withSegments(4);
    const one = p.log.segments[0]!.size;
    expect(p.deleteOldSegments((s, bytes) => bytes - s.size >= 2 * one)).toEqual([0, 1]);
    expect(p.deleteOldSegments(() => true)).toEqual([2]);
    expect(p.log.segments.map((s) => s.baseOffset)).toEqual([3]);
    expect(p.logStartOffset).toBe(3);
    manager.close();
  });

  it('roll(): a new empty active segment, unless the active one is empty', () => {
    const { manager, p } = withSegments(1);
    expect(p.roll()).toBe(true);
    expect(p.roll()).toBe(false);
    expect(p.log.segments.map((s) => s.baseOffset)).toEqual([0, 1]);
    manager.close();
  });
});

describe('topics: per-topic config, more partitions, deletion', () => {
  it("a topic's own segment.bytes and message.max.bytes, read on open and changed on an open log", () => {
    const configs = new Map([['small', { maxBatchBytes: 100 }]]);
    const manager = LogManager.open(dataDir, { topicConfig: (t) => configs.get(t) ?? {} });
    manager.createTopic('small', 1);
    manager.createTopic('big', 1);
    expect(code(() => appendRecords(manager.partition('small', 0)!, [value(1), value(2)], 1))).toBe(
      'MESSAGE_TOO_LARGE',
    );
    appendRecords(manager.partition('big', 0)!, [value(1), value(2)], 1);
    configs.set('small', { maxBatchBytes: 1000 });
    manager.reconfigureTopic('small');
    appendRecords(manager.partition('small', 0)!, [value(1), value(2)], 1);
    expect(manager.partition('small', 0)!.log.config.maxBatchBytes).toBe(1000);
    manager.close();
  });

  it('addPartitions grows a topic; a count that is not more is refused', () => {
    const manager = LogManager.open(dataDir);
    manager.createTopic('t', 2);
    manager.addPartitions('t', 5);
    expect(manager.topics().get('t')).toBe(5);
    expect(manager.partition('t', 4)).toBeDefined();
    expect(code(() => manager.addPartitions('t', 5))).toBe('INVALID_PARTITIONS');
    expect(code(() => manager.addPartitions('nope', 5))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    manager.close();
    expect(LogManager.open(dataDir).topics().get('t')).toBe(5);
  });

  it('deleteTopic: gone at once, its directories removed, gone after a reopen; the name can be used again', () => {
    const manager = LogManager.open(dataDir);
    manager.createTopic('gone', 2);
    appendRecords(manager.partition('gone', 0)!, [value(1)], 1);
    manager.deleteTopic('gone');
    expect(manager.topics().has('gone')).toBe(false);
    expect(manager.partition('gone', 0)).toBeUndefined();
    expect(readdirSync(dataDir).filter((f) => !f.startsWith('.lock'))).toEqual([]);
    expect(code(() => manager.deleteTopic('gone'))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    manager.createTopic('gone', 1);
    expect(manager.partition('gone', 0)!.logEndOffset).toBe(0);
    manager.close();
    expect([...LogManager.open(dataDir).topics()]).toEqual([['gone', 1]]);
  });
});

describe('message.timestamp.type=LogAppendTime', () => {
  it("the batch gets the broker's time and the timestamp type bit, with a CRC that checks", () => {
    const manager = LogManager.open(dataDir);
    manager.createTopic('t', 1);
    const p = manager.partition('t', 0)!;
    const bytes = buildProducerBatch([value(0), value(1)], 0, 1_000, {
      producerId: 7,
      producerEpoch: 0,
      baseSequence: 0,
    });
    const result = p.appendProducerBatch(bytes, { nowMs: 50_000, logAppendTimeMs: 50_000 });
    expect(result).toMatchObject({ kind: 'Append', firstOffset: 0, lastOffset: 1, logAppendTimeMs: 50_000 });
    const stored = decodeRecordBatch(p.fetch(0, 1000).records, 0); // decoding checks the CRC
    expect(stored.attributes & TIMESTAMP_TYPE_MASK).toBe(TIMESTAMP_TYPE_MASK);
    expect(stored.maxTimestamp).toBe(50_000);
    expect(stored.producerId).toBe(7);
    // Without it: CreateTime kept, -1 answered.
    const plain = p.appendProducerBatch(buildPlainBatch([value(2)], 0, 2_000));
    expect(plain).toMatchObject({ kind: 'Append', logAppendTimeMs: -1 });
    manager.close();
  });

  it('a batch whose CRC is wrong is refused, not sealed with a new CRC', () => {
    const manager = LogManager.open(dataDir);
    manager.createTopic('t', 1);
    const bytes = buildPlainBatch([value(0)], 0, 1_000);
    bytes[bytes.length - 1]! ^= 0xff;
    expect(code(() => manager.partition('t', 0)!.appendProducerBatch(bytes, { logAppendTimeMs: 5 }))).toMatch(
      /^DecodeError: crc at byte 17: stored 0x[0-9a-f]+ but the bytes give/,
    );
    expect(manager.partition('t', 0)!.logEndOffset).toBe(0);
    manager.close();
  });
});
