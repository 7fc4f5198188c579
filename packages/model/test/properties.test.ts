import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBounds,
  checkEnd,
  checkModel,
  checkState,
  initialState,
  type ModelBounds,
  type ModelState,
  planBatches,
  stateKey,
  transitions,
} from '../src/index.js';

const small = fc.record({
  window: fc.integer({ min: 1, max: 5 }),
  inFlight: fc.integer({ min: 1, max: 7 }),
  batches: fc.integer({ min: 1, max: 6 }),
  losses: fc.integer({ min: 0, max: 1 }),
  restarts: fc.integer({ min: 0, max: 1 }),
});

/** Follow `choices` through the transition relation until the schedule ends (or breaks). */
function walk(
  bounds: ModelBounds,
  choices: readonly number[],
  visit: (state: ModelState, next: ModelState[]) => void,
): ModelState {
  const plan = planBatches(bounds.batches);
  let state = initialState(bounds);
  for (let i = 0; ; i++) {
    const next = transitions(state, bounds, plan);
    visit(
      state,
      next.map((t) => t.next),
    );
    if (next.length === 0) return state;
    state = next[(choices[i % Math.max(choices.length, 1)] ?? 0) % next.length]!.next;
  }
}

describe('properties over random bounds and schedules', () => {
  it('the window law: a schedule breaks exactly when more than the window can be in flight and resent', () => {
    fc.assert(
      fc.property(small, (given) => {
        const result = checkModel(given);
        const { inFlight, window, batches, losses, restarts } = result.bounds;
        // To lose a written batch from the window, window + 1 batches must be written while it is
        // unanswered (so in flight and in the plan), and something must make the producer resend.
        const canBreak = inFlight > window && batches > window && losses + restarts > 0;
        expect(result.outcome.holds).toBe(!canBreak);
        if (!result.outcome.holds) {
          expect(result.outcome.counterexample.violation.kind).toBe('written-but-failed');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('one state key, one future: states merged by key allow the same steps to the same states', () => {
    const futures = new Map<string, string>();
    fc.assert(
      fc.property(
        fc.record({
          inFlight: fc.integer({ min: 1, max: 6 }),
          batches: fc.integer({ min: 1, max: 7 }),
          losses: fc.integer({ min: 0, max: 2 }),
          restarts: fc.integer({ min: 0, max: 1 }),
          segmentBatches: fc.integer({ min: 0, max: 2 }),
        }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
        (given, choices) => {
          const bounds = checkBounds(given);
          const tag = JSON.stringify(bounds);
          walk(bounds, choices, (state, next) => {
            const key = `${tag}#${stateKey(state)}`;
            const future = next.map(stateKey).join('\n');
            const seen = futures.get(key);
            if (seen === undefined) futures.set(key, future);
            else expect(future).toBe(seen);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random schedules with in-flight within the window keep every invariant, to the end', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 200 }),
        (inFlight, batches, losses, restarts, choices) => {
          const bounds = checkBounds({ inFlight, batches, losses, restarts });
          const end = walk(bounds, choices, (state) => expect(checkState(state)).toBeUndefined());
          expect(checkEnd(end)).toBeUndefined();
          // Every batch acked, at the offsets the log holds it.
          expect(end.producer.every((s) => s.kind === 'acked')).toBe(true);
          expect(end.broker.log.map((b) => b.batch)).toEqual(end.producer.map((_, i) => i));
        },
      ),
      { numRuns: 300 },
    );
  });
});
