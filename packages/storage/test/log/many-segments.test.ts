import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildPlainBatch, segmentFileName } from '../../src/internals.js';
import { LONG_TEST, NOW, records, tempDir } from '../helpers.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/read-all.mjs');

describe('a log with more segments than the process may open files', () => {
  it(
    'opens and reads every segment under ulimit -n 128, holding a bounded number of files',
    LONG_TEST,
    () => {
      const dataDir = tempDir();
      const dir = join(dataDir, 'many-0');
      mkdirSync(dir);
      const segments = 1500;
      for (let i = 0; i < segments; i++)
        writeFileSync(join(dir, segmentFileName(i)), buildPlainBatch(records(1), i, NOW));
      const output = execFileSync(
        'bash',
        ['-c', `ulimit -n 128 && exec "${process.execPath}" "${fixture}" "${dataDir}" many`],
        {
          encoding: 'utf8',
        },
      );
      const seen = JSON.parse(output) as { segments: number; batches: number; most: number; after: number };
      expect(seen.segments).toBe(segments);
      expect(seen.batches).toBe(segments);
      // Node's own descriptors, the lock, the active segment, and the cache of 64.
      expect(seen.most).toBeLessThan(128);
    },
  );
});
