import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Property tests and the short fuzz run: generous on a busy 2-core machine.
    testTimeout: 60_000,
  },
});
