import { type PlannedBatch, planBatches } from './batch-plan.js';
import { checkBounds, type ModelBounds } from './bounds.js';
import { checkEnd, checkState, type Violation } from './invariants.js';
import { CORE_WINDOW, type ModelWindow } from './model-broker.js';
import { initialState, type ModelState, stateKey } from './model-state.js';
import { type Step, transitions } from './steps.js';

/** One step of a counterexample and the state it led to. */
export interface TraceStep {
  readonly step: Step;
  readonly after: ModelState;
}

/** The shortest schedule that breaks an invariant, step by step from the empty broker. */
export interface Counterexample {
  readonly steps: readonly TraceStep[];
  readonly violation: Violation;
}

export type Outcome =
  | {
      readonly holds: true;
      /** Maximal schedules: every way the run can go from the start until nothing is left to do. */
      readonly schedules: bigint;
      /** Distinct states in which a schedule ends. */
      readonly endStates: number;
      /** Steps in the longest schedule. */
      readonly longestSchedule: number;
    }
  | { readonly holds: false; readonly counterexample: Counterexample };

export interface CheckResult {
  readonly bounds: ModelBounds;
  readonly plan: readonly PlannedBatch[];
  /** Distinct states reached (each checked against every invariant). */
  readonly states: number;
  /** Steps between states (edges of the state graph). */
  readonly transitions: number;
  readonly outcome: Outcome;
}

export interface Progress {
  readonly states: number;
  readonly transitions: number;
  /** Steps from the start of the states being expanded now. */
  readonly depth: number;
}

export interface CheckOptions {
  /** The window the broker judges with (core's by default; `klog lab check` brings a learner's). */
  readonly window?: ModelWindow;
  /** Called every `progressEvery` new states, for a progress line on long runs. */
  readonly onProgress?: (progress: Progress) => void;
  readonly progressEvery?: number;
  /** Give up (throw `StateLimitExceeded`) past this many states rather than run out of memory. */
  readonly maxStates?: number;
}

export const DEFAULT_MAX_STATES = 3_000_000;

/** The bounds give more states than the run may hold: nothing was proven either way. */
export class StateLimitExceeded extends Error {
  override readonly name = 'StateLimitExceeded';
  readonly code = 'STATE_LIMIT';
  constructor(
    readonly limit: number,
    readonly depth: number,
  ) {
    super(`more than ${limit} states (at ${depth} steps from the start): narrow the bounds`);
  }
}

/** A growable Int32Array: the state graph of a large run in flat memory. */
class IntList {
  data = new Int32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
  at(i: number): number {
    return this.data[i]!;
  }
}

/**
 * Explore every schedule within `bounds`, breadth first from the empty broker.
 *
 * Reduction: schedules that reach the same state are merged (the state is kept once, by
 * `stateKey`), because what can happen next depends on the state alone. Each invariant is a
 * property of one state (or of a schedule's last state), so checking every reachable state
 * once checks every schedule; the number of schedules is then counted on the state graph, not
 * enumerated. Breadth first, the first violation found is one with the fewest steps.
 */
export function checkModel(given: Partial<ModelBounds> = {}, options: CheckOptions = {}): CheckResult {
  const bounds = checkBounds(given);
  const plan = planBatches(bounds.batches);
  const impl = options.window ?? CORE_WINDOW;
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const progressEvery = options.progressEvery ?? 100_000;

  const ids = new Map<string, number>();
  // Per state, in discovery order (which breadth first is also expansion order):
  const parent = new IntList(); // the state it was first reached from
  const via = new IntList(); // which of the parent's transitions reached it
  const depth = new IntList();
  const edgeStart = new IntList(); // where its successors begin in `edges`
  const edges = new IntList();
  const queue: (ModelState | undefined)[] = [];

  const discover = (state: ModelState, from: number, index: number, d: number): number => {
    const id = queue.length;
    ids.set(stateKey(state), id);
    parent.push(from);
    via.push(index);
    depth.push(d);
    queue.push(state);
    if (id + 1 > maxStates) throw new StateLimitExceeded(maxStates, d);
    if (options.onProgress && (id + 1) % progressEvery === 0) {
      options.onProgress({ states: id + 1, transitions: edges.length, depth: d });
    }
    return id;
  };
  const result = (outcome: Outcome): CheckResult => ({
    bounds,
    plan,
    states: queue.length,
    transitions: edges.length,
    outcome,
  });
  const fail = (id: number, violation: Violation): CheckResult =>
    result({
      holds: false,
      counterexample: { steps: trace(bounds, plan, path(parent, via, id), impl), violation },
    });

  discover(initialState(bounds, impl), -1, -1, 0);
  let endStates = 0;
  for (let id = 0; id < queue.length; id++) {
    const state = queue[id]!;
    queue[id] = undefined; // expanded states live on only as keys and edges
    edgeStart.push(edges.length);
    const next = transitions(state, bounds, plan, impl);
    if (next.length === 0) {
      endStates++;
      const violation = checkEnd(state);
      if (violation !== undefined) return fail(id, violation);
    }
    for (const [index, { next: successor }] of next.entries()) {
      const key = stateKey(successor);
      let to = ids.get(key);
      if (to === undefined) {
        to = discover(successor, id, index, depth.at(id) + 1);
        const violation = checkState(successor);
        if (violation !== undefined) {
          edges.push(to);
          return fail(to, violation);
        }
      }
      edges.push(to);
    }
  }
  edgeStart.push(edges.length);
  const { schedules, longest } = countSchedules(queue.length, edgeStart, edges);
  return result({ holds: true, schedules, endStates, longestSchedule: longest });
}

/** Transition indexes from the start to state `id`. */
function path(parent: IntList, via: IntList, id: number): number[] {
  const out: number[] = [];
  for (let at = id; parent.at(at) >= 0; at = parent.at(at)) out.push(via.at(at));
  return out.reverse();
}

/** Replay a path from the start with the real code, keeping each step and the state after it. */
function trace(
  bounds: ModelBounds,
  plan: readonly PlannedBatch[],
  indexes: readonly number[],
  impl: ModelWindow,
): TraceStep[] {
  let state = initialState(bounds, impl);
  return indexes.map((index) => {
    const t = transitions(state, bounds, plan, impl)[index]!;
    state = t.next;
    return { step: t.step, after: t.next };
  });
}

/**
 * Count maximal paths from the start, and the longest, over the state graph (depth first,
 * children before parents). Every step makes progress (a batch moves one stage on, or a loss
 * or restart is used up), so the graph has no cycle; if it ever had one, this says so.
 */
function countSchedules(
  n: number,
  edgeStart: IntList,
  edges: IntList,
): { schedules: bigint; longest: number } {
  const schedules: bigint[] = new Array(n);
  const longest = new Int32Array(n);
  const mark = new Uint8Array(n); // 0 unseen, 1 open, 2 done
  const stack = [0];
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    const from = edgeStart.at(v);
    const to = edgeStart.at(v + 1);
    if (mark[v] === 0) {
      mark[v] = 1;
      for (let e = from; e < to; e++) {
        const c = edges.at(e);
        if (mark[c] === 1) throw new Error('model: the state graph has a cycle; schedules cannot be counted');
        if (mark[c] === 0) stack.push(c);
      }
      continue;
    }
    stack.pop();
    if (mark[v] === 2) continue;
    let sum = 0n;
    let deepest = -1;
    for (let e = from; e < to; e++) {
      const c = edges.at(e);
      sum += schedules[c]!;
      deepest = Math.max(deepest, longest[c]!);
    }
    schedules[v] = to === from ? 1n : sum;
    longest[v] = deepest + 1;
    mark[v] = 2;
  }
  return { schedules: schedules[0]!, longest: longest[0]! };
}
