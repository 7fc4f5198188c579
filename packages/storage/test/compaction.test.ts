import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProducerState } from '@klog/core';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  appendRecords,
  buildPlainBatch,
  buildProducerBatch,
  compact,
  decodeRecordBatch,
  Partition,
  rebuildProducerState,
  rewriteBatch,
} from '../src/index.js';
import { swapDirs } from '../src/log.js';
import { NOW, tempDir } from './helpers.js';

const kv = (key: string, value: string | null) => ({
  key: Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
});
const window = (state: ProducerState, pid: number) =>
  (state.get(pid as never)?.batches ?? []).map(
    (b) => `${b.firstSeq()}..${b.lastSeq}@${b.firstOffset()}-${b.lastOffset}`,
  );
const contents = (p: Partition) =>
  [...p.log.batches()].flatMap(({ batch }) =>
    batch.records.map((r) => [
      batch.baseOffset + r.offsetDelta,
      r.key === null ? null : Buffer.from(r.key).toString(),
      r.value === null ? null : Buffer.from(r.value).toString(),
    ]),
  );

describe('rewriteBatch keeps what the producer state needs', () => {
  it('keeps producerId, producerEpoch, baseSequence and the first/last offset when records go', () => {
    const p = Partition.open(tempDir(), 't', 0);
    const records = [kv('a', '1'), kv('b', '2'), kv('c', '3')];
    p.log.appendBatch(
      buildProducerBatch(records, 0, NOW, { producerId: 77, producerEpoch: 3, baseSequence: 40 }),
    );
    const [batch] = p.log.readBatches(0);
    const rewritten = decodeRecordBatch(rewriteBatch(batch!, [batch!.records[1]!]));
    expect(rewritten).toMatchObject({
      baseOffset: 0,
      lastOffsetDelta: 2,
      producerId: 77,
      producerEpoch: 3,
      baseSequence: 40,
      recordsCount: 1,
    });
    expect(rewritten.records[0]!.offsetDelta).toBe(1);
    // The plain builder, by contrast, would have erased them.
    const plain = decodeRecordBatch(buildPlainBatch([kv('b', '2')], 0, NOW));
    expect([plain.producerId, plain.producerEpoch, plain.baseSequence]).toEqual([-1, -1, -1]);
    p.close();
  });
});

describe('compact', () => {
  it('keeps the latest value per key, keeps tombstones, keeps unkeyed records and every offset', () => {
    const p = Partition.open(tempDir(), 'prices', 0, { segmentBytes: 200 });
    appendRecords(p, [kv('apple', '10'), kv('pear', '20')], NOW);
    appendRecords(p, [kv('apple', '11')], NOW);
    appendRecords(p, [kv('pear', null), { key: null, value: Buffer.from('note') }], NOW);
    appendRecords(p, [kv('fig', '5')], NOW);
    const report = compact(p);
    expect(contents(p)).toEqual([
      [2, 'apple', '11'],
      [3, 'pear', null],
      [4, null, 'note'],
      [5, 'fig', '5'],
    ]);
    expect(report).toMatchObject({ recordsBefore: 6, recordsAfter: 4, batchesBefore: 4, batchesAfter: 3 });
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    expect(p.logEndOffset).toBe(6);
    expect(compact(p, { removeTombstones: true }).recordsAfter).toBe(3);
    p.close();
  });

  it('after compaction, rebuild finds each producer window and a resend is still a Duplicate', () => {
    const dir = tempDir();
    // Big enough for the cleaned log to fit one segment, too small for the original.
    const config = { segmentBytes: 700 };
    let p = Partition.open(dir, 'orders', 0, config);
    const state = new ProducerState();
    // Producer 1000 overwrites the same three keys in ten batches; producer 2000 writes twice.
    for (let s = 0; s < 10; s++) {
      appendIdempotent(p, state, 1000, 0, s, [kv(`k${s % 3}`, `v${s}`)], NOW + s);
      if (s === 4 || s === 8)
        appendIdempotent(p, state, 2000, 1, s === 4 ? 0 : 1, [kv(`k${s % 3}`, `w${s}`)], NOW);
    }
    const before = { 1000: window(state, 1000), 2000: window(state, 2000) };
    const report = compact(p);
    expect(report.segmentsBefore).toBeGreaterThan(1);
    expect(report.segmentsAfter).toBe(1);
    expect(report.recordsAfter).toBe(3);
    p.close();

    p = Partition.open(dir, 'orders', 0, config);
    const rebuilt = rebuildProducerState(p.log);
    expect(rebuilt.producerIds()).toEqual([1000, 2000]);
    expect(window(rebuilt, 1000)).toEqual(before[1000]);
    expect(window(rebuilt, 2000)).toEqual(before[2000]);
    const leo = p.logEndOffset;
    // Batch 7's record was overwritten by 8 and removed, yet its resend is recognised.
    expect(appendIdempotent(p, rebuilt, 1000, 0, 7, [kv('k1', 'v7')], NOW)).toMatchObject({
      kind: 'Duplicate',
    });
    expect(appendIdempotent(p, rebuilt, 1000, 0, 10, [kv('k1', 'v10')], NOW)).toMatchObject({
      kind: 'Append',
      firstOffset: leo,
    });
    p.close();
  });

  it('an interrupted swap is finished or undone on open, never mixed', () => {
    const dir = tempDir();
    const p = Partition.open(dir, 'orders', 0);
    appendRecords(p, [kv('a', '1')], NOW);
    p.close();
    const { cleaned, old } = swapDirs(p.dir);
    // A leftover cleaned log next to a whole log: the clean did not finish, the old log stands.
    mkdirSync(cleaned);
    writeFileSync(join(cleaned, '00000000000000000000.log'), 'garbage');
    let again = Partition.open(dir, 'orders', 0);
    expect(again.logEndOffset).toBe(1);
    expect(readdirSync(dir)).toEqual(['orders-0']);
    again.close();

    // A crash between the two renames: the old log parked, the cleaned one complete. Open finishes the swap.
    const done = Partition.open(tempDir(), 'orders', 0);
    appendRecords(done, [kv('b', '2'), kv('c', '3')], NOW);
    done.close();
    renameSync(p.dir, old);
    renameSync(done.dir, p.dir);
    again = Partition.open(dir, 'orders', 0);
    expect(again.logEndOffset).toBe(2);
    expect(readdirSync(dir)).toEqual(['orders-0']);
    again.close();
  });

  it('works for the longest topic name Kafka allows', () => {
    const topic = 't'.repeat(249);
    const p = Partition.open(tempDir(), topic, 0);
    appendRecords(p, [kv('a', '1'), kv('a', '2')], NOW);
    expect(compact(p).recordsAfter).toBe(1);
    expect(p.logEndOffset).toBe(2);
    p.close();
  });
});
