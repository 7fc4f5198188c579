import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { WindowModule } from '@klog/core';
import type { createJiti as CreateJiti } from 'jiti';
import { LabFileError } from './lab-file-error.js';

export { LabFileError };

/** What a lab file must export: @klog/core's WindowModule, one name each. */
export const WINDOW_EXPORTS = [
  'incrementSequence',
  'ProducerStateEntry',
  'judge',
  'appendBatch',
  'addBatchFromHeader',
] as const satisfies readonly (keyof WindowModule)[];

/**
 * Load a learner's TypeScript file as it is, with no build step: jiti transpiles it on load. The file
 * imports `@klog/core`, which resolves to the copy klog itself runs (the learner's folder needs no
 * node_modules), and a fresh copy of the file is loaded each time.
 */
export function loadWindowFile(file: string): WindowModule {
  const path = resolve(file);
  // The absolute path says both what was looked for and in which folder: `pnpm klog` and a shell's cwd differ.
  if (!existsSync(path)) {
    throw new LabFileError(`${file}: ไม่มี file นี้ (หาที่ ${path}; klog lab init <folder> เขียน lab.ts ให้)`);
  }
  const require = createRequire(import.meta.url);
  // Required here, on the thread that loads the file, not where klog starts: jiti asks at load whether
  // stderr has colours, and Node warns when NO_COLOR and FORCE_COLOR are both set (the worker has neither).
  const { createJiti } = require('jiti') as { createJiti: typeof CreateJiti };
  const jiti = createJiti(import.meta.url, {
    alias: { '@klog/core': require.resolve('@klog/core') },
    fsCache: false,
    moduleCache: false,
  });
  let loaded: Record<string, unknown>;
  try {
    loaded = jiti(path) as Record<string, unknown>;
  } catch (error) {
    throw new LabFileError(`${file} did not load: ${firstLine(error)}`);
  }
  for (const name of WINDOW_EXPORTS) {
    if (typeof loaded[name] !== 'function') {
      throw new LabFileError(
        `${file} exports no ${name}: the lab calls it (klog lab init shows every export)`,
      );
    }
  }
  return loaded as unknown as WindowModule;
}

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]!.trim();
}
