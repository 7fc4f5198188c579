import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TOPIC_NAME_LENGTH,
  Partition,
  partitionDirName,
  StorageError,
  validatePartitionNumber,
  validateTopicName,
} from '../../src/internals.js';
import { tempDir, thrown } from '../helpers.js';

const refusal = (fn: () => unknown) => thrown(StorageError, fn);

/** Names that try to leave the data directory, or only look like legal ones. */
const HOSTILE: readonly string[] = [
  '',
  '.',
  '..',
  '../x',
  '../../etc/passwd',
  '/etc',
  '/tmp/abs',
  'a/b',
  'a\\b',
  '..\\..\\windows',
  'C:\\x',
  'C:',
  '~',
  '%2e%2e',
  'a\0b',
  '\0',
  'orders\0/../../x',
  'a b',
  'a\nb',
  'tab\there',
  'x'.repeat(MAX_TOPIC_NAME_LENGTH + 1),
  '.'.repeat(MAX_TOPIC_NAME_LENGTH + 1),
  'ไทย',
  '\u043erders', // Cyrillic о
  '\uff0e\uff0e', // fullwidth full stops
  '\u2024\u2024', // one dot leader
  'a\u2215b', // division slash
  'a\u2044b', // fraction slash
  'a\uff0fb', // fullwidth solidus
  'orders\u200b', // zero-width space
  '\u202eorders', // right-to-left override
  '.\u0307', // dot + combining dot above
  'e\u0301', // combining accent
  '\ud83d\ude00', // an emoji
  '\ud800', // a lone surrogate
];

describe('topic names, as Kafka validates them (Topic.validate)', () => {
  it('accepts Kafka-legal names, up to 249 characters', () => {
    for (const t of ['orders', 'a.b_c-D9', '...', '-', '_', 'x'.repeat(MAX_TOPIC_NAME_LENGTH)]) {
      expect(validateTopicName(t)).toBe(t);
      const dir = tempDir();
      const p = Partition.open(dir, t, 0);
      // The partition's directory, and the data directory's lock (shared while a partition is open on its own).
      expect(readdirSync(dir).sort()).toEqual(['.lock', `${t}-0`].sort());
      p.close();
    }
  });

  it('refuses every hostile name before touching the filesystem, with a one-line message', () => {
    const dataDir = join(tempDir(), 'not-created-yet');
    for (const t of HOSTILE) {
      const error = refusal(() => Partition.open(dataDir, t, 0));
      expect(error.message).not.toMatch(/[\n\r\0]/);
      expect(error.message.length).toBeLessThan(200);
      // Nothing was created: not the data directory, not anything outside it.
      expect(existsSync(dataDir)).toBe(false);
    }
    expect(refusal(() => validateTopicName('a\nb')).message).toContain('"a\\nb"');
    expect(refusal(() => validateTopicName('\u043erders')).message).toContain('"\\u043erders"');
  });

  it('refuses bad partition numbers, and names too long for a filesystem', () => {
    for (const n of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, Number.MAX_SAFE_INTEGER + 2]) {
      expect(refusal(() => validatePartitionNumber(n)).message).toMatch(/partition must be an integer/);
    }
    expect(validatePartitionNumber(2 ** 31 - 1)).toBe(2 ** 31 - 1);
    const dataDir = join(tempDir(), 'none');
    expect(refusal(() => Partition.open(dataDir, 'x'.repeat(249), 2 ** 31 - 1)).message).toMatch(
      /260 characters .* longer than the 255/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('property: any string either is refused or names one new entry inside the data directory', () => {
    const dataDir = resolve(tempDir());
    const names = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({
        unit: fc.constantFrom('.', '/', '\\', '\0', 'a', '-', '_', '\u2024', '\uff0e'),
        maxLength: 12,
      }),
      fc.stringMatching(/^[a-zA-Z0-9._-]{1,260}$/),
    );
    fc.assert(
      fc.property(names, fc.integer({ min: -2, max: 2 ** 31 }), (topic, partition) => {
        let name: string;
        try {
          name = partitionDirName(topic, partition);
        } catch (error) {
          expect(error).toBeInstanceOf(StorageError);
          return;
        }
        expect(topic).toMatch(/^[a-zA-Z0-9._-]{1,249}$/);
        expect(basename(name)).toBe(name);
        const path = resolve(dataDir, name);
        expect(dirname(path)).toBe(dataDir);
        expect(path.startsWith(dataDir + sep)).toBe(true);
        expect(name.length).toBeLessThanOrEqual(255);
      }),
      { numRuns: 2000 },
    );
  });
});
