import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Exhaustive searches: bounded by state counts, but a loaded two-core machine is slow.
    testTimeout: 120_000,
  },
});
