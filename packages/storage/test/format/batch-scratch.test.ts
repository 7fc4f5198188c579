import { describe, expect, it } from 'vitest';
import { BatchScratch, buildProducerBatch } from '../../src/format/batch-builder.js';
import { appendIdempotent, Partition } from '../../src/internals.js';
import { NOW, tempDir } from '../helpers.js';

const producer = { producerId: 7, producerEpoch: 0, baseSequence: 0 };
const recordsOf = (count: number, size: number) =>
  Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.alloc(size, i + 1) }));

describe('BatchScratch', () => {
  it('builds the same bytes as a fresh buffer, in memory it reuses', () => {
    const scratch = new BatchScratch();
    const first = buildProducerBatch(recordsOf(3, 100), 0, NOW, producer, scratch.allocate);
    expect(first.equals(buildProducerBatch(recordsOf(3, 100), 0, NOW, producer))).toBe(true);
    const copy = Buffer.from(first);
    const second = buildProducerBatch(recordsOf(2, 50), 3, NOW, producer, scratch.allocate);
    expect(second.buffer).toBe(first.buffer);
    // Why a batch built here must be written before the next is built: its bytes are reused.
    expect(first.equals(copy)).toBe(false);
  });

  it('grows for a larger batch, and gives a batch over 1 MiB its own buffer', () => {
    const scratch = new BatchScratch();
    const small = buildProducerBatch(recordsOf(1, 10), 0, NOW, producer, scratch.allocate);
    const grown = buildProducerBatch(recordsOf(2, 100_000), 0, NOW, producer, scratch.allocate);
    expect(grown.equals(buildProducerBatch(recordsOf(2, 100_000), 0, NOW, producer))).toBe(true);
    expect(grown.buffer).not.toBe(small.buffer);
    const huge = buildProducerBatch(recordsOf(2, 600_000), 0, NOW, producer, scratch.allocate);
    const again = buildProducerBatch(recordsOf(1, 10), 0, NOW, producer, scratch.allocate);
    expect(huge.buffer).not.toBe(again.buffer);
    expect(huge.equals(buildProducerBatch(recordsOf(2, 600_000), 0, NOW, producer))).toBe(true);
  });
});

describe('appendIdempotent with its reused build buffer', () => {
  it('every batch on disk is the one appended, across sizes that grow and shrink', () => {
    const p = Partition.open(tempDir(), 'sizes', 0, { maxBatchBytes: 4 * 1024 * 1024 });
    const shapes = [
      [3, 10],
      [2, 40_000],
      [1, 5],
      [4, 300_000],
      [2, 700_000],
      [1, 7],
      [5, 1_000],
    ] as const;
    let seq = 0;
    for (const [count, size] of shapes) {
      const result = appendIdempotent(p, {
        producerId: 7,
        producerEpoch: 0,
        firstSequence: seq,
        records: recordsOf(count, size),
        nowMs: NOW,
      });
      expect(result.kind).toBe('Append');
      seq += count;
    }
    const onDisk = [...p.log.batches()].map(({ batch }) =>
      batch.records.map((r) => [r.value!.length, r.value![0]]),
    );
    expect(onDisk).toEqual(
      shapes.map(([count, size]) => Array.from({ length: count }, (_, i) => [size, i + 1])),
    );
    p.close();
  });
});
