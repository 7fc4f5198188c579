import type { StageTrace } from './lab-history.js';
import type { StageFailure } from './verdict-rows.js';

/** What the check's worker tells the main thread, stage by stage. */
export type WorkerReport =
  | { readonly kind: 'load-error'; readonly message: string }
  | { readonly kind: 'names'; readonly names: readonly string[] }
  | { readonly kind: 'start'; readonly index: number }
  | { readonly kind: 'pass'; readonly index: number }
  | {
      readonly kind: 'fail';
      readonly index: number;
      readonly failure: StageFailure;
      /** What the stage sent and wrote up to the failure, for the simulator's timeline. */
      readonly trace: StageTrace;
    }
  | { readonly kind: 'threw'; readonly index: number; readonly fn: string; readonly message: string }
  | { readonly kind: 'error'; readonly index: number; readonly message: string }
  | { readonly kind: 'done' };

/** How a check ended: every stage passed, or the first that did not and why. */
export type CheckOutcome =
  | { readonly kind: 'passed'; readonly passed: number }
  | {
      readonly kind: 'failed';
      /** Index of the stage that failed. */
      readonly index: number;
      readonly passed: number;
      readonly why:
        | { readonly kind: 'verdict'; readonly failure: StageFailure; readonly trace: StageTrace }
        | { readonly kind: 'threw'; readonly fn: string; readonly message: string }
        | { readonly kind: 'hung'; readonly fn: string; readonly ms: number }
        | { readonly kind: 'error'; readonly message: string };
    };
