import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildProducerBatch,
  crc32c,
  decodeRecordBatch,
  encodeRecordBatch,
  Partition,
} from '../../src/internals.js';
import { arbBatchFields } from '../arbitraries.js';
import { tempDir } from '../helpers.js';

/**
 * An outside implementation of the same format: KafkaJS 2.2.4's RecordBatch encoder
 * and decoder, reached by deep require. Its decoder does not check the CRC, so every
 * CRC is re-checked here with KafkaJS's own crc32C.
 */
const require = createRequire(import.meta.url);
const Decoder = require('kafkajs/src/protocol/decoder');
const decodeKafkaJsBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const { RecordBatch: encodeKafkaJsBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const KafkaJsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const kafkaJsCrc32C: (buf: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C');
const Long = require('kafkajs/src/utils/long');

const hexOrNull = (b: Uint8Array | null | undefined) => (b == null ? null : Buffer.from(b).toString('hex'));

describe('KafkaJS reads what klog writes', () => {
  it('decodes random klog batches to the same fields, and its crc32C agrees', async () => {
    await fc.assert(
      fc.asyncProperty(arbBatchFields, async (fields) => {
        const encoded = encodeRecordBatch(fields);
        expect(kafkaJsCrc32C(encoded.subarray(21))).toBe(encoded.readUInt32BE(17));
        const theirs = await decodeKafkaJsBatch(new Decoder(encoded));
        expect(theirs.firstOffset).toBe(String(fields.baseOffset));
        expect(theirs.lastOffsetDelta).toBe(fields.lastOffsetDelta);
        expect(theirs.firstTimestamp).toBe(String(fields.baseTimestamp));
        expect(theirs.maxTimestamp).toBe(String(fields.maxTimestamp));
        expect(theirs.producerId).toBe(String(fields.producerId));
        expect(theirs.producerEpoch).toBe(fields.producerEpoch);
        expect(theirs.firstSequence).toBe(fields.baseSequence);
        expect(theirs.partitionLeaderEpoch).toBe(fields.partitionLeaderEpoch);
        expect(theirs.records).toHaveLength(fields.records.length);
        theirs.records.forEach(
          (r: { offset: string; key: Buffer | null; value: Buffer | null; headers: object }, i: number) => {
            const mine = fields.records[i]!;
            expect(r.offset).toBe(String(fields.baseOffset + mine.offsetDelta));
            expect(hexOrNull(r.key)).toBe(hexOrNull(mine.key));
            expect(hexOrNull(r.value)).toBe(hexOrNull(mine.value));
          },
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('klog reads what KafkaJS writes', () => {
  it('decodes random KafkaJS batches with the CRC checked', async () => {
    const entry = fc.record({
      key: fc.option(
        fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
        { nil: null },
      ),
      value: fc.option(
        fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
        { nil: null },
      ),
      headerValue: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -1, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 32767 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (entries, baseOffset, producerId, producerEpoch, firstSequence) => {
          const now = 1_700_000_000_000;
          const kafkaJsRecords = entries.map((e, i) =>
            KafkaJsRecord({
              offsetDelta: i,
              timestampDelta: i * 3,
              key: e.key,
              value: e.value,
              headers: e.headerValue === undefined ? {} : { 'x-trace': e.headerValue },
            }),
          );
          const encoder = await encodeKafkaJsBatch({
            firstOffset: Long.fromValue(baseOffset),
            firstTimestamp: now,
            maxTimestamp: now + (entries.length - 1) * 3,
            lastOffsetDelta: entries.length - 1,
            producerId: Long.fromValue(producerId),
            producerEpoch,
            firstSequence,
            records: kafkaJsRecords,
          });
          const buf: Buffer = encoder.buffer;
          const batch = decodeRecordBatch(buf); // CRC verified by default
          expect(batch.crc).toBe(kafkaJsCrc32C(buf.subarray(21)));
          expect(batch.crc).toBe(crc32c(buf.subarray(21)));
          expect(batch).toMatchObject({ baseOffset, producerId, producerEpoch, baseSequence: firstSequence });
          expect(batch.records.map((r) => hexOrNull(r.value))).toEqual(
            entries.map((e) => hexOrNull(e.value)),
          );
          expect(batch.records.map((r) => hexOrNull(r.key))).toEqual(entries.map((e) => hexOrNull(e.key)));
          expect(batch.records.map((r) => r.timestampDelta)).toEqual(entries.map((_, i) => i * 3));
          entries.forEach((e, i) => {
            const headers = batch.records[i]!.headers;
            if (e.headerValue === undefined) expect(headers).toEqual([]);
            else
              expect(headers.map((h) => [h.key, Buffer.from(h.value!).toString()])).toEqual([
                ['x-trace', e.headerValue],
              ]);
          });
          // Re-encoding what we decoded gives KafkaJS's bytes exactly.
          expect(encodeRecordBatch(batch).equals(buf)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('KafkaJS reads the segments of a klog log with indexes, batch after batch', () => {
  it('every batch of every segment, offsets following on, CRC re-checked, and each index entry points at one', async () => {
    const p = Partition.open(tempDir(), 'interop', 0, { segmentBytes: 32 * 1024 });
    for (let seq = 0; seq < 200; seq += 4) {
      const records = Array.from({ length: 4 }, (_, i) => ({
        key: Buffer.from(`k${seq + i}`),
        value: Buffer.alloc(500, i),
      }));
      p.appendProducerBatch(
        buildProducerBatch(records, 0, 1_700_000_000_000 + seq, {
          producerId: 8,
          producerEpoch: 0,
          baseSequence: seq,
        }),
      );
    }
    const segments = p.log.segments.map((s) => ({
      path: s.path,
      base: s.baseOffset,
      index: s.indexPaths.offsets,
    }));
    p.close();
    expect(segments.length).toBeGreaterThan(3);
    let next = 0;
    for (const segment of segments) {
      const bytes = readFileSync(segment.path);
      const starts = new Map<number, number>();
      for (let pos = 0; pos < bytes.length; ) {
        const size = 12 + bytes.readInt32BE(pos + 8);
        const batch = bytes.subarray(pos, pos + size);
        expect(kafkaJsCrc32C(batch.subarray(21))).toBe(batch.readUInt32BE(17));
        const theirs = await decodeKafkaJsBatch(new Decoder(batch));
        expect(Number(theirs.firstOffset)).toBe(next);
        expect(theirs.records.map((r: { offset: string }) => Number(r.offset))).toEqual([
          next,
          next + 1,
          next + 2,
          next + 3,
        ]);
        starts.set(pos, next + theirs.lastOffsetDelta);
        next += theirs.lastOffsetDelta + 1;
        pos += size;
      }
      const index = readFileSync(segment.index);
      for (let at = 0; at < index.length; at += 8) {
        expect(starts.get(index.readInt32BE(at + 4))).toBe(segment.base + index.readInt32BE(at));
      }
    }
    expect(next).toBe(200);
  });
});
