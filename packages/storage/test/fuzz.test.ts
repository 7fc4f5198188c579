import { describe, expect, it } from 'vitest';
import {
  AllocationProbe,
  batchDecoder,
  fuzz,
  largeSegmentReader,
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
  ] as const) {
    it(`${target.name}: ${numRuns} inputs`, LONG_TEST, () => {
      const figures = fuzz(target, { numRuns });
      expect(figures.failure).toBeUndefined();
      expect(figures.inputs).toBe(numRuns);
      expect(figures.maxAllocBytes).toBeLessThanOrEqual(figures.largestInput);
    });
  }

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
