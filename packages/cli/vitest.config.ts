import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The golden and bad-input tests spawn the built binary.
    testTimeout: 30_000,
  },
});
