import { defineConfig } from 'vitest/config';
import { LONG_TIMEOUT_MS, twoCoreTests } from '../../vitest.shared.ts';

export default defineConfig({
  test: {
    ...twoCoreTests,
    include: ['test/**/*.test.ts'],
    // The checker tests spawn the CLI and the browser test drives Chromium: one file at a time.
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: LONG_TIMEOUT_MS,
    hookTimeout: LONG_TIMEOUT_MS,
  },
});
