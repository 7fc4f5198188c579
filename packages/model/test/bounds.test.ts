import { NUM_BATCHES_TO_RETAIN } from '@klog/core';
import { describe, expect, it } from 'vitest';
import { BoundsError, checkBounds, DEFAULT_BOUNDS } from '../src/index.js';

describe('bounds', () => {
  it("default to the chapter's window and a cap equal to it", () => {
    expect(DEFAULT_BOUNDS.window).toBe(NUM_BATCHES_TO_RETAIN);
    expect(DEFAULT_BOUNDS.inFlight).toBe(NUM_BATCHES_TO_RETAIN);
    expect(checkBounds()).toEqual(DEFAULT_BOUNDS);
    expect(checkBounds({ batches: 3 })).toMatchObject({ batches: 3, inFlight: 5 });
  });

  it('refuse values out of range, naming the field', () => {
    for (const [given, message] of [
      [{ inFlight: 0 }, /inFlight must be a whole number from 1 to 8, got 0/],
      [{ inFlight: 9 }, /inFlight .* got 9/],
      [{ batches: 1.5 }, /batches .* got 1\.5/],
      [{ losses: -1 }, /losses .* got -1/],
      [{ restarts: 4 }, /restarts/],
      [{ segmentBatches: 13 }, /segmentBatches/],
      [{ inFlight: Number.NaN }, /inFlight .* got NaN/],
    ] as const) {
      expect(() => checkBounds(given)).toThrow(BoundsError);
      expect(() => checkBounds(given)).toThrow(message);
    }
  });

  it("cannot widen core's window: the model can only narrow the real entry", () => {
    expect(() => checkBounds({ window: NUM_BATCHES_TO_RETAIN + 1 })).toThrow(/window .* from 1 to 5, got 6/);
    try {
      checkBounds({ window: 0 });
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_BOUND', field: 'window', min: 1, max: 5 });
    }
  });
});
