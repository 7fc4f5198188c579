import {
  checkBounds,
  checkEnd,
  checkState,
  initialState,
  type ModelBounds,
  type ModelState,
  planBatches,
  stateKey,
  transitions,
} from '../src/index.js';

/**
 * Every schedule, one by one, with no merging of states: the slow, obviously exhaustive
 * search the checker's reduction must agree with. Small bounds only.
 */
export function bruteForce(given: Partial<ModelBounds>): {
  schedules: bigint;
  violations: number;
  shortestViolation: number | undefined;
  keys: Set<string>;
} {
  const bounds = checkBounds(given);
  const plan = planBatches(bounds.batches);
  let schedules = 0n;
  let violations = 0;
  let shortestViolation: number | undefined;
  const keys = new Set<string>();
  const found = (depth: number) => {
    violations++;
    shortestViolation = Math.min(shortestViolation ?? depth, depth);
  };
  const stack: [ModelState, number][] = [[initialState(bounds), 0]];
  while (stack.length > 0) {
    const [state, depth] = stack.pop()!;
    keys.add(stateKey(state));
    if (checkState(state) !== undefined) {
      found(depth);
      continue; // a schedule ends where it breaks, as in the checker
    }
    const next = transitions(state, bounds, plan);
    if (next.length === 0) {
      schedules++;
      if (checkEnd(state) !== undefined) found(depth);
    }
    for (const t of next) stack.push([t.next, depth + 1]);
  }
  return { schedules, violations, shortestViolation, keys };
}

/** The keys of every reachable state, breadth first with merging, stopping at none. */
export function reachableKeys(given: Partial<ModelBounds>): Set<string> {
  const bounds = checkBounds(given);
  const plan = planBatches(bounds.batches);
  const seen = new Set<string>();
  const queue = [initialState(bounds)];
  seen.add(stateKey(queue[0]!));
  for (let i = 0; i < queue.length; i++) {
    for (const { next } of transitions(queue[i]!, bounds, plan)) {
      const key = stateKey(next);
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(next);
      }
    }
  }
  return seen;
}
