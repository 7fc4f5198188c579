import { describe, expect, it } from 'vitest';
import { type CheckResult, type Counterexample, checkModel, StateLimitExceeded } from '../src/index.js';
import { bruteForce, reachableKeys } from './helpers.js';

function counterexample(result: CheckResult): Counterexample {
  if (result.outcome.holds) throw new Error(`expected a counterexample, got holds (${result.states} states)`);
  return result.outcome.counterexample;
}

describe('the chapter claim: in flight at most the window', () => {
  it('holds for 5 in flight with the default bounds (8 batches, 2 losses, 1 restart)', () => {
    const result = checkModel({ inFlight: 5 });
    expect(result.bounds).toMatchObject({ inFlight: 5, batches: 8, losses: 2, restarts: 1, window: 5 });
    if (!result.outcome.holds) throw new Error(JSON.stringify(result.outcome.counterexample.violation));
    expect(result.states).toBeGreaterThan(10_000);
    expect(result.transitions).toBeGreaterThan(result.states);
    // Far more schedules than states: the merging is what makes the search finish.
    expect(result.outcome.schedules).toBeGreaterThan(BigInt(result.states) * 1_000_000n);
    expect(result.outcome.longestSchedule).toBeGreaterThan(8 * 3);
  });

  it('breaks at 6 in flight: 0..1 leaves the window before its ack, the resend is refused', () => {
    const result = checkModel({ inFlight: 6 });
    const cx = counterexample(result);
    expect(cx.violation).toEqual({
      invariant: 'no-false-failure',
      kind: 'written-but-failed',
      batch: 0,
      firstOffset: 0,
      lastOffset: 1,
      expected: 11,
      got: 0,
    });
    const kinds = cx.steps.map((s) => s.step.kind);
    // Six sends, six appends (the sixth evicts 0..1), one lost ack, the resend, its verdict, its answer.
    expect(kinds).toHaveLength(16);
    expect(kinds.filter((k) => k === 'send')).toHaveLength(7);
    expect(kinds.filter((k) => k === 'deliver')).toHaveLength(7);
    const evicting = cx.steps.find((s) => s.step.kind === 'deliver' && s.step.evicted.length > 0)!.step;
    expect(evicting).toMatchObject({ kind: 'deliver', batch: 5, evicted: ['0..1'] });
    const lost = cx.steps.find((s) => s.step.kind === 'lose')!.step;
    expect(lost).toMatchObject({ kind: 'lose', acksLost: [0, 1, 2, 3, 4, 5], retry: [0, 1, 2, 3, 4, 5] });
    expect(cx.steps.at(-2)!.step).toMatchObject({
      kind: 'deliver',
      batch: 0,
      verdict: { kind: 'OutOfOrderSequence', expected: 11, got: 0 },
    });
    // The log holds 0..1 at offsets 0..1 and the producer marked it failed.
    const last = cx.steps.at(-1)!.after;
    expect(last.broker.log[0]).toMatchObject({ batch: 0, firstOffset: 0, lastOffset: 1 });
    expect(last.producer[0]).toEqual({ kind: 'failed', expected: 11, got: 0 });
  });

  it('the counterexample replays: each step is a transition of the state before it', () => {
    const cx = counterexample(checkModel({ inFlight: 6, batches: 6, losses: 1, restarts: 0 }));
    expect(cx.steps).toHaveLength(16);
    expect(cx.steps.at(-1)!.after.lossesLeft).toBe(0);
  });

  it('a window mutated to 4 batches breaks at 5 in flight, and holds at 4', () => {
    const broken = checkModel({ inFlight: 5, window: 4 });
    const cx = counterexample(broken);
    expect(cx.violation).toMatchObject({ kind: 'written-but-failed', batch: 0, expected: 10, got: 0 });
    expect(cx.steps).toHaveLength(14);
    expect(checkModel({ inFlight: 4, window: 4 }).outcome.holds).toBe(true);
  });

  it("a restart that rebuilds from a one-batch active segment breaks even 2 in flight (the chapter's 5 → 1)", () => {
    const cx = counterexample(
      checkModel({ inFlight: 2, batches: 4, losses: 0, restarts: 1, segmentBatches: 1 }),
    );
    const restart = cx.steps.find((s) => s.step.kind === 'restart')!.step;
    expect(restart).toMatchObject({ kind: 'restart', window: ['2..3'], acksLost: [0, 1] });
    expect(cx.violation).toMatchObject({ kind: 'written-but-failed', batch: 0 });
    // One in flight is never hurt: the only unanswered batch is the newest, always in the rebuilt window.
    expect(
      checkModel({ inFlight: 1, batches: 4, losses: 1, restarts: 1, segmentBatches: 1 }).outcome.holds,
    ).toBe(true);
  });

  it('a restart with no roll rebuilds the same window and breaks nothing', () => {
    expect(
      checkModel({ inFlight: 5, batches: 7, losses: 1, restarts: 2, segmentBatches: 0 }).outcome.holds,
    ).toBe(true);
  });

  it('with no loss and no restart nothing is ever resent, so any in-flight holds', () => {
    expect(checkModel({ inFlight: 8, batches: 10, losses: 0, restarts: 0 }).outcome.holds).toBe(true);
  });
});

describe('the reduction agrees with the plain search of every schedule', () => {
  const cases = [
    { inFlight: 2, batches: 3, losses: 1, restarts: 1, window: 2 },
    { inFlight: 3, batches: 4, losses: 1, restarts: 0, window: 3 },
    { inFlight: 2, batches: 4, losses: 2, restarts: 0, window: 2 },
    { inFlight: 1, batches: 4, losses: 1, restarts: 1, segmentBatches: 2, window: 3 },
  ];
  for (const bounds of cases) {
    it(`same schedule count and states, none broken: ${JSON.stringify(bounds)}`, () => {
      const checked = checkModel(bounds);
      const plain = bruteForce(bounds);
      if (!checked.outcome.holds) throw new Error('expected to hold');
      expect(plain.violations).toBe(0);
      expect(checked.outcome.schedules).toBe(plain.schedules);
      expect(checked.states).toBe(plain.keys.size);
    });
  }

  const broken = [
    { inFlight: 2, batches: 3, losses: 1, restarts: 0, window: 1 },
    { inFlight: 3, batches: 4, losses: 1, restarts: 0, window: 2 },
    { inFlight: 2, batches: 3, losses: 0, restarts: 1, segmentBatches: 1, window: 5 },
    { inFlight: 3, batches: 3, losses: 1, restarts: 1, segmentBatches: 2, window: 3 },
  ];
  for (const bounds of broken) {
    it(`a counterexample as short as the shortest the plain search finds: ${JSON.stringify(bounds)}`, () => {
      const plain = bruteForce(bounds);
      expect(plain.violations).toBeGreaterThan(0);
      expect(counterexample(checkModel(bounds)).steps.length).toBe(plain.shortestViolation);
    });
  }
});

describe('in flight: a smaller cap allows a subset of the schedules', () => {
  it('every state reachable with N - 1 in flight is reachable with N', () => {
    for (const n of [2, 3, 4]) {
      const small = reachableKeys({ inFlight: n - 1, batches: 5, losses: 1, restarts: 1 });
      const large = reachableKeys({ inFlight: n, batches: 5, losses: 1, restarts: 1 });
      for (const key of small) expect(large.has(key)).toBe(true);
      expect(large.size).toBeGreaterThan(small.size);
    }
  });
});

describe('running it', () => {
  it('reports progress by state count', () => {
    const seen: number[] = [];
    const result = checkModel(
      { inFlight: 3, batches: 5 },
      { progressEvery: 500, onProgress: (p) => seen.push(p.states) },
    );
    expect(seen.length).toBe(Math.floor(result.states / 500));
    expect(seen[0]).toBe(500);
  });

  it('gives up past maxStates instead of running out of memory', () => {
    expect(() => checkModel({ inFlight: 5 }, { maxStates: 1000 })).toThrow(StateLimitExceeded);
    expect(() => checkModel({ inFlight: 5 }, { maxStates: 1000 })).toThrow(/more than 1000 states/);
  });

  it('is deterministic: the same bounds give the same figures and the same trace', () => {
    const a = checkModel({ inFlight: 6 });
    const b = checkModel({ inFlight: 6 });
    expect(a.states).toBe(b.states);
    expect(counterexample(a).steps.map((s) => s.step)).toEqual(counterexample(b).steps.map((s) => s.step));
  });
});
