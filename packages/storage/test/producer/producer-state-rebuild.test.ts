import { closeSync, openSync, writeSync } from 'node:fs';
import type { ProducerState } from '@klog/core';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  appendRecords,
  buildProducerBatch,
  Partition,
  rebuildProducerState,
} from '../../src/internals.js';
import { NOW, records, tempDir } from '../helpers.js';

const window = (state: ProducerState, pid: number) =>
  (state.get(pid as never)?.batches ?? []).map((b) => `${b.firstSeq()}..${b.lastSeq}`);

describe('rebuildProducerState', () => {
  it('after a restart finds each producer and the same window, and a resend is still a Duplicate', () => {
    const dir = tempDir();
    let p = Partition.open(dir, 'orders', 0);
    const state = p.producerState;
    let seq = 0;
    for (const n of [2, 2, 2, 1, 3, 1, 1, 1, 1, 1]) {
      appendIdempotent(p, {
        producerId: 1000,
        producerEpoch: 0,
        firstSequence: seq,
        records: records(n),
        nowMs: NOW + seq,
      });
      seq += n;
    }
    appendRecords(p, records(2), NOW); // a plain batch: skipped by the rebuild
    appendIdempotent(p, {
      producerId: 1001,
      producerEpoch: 4,
      firstSequence: 0,
      records: records(1),
      nowMs: NOW,
    });
    p.close();

    p = Partition.open(dir, 'orders', 0);
    const rebuilt = rebuildProducerState(p.log);
    expect(rebuilt.producerIds()).toEqual([1000, 1001]);
    expect(window(rebuilt, 1000)).toEqual(['10..10', '11..11', '12..12', '13..13', '14..14']);
    expect(window(rebuilt, 1000)).toEqual(window(state, 1000));
    expect(rebuilt.get(1001 as never)?.producerEpoch).toBe(4);
    expect(
      rebuilt.get(1000 as never)?.batches.map((b) => [b.firstOffset(), b.lastOffset, b.timestamp]),
    ).toEqual(state.get(1000 as never)?.batches.map((b) => [b.firstOffset(), b.lastOffset, b.timestamp]));
    const before = p.logEndOffset;
    expect(
      appendIdempotent(p, {
        producerId: 1000,
        producerEpoch: 0,
        firstSequence: 14,
        records: records(1),
        nowMs: NOW,
      }),
    ).toMatchObject({
      kind: 'Duplicate',
      firstOffset: 14,
      lastOffset: 14,
    });
    expect(p.logEndOffset).toBe(before);
    p.close();
  });

  it('sees only the active segment: the window narrows from 5 to 1 after a roll', () => {
    const dir = tempDir();
    const one = buildProducerBatch(records(1), 0, NOW, {
      producerId: 1,
      producerEpoch: 0,
      baseSequence: 0,
    }).length;
    const config = { segmentBytes: one * 2 - 1 }; // one batch per segment
    let p = Partition.open(dir, 'narrow', 0, config);
    const state = p.producerState;
    for (let s = 0; s < 8; s++)
      appendIdempotent(p, {
        producerId: 1,
        producerEpoch: 0,
        firstSequence: s,
        records: records(1),
        nowMs: NOW,
      });
    expect(p.log.segments).toHaveLength(8);
    expect(window(state, 1)).toEqual(['3..3', '4..4', '5..5', '6..6', '7..7']);
    p.close();
    p = Partition.open(dir, 'narrow', 0, config);
    const rebuilt = rebuildProducerState(p.log);
    expect(window(rebuilt, 1)).toEqual(['7..7']);
    // What narrowed is no longer deduplicated: a resend of 6..6 is out of order now.
    expect(
      appendIdempotent(p, {
        producerId: 1,
        producerEpoch: 0,
        firstSequence: 6,
        records: records(1),
        nowMs: NOW,
      }),
    ).toEqual({
      kind: 'OutOfOrderSequence',
      expected: 8,
      got: 6,
    });
    p.close();
  });

  it('reads headers only: record bodies are neither read nor decoded', () => {
    const dir = tempDir();
    const p = Partition.open(dir, 'orders', 0);
    const big = Array.from({ length: 100 }, (_, i) => ({ key: null, value: Buffer.alloc(1024, i) }));
    for (let s = 0; s < 300; s += 100)
      appendIdempotent(p, { producerId: 5, producerEpoch: 0, firstSequence: s, records: big, nowMs: NOW });
    const segment = p.log.activeSegment;
    // Damage a record body on disk: a full decode would fail its CRC; the header scan must not care.
    const fd = openSync(segment.path, 'r+');
    writeSync(fd, Buffer.from([0xff, 0xff, 0xff]), 0, 3, 2000);
    closeSync(fd);
    const original = segment.read.bind(segment);
    let bytesRead = 0;
    segment.read = (position: number, length: number) => {
      const got = original(position, length);
      bytesRead += got.length;
      return got;
    };
    const rebuilt = rebuildProducerState(p.log);
    expect(window(rebuilt, 5)).toEqual(['0..99', '100..199', '200..299']);
    expect(segment.size).toBeGreaterThan(300_000);
    expect(bytesRead).toBeLessThanOrEqual(3 * 8 * 1024); // one small read per batch header
    p.close();
  });
});
