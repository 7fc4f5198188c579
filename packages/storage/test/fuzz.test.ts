import { describe, expect, it } from 'vitest';
import {
  AllocationProbe,
  batchDecoder,
  fuzz,
  largeSegmentReader,
  produceBelowCrc,
  recovery,
  segmentReader,
} from '../fuzz/targets.js';
import { LONG_TEST } from './helpers.js';

/**
 * The fuzz targets of `pnpm fuzz` (fuzz/targets.ts), on fewer inputs: each input
 * must end in a value or a DecodeError, allocate nothing larger than itself, and
 * decode to nothing but what its bytes say. A hang would show as this test's timeout.
 */
describe('fuzzing, a short run (pnpm fuzz runs 100k inputs per target)', () => {
  for (const [target, numRuns] of [
    [batchDecoder, 3000],
    [segmentReader, 1500],
    [largeSegmentReader, 12],
    [recovery, 150],
    [produceBelowCrc, 3000],
  ] as const) {
    it(`${target.name}: ${numRuns} inputs`, LONG_TEST, () => {
      const figures = fuzz(target, { numRuns });
      expect(figures.failure).toBeUndefined();
      expect(figures.inputs).toBe(numRuns);
      expect(figures.maxAllocBytes).toBeLessThanOrEqual(figures.largestInput);
    });
  }

  it(
    'produce below the CRC: both outcomes happen, so "0 accepted that the reader rejects" means something',
    LONG_TEST,
    () => {
      const figures = fuzz(produceBelowCrc, { numRuns: 1000, seed: 22 });
      expect(figures.failure).toBeUndefined();
      const count = (word: string) =>
        [...figures.outcomes].filter(([k]) => k.includes(word)).reduce((sum, [, n]) => sum + n, 0);
      expect(count('accepted, reads back')).toBeGreaterThan(0);
      expect(count('refused INVALID_RECORD')).toBeGreaterThan(0);
      expect(count('refused CORRUPT_MESSAGE')).toBeGreaterThan(0);
    },
  );

  it('the allocation probe sees buffers and arrays (so the bound above can fail)', () => {
    const probe = new AllocationProbe();
    probe.install();
    try {
      probe.measure(() => {
        Buffer.allocUnsafe(1234);
        new Array(99);
      });
      Buffer.alloc(1_000_000); // outside a measurement: not counted
    } finally {
      probe.uninstall();
    }
    expect(probe.bytes).toBe(1234);
    expect(probe.elements).toBe(99);
    expect(Buffer.alloc).not.toBe(undefined);
  });
});
