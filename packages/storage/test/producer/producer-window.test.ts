import type { BatchHeaderFields } from '@klog/core';
import { toProducerId, toSequence } from '@klog/core';
import { describe, expect, it } from 'vitest';
import {
  buildPlainBatch,
  buildProducerBatch,
  Partition,
  type ProducerWindow,
  StorageError,
  type WindowDecision,
  type WindowedBatch,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

function clientBatch(pid: number, seq: number, count = 1): Buffer {
  return buildProducerBatch(records(count, `p${pid}s${seq}`), 0, NOW, {
    producerId: pid,
    producerEpoch: 0,
    baseSequence: seq,
  });
}

/** A window that answers what it is told to, and remembers what it was asked. */
function scripted(answers: WindowDecision[]) {
  const asked: { batch: WindowedBatch; headers: readonly BatchHeaderFields[] }[] = [];
  const window: ProducerWindow = {
    decide(batch, activeHeaders) {
      asked.push({ batch, headers: activeHeaders() });
      const next = answers.shift();
      if (next === undefined) throw new StorageError('UNKNOWN_SERVER_ERROR', 'your judge threw');
      return next;
    },
  };
  return { window, asked };
}

describe('appendProducerBatch with a window: a window outside the partition judges its producer batches', () => {
  it('writes an Append where the window said, and answers its Duplicate with its offsets, writing nothing', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const { window, asked } = scripted([
      { verdict: { kind: 'Append' } },
      { verdict: { kind: 'Duplicate', firstOffset: 0, lastOffset: 1, timestamp: NOW }, written: false },
    ]);
    expect(p.appendProducerBatch(clientBatch(7, 0, 2), { window })).toMatchObject({
      kind: 'Append',
      firstOffset: 0,
      lastOffset: 1,
    });
    expect(p.appendProducerBatch(clientBatch(7, 0, 2), { window })).toEqual({
      kind: 'Duplicate',
      firstOffset: 0,
      lastOffset: 1,
      timestamp: NOW,
      logStartOffset: 0,
    });
    expect(p.logEndOffset).toBe(2);
    expect(asked.map((a) => a.batch)).toEqual([
      {
        topic: 'orders',
        partition: 0,
        producerId: 7,
        producerEpoch: 0,
        baseSequence: 0,
        records: 2,
        logEndOffset: 0,
        maxTimestamp: NOW,
      },
      {
        topic: 'orders',
        partition: 0,
        producerId: 7,
        producerEpoch: 0,
        baseSequence: 0,
        records: 2,
        logEndOffset: 2,
        maxTimestamp: NOW,
      },
    ]);
    // The partition's own producer state was not consulted, nor told: it knows no producer.
    expect(p.producerState.get(toProducerId(7))).toBeUndefined();
  });

  it('writes a batch the window wrote although it answered Duplicate (a learner who appends before judging)', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const { window } = scripted([
      { verdict: { kind: 'Append' } },
      { verdict: { kind: 'Duplicate', firstOffset: 0, lastOffset: 0, timestamp: NOW }, written: true },
    ]);
    p.appendProducerBatch(clientBatch(7, 0), { window });
    expect(p.appendProducerBatch(clientBatch(7, 0), { window })).toMatchObject({
      kind: 'Duplicate',
      firstOffset: 0,
    });
    expect(p.logEndOffset).toBe(2);
  });

  it('refuses with the window: OutOfOrderSequence writes nothing; a window that throws leaves the log as it was', () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const { window } = scripted([
      {
        verdict: { kind: 'OutOfOrderSequence', expected: toSequence(0), got: toSequence(5) },
        written: false,
      },
    ]);
    expect(p.appendProducerBatch(clientBatch(7, 5), { window })).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 0,
      got: 5,
    });
    const error = thrown(StorageError, () => p.appendProducerBatch(clientBatch(7, 0), { window }));
    expect(error.code).toBe('UNKNOWN_SERVER_ERROR');
    expect(p.logEndOffset).toBe(0);
  });

  it("hands the window the active segment's producer headers, and writes a batch without a producer unasked", () => {
    const p = Partition.open(tempDir(), 'orders', 0);
    const { window, asked } = scripted([{ verdict: { kind: 'Append' } }, { verdict: { kind: 'Append' } }]);
    expect(p.appendProducerBatch(buildPlainBatch(records(3), 0, NOW), { window })).toMatchObject({
      kind: 'Append',
      lastOffset: 2,
    });
    expect(asked).toHaveLength(0);
    p.appendProducerBatch(clientBatch(9, 0, 2), { window });
    p.appendProducerBatch(clientBatch(9, 2), { window });
    expect(asked[1]!.headers).toEqual([
      {
        baseOffset: 3,
        lastOffsetDelta: 1,
        producerId: 9,
        producerEpoch: 0,
        baseSequence: 0,
        maxTimestamp: NOW,
      },
    ]);
  });
});
