import { isDeepStrictEqual } from 'node:util';
import { CheckFailed } from './errors.js';

/** Assert a claim the demo is about to print; a mismatch ends the run with exit code 1. */
export function check(claim: string, expected: unknown, actual: unknown): void {
  if (!isDeepStrictEqual(expected, actual)) {
    throw new CheckFailed(claim, JSON.stringify(expected), JSON.stringify(actual));
  }
}
