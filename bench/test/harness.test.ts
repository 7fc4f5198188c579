import { describe, expect, it } from 'vitest';
import { measurePair, median, type TaskSpec } from '../src/harness.js';

/** The harness's bookkeeping, not its timings: nothing here asserts how fast anything is. */

describe('measurePair', () => {
  it('runs both tasks every round, hooks around every call, and pools the samples', async () => {
    const calls = { a: 0, b: 0, open: 0, close: 0 };
    let inside = false;
    const a: TaskSpec = {
      name: 'a',
      ops: 4,
      async: false,
      beforeEach: () => {
        expect(inside).toBe(false);
        inside = true;
        calls.open++;
      },
      afterEach: () => {
        expect(inside).toBe(true);
        inside = false;
        calls.close++;
      },
      fn: () => {
        expect(inside).toBe(true);
        calls.a++;
      },
    };
    const b: TaskSpec = {
      name: 'b',
      ops: 1,
      async: true,
      fn: async () => {
        calls.b++;
      },
    };
    const result = await measurePair(a, b, { rounds: 3, timeMs: 1, warmupMs: 1, minSamples: 5 });
    expect(result.roundRatios).toHaveLength(3);
    expect(result.ratio).toBe(median(result.roundRatios));
    expect(result.subject.name).toBe('a');
    expect(result.baseline.name).toBe('b');
    expect(result.subject.samples).toBeGreaterThanOrEqual(15);
    expect(result.baseline.samples).toBeGreaterThanOrEqual(15);
    expect(result.subject.opsPerSample).toBe(4);
    expect(calls.open).toBe(calls.close);
    expect(calls.open).toBe(calls.a);
    expect(calls.a).toBeGreaterThanOrEqual(result.subject.samples);
    expect(calls.b).toBeGreaterThanOrEqual(result.baseline.samples);
  });

  it('a failing task fails the measurement instead of reporting a ratio', async () => {
    const ok: TaskSpec = { name: 'ok', ops: 1, async: false, fn: () => {} };
    const bad: TaskSpec = {
      name: 'bad',
      ops: 1,
      async: false,
      fn: () => {
        throw new Error('broken task');
      },
    };
    await expect(measurePair(ok, bad, { rounds: 1, timeMs: 1, warmupMs: 1, minSamples: 2 })).rejects.toThrow(
      /broken task/,
    );
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
});
