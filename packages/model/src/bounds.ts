import { NUM_BATCHES_TO_RETAIN } from '@klog/core';

/**
 * How far the checker looks. Every schedule within these bounds is explored; nothing
 * beyond them is claimed (see the package README: what the bounds prove and what they do not).
 */
export interface ModelBounds {
  /** The producer's `max.in.flight.requests.per.connection`: batches sent and not yet answered. */
  readonly inFlight: number;
  /** Batches the producer sends, one after another, in one session. */
  readonly batches: number;
  /** Times the connection may break, losing whatever requests and acks are on it. */
  readonly losses: number;
  /** Times the broker may restart and rebuild its producer state from the active segment. */
  readonly restarts: number;
  /** Batches a segment holds before the log rolls a new one; 0: it never rolls within the bounds. */
  readonly segmentBatches: number;
  /**
   * The broker's window, in batches. Core's `NUM_BATCHES_TO_RETAIN` unless a test asks for a
   * smaller one (a mutation, to show the checker can fail); the model trims core's real entry to it.
   */
  readonly window: number;
}

export const DEFAULT_BOUNDS: ModelBounds = Object.freeze({
  inFlight: NUM_BATCHES_TO_RETAIN,
  batches: 8,
  losses: 2,
  restarts: 1,
  segmentBatches: 0,
  window: NUM_BATCHES_TO_RETAIN,
});

/** What each bound may be: large enough to say something, small enough to finish. */
export const BOUND_LIMITS: {
  readonly [K in keyof ModelBounds]: { readonly min: number; readonly max: number };
} = Object.freeze({
  inFlight: { min: 1, max: 8 },
  batches: { min: 1, max: 12 },
  losses: { min: 0, max: 4 },
  restarts: { min: 0, max: 3 },
  segmentBatches: { min: 0, max: 12 },
  // Core's entry never holds more than NUM_BATCHES_TO_RETAIN; the model can only narrow it.
  window: { min: 1, max: NUM_BATCHES_TO_RETAIN },
});

/** A bound outside its limits; `code` lets a caller map it to a usage error. */
export class BoundsError extends RangeError {
  override readonly name = 'BoundsError';
  readonly code = 'INVALID_BOUND';
  constructor(
    readonly field: keyof ModelBounds,
    readonly value: unknown,
    readonly min: number,
    readonly max: number,
  ) {
    super(`${field} must be a whole number from ${min} to ${max}, got ${String(value)}`);
  }
}

/** Fill in defaults and check every bound; throws `BoundsError` naming the first bad one. */
export function checkBounds(given: Partial<ModelBounds> = {}): ModelBounds {
  const bounds = { ...DEFAULT_BOUNDS, ...given };
  for (const field of Object.keys(BOUND_LIMITS) as (keyof ModelBounds)[]) {
    const value = bounds[field];
    const { min, max } = BOUND_LIMITS[field];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new BoundsError(field, value, min, max);
    }
  }
  return Object.freeze(bounds);
}
