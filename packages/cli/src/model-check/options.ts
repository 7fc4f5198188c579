import { BOUND_LIMITS, BoundsError, checkBounds, DEFAULT_MAX_STATES, type ModelBounds } from '@klog/model';
import { UsageError } from '../errors.js';

/** The flag that sets each bound, for messages that name what the user typed. */
export const BOUND_FLAGS: { readonly [K in keyof ModelBounds]: string } = {
  inFlight: '--in-flight',
  batches: '--batches',
  losses: '--losses',
  restarts: '--restarts',
  segmentBatches: '--segment-batches',
  window: '--window',
};

export const MAX_STATES_LIMIT = 20_000_000;

export interface ModelCheckOptions {
  readonly bounds: ModelBounds;
  readonly maxStates: number;
  readonly progress: boolean;
}

export type RawModelCheckFlags = { readonly [K in keyof ModelBounds]?: string } & {
  readonly maxStates?: string;
  readonly progress?: boolean;
};

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${text}: expected a whole number from ${min} to ${max}`);
  }
  return n;
}

/** Read the flags into checked bounds; a bad one is a one-line usage error naming the flag. */
export function parseModelCheckFlags(raw: RawModelCheckFlags): ModelCheckOptions {
  const given: Partial<Record<keyof ModelBounds, number>> = {};
  for (const field of Object.keys(BOUND_FLAGS) as (keyof ModelBounds)[]) {
    const text = raw[field];
    if (text === undefined) continue;
    const { min, max } = BOUND_LIMITS[field];
    given[field] = wholeNumber(BOUND_FLAGS[field], text, min, max);
  }
  let bounds: ModelBounds;
  try {
    bounds = checkBounds(given);
  } catch (error) {
    if (error instanceof BoundsError) {
      throw new UsageError(`${BOUND_FLAGS[error.field]} ${String(error.value)}: ${error.message}`);
    }
    throw error;
  }
  return {
    bounds,
    maxStates:
      raw.maxStates === undefined
        ? DEFAULT_MAX_STATES
        : wholeNumber('--max-states', raw.maxStates, 1, MAX_STATES_LIMIT),
    progress: raw.progress === true,
  };
}
