// Test settings every package shares, sized for CI: a clean 2-core machine that may be busy with other
// work (turbo runs two packages' tests at once). No test may depend on how fast the machine is, so
// timeouts are a wide margin over the work, never a performance target; budgets are counts.
import type { ViteUserConfig } from 'vitest/config';

/** A unit test that takes a second alone may take ten on a loaded machine: time out only on a hang. */
export const UNIT_TIMEOUT_MS = 60_000;
/** Suites that spawn processes, fuzz thousands of inputs or drive a browser: sized per test, wider still. */
export const LONG_TIMEOUT_MS = 300_000;

export const twoCoreTests: NonNullable<ViteUserConfig['test']> = {
  testTimeout: UNIT_TIMEOUT_MS,
  hookTimeout: UNIT_TIMEOUT_MS,
  teardownTimeout: UNIT_TIMEOUT_MS,
  // Two test files at a time per package; turbo runs at most two packages' tests at once (package.json).
  maxWorkers: 2,
};
