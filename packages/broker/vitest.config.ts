import { defineConfig } from 'vitest/config';
import { twoCoreTests } from '../../vitest.shared.ts';

export default defineConfig({
  test: { ...twoCoreTests },
});
