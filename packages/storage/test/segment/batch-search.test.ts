import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { naiveBatchStarts } from '../../fuzz/targets.js';
import { buildPlainBatch, DecodeError, decodeBatchFraming, LogSegment } from '../../src/internals.js';
import { crcOfRange, findValidBatches, plausibleBatchSize } from '../../src/segment/batch-search.js';
import { NOW, records, tempDir } from '../helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function segmentOf(bytes: Uint8Array): LogSegment {
  const path = join(tempDir(), '00000000000000000000.log');
  writeFileSync(path, bytes);
  return LogSegment.open(path, 0, { readOnly: true });
}

/** Plausible headers every `period` bytes, each claiming a batch of `claim` bytes with a wrong CRC. */
function crafted(size: number, period: number, claim: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let p = 0; p + 61 <= size; p += period) {
    bytes.writeInt32BE(Math.min(claim, size - p) - 12, p + 8);
    bytes[p + 16] = 2;
    bytes.writeUInt32BE(p, p + 17);
    bytes.writeBigInt64BE(-1n, p + 43);
  }
  return bytes;
}

describe('the CRC of a byte range from two running CRCs', () => {
  it('equals the CRC of the range itself', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(), fc.nat(), (data, x, y) => {
        const bytes = Buffer.from(data);
        const a = bytes.length === 0 ? 0 : x % (bytes.length + 1);
        const b = a + (bytes.length === 0 ? 0 : y % (bytes.length - a + 1));
        const stateA = crc32c(bytes.subarray(0, a)) >>> 0;
        const stateB = crc32c(bytes.subarray(0, b)) >>> 0;
        expect(crcOfRange(stateA, stateB, b - a)).toBe(crc32c(bytes.subarray(a, b)) >>> 0);
      }),
    );
  });
});

describe('plausibleBatchSize', () => {
  it('accepts exactly the framing decodeBatchFraming accepts, with the batch inside the bytes', () => {
    const good = buildPlainBatch(records(2), 5, NOW);
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 61, maxLength: 200 }),
        fc.integer({ min: 0, max: 60 }),
        (noise, keep) => {
          // Start from a real header and replace a random suffix of it with noise, so both outcomes are common.
          const bytes = Buffer.concat([good.subarray(0, keep), Buffer.from(noise)]);
          let expected = 0;
          try {
            const size = decodeBatchFraming(bytes, 0);
            expected = size <= bytes.length ? size : 0;
          } catch (error) {
            if (!(error instanceof DecodeError)) throw error;
          }
          expect(plausibleBatchSize(bytes, 0, bytes.length)).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('findValidBatches', () => {
  it('finds what trying every position finds, batches hidden among plausible headers included', () => {
    const real = buildPlainBatch(records(3), 7, NOW);
    for (const [size, period, at] of [
      [4096, 64, 1000],
      [4096, 61, 0],
      [9000, 100, 8000],
    ] as const) {
      const bytes = crafted(size, period, size);
      real.copy(bytes, at);
      const segment = segmentOf(bytes);
      const found = findValidBatches(segment, 0);
      expect(found.map((b) => b.position)).toEqual(naiveBatchStarts(segment));
      expect(found).toContainEqual({ position: at, size: real.length });
      segment.close();
    }
  });

  it('reads a crafted 4 MiB file twice, not once per candidate: linear, whatever the headers claim', () => {
    const size = 4 * 1024 * 1024;
    const bytes = crafted(size, 64, size);
    const real = buildPlainBatch(records(2), 0, NOW);
    real.copy(bytes, size - real.length);
    const segment = segmentOf(bytes);
    const read = vi.spyOn(segment, 'read');
    const found = findValidBatches(segment, 0);
    const bytesRead = read.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
    // 65,536 candidates claiming up to 4 MiB each: a candidate-by-candidate check would read terabytes.
    expect(found).toEqual([{ position: size - real.length, size: real.length }]);
    expect(bytesRead).toBeLessThanOrEqual(2 * size + 1024);
    segment.close();
  });
});
