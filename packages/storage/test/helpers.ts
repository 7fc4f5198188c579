import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Log, Partition, RecordInput } from '../src/internals.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'klog-storage-'));
  dirs.push(dir);
  return dir;
}

/**
 * The files of a partition directory that hold data, sorted: without its lock file
 * (`.lock`, which every open writes) and the derived files a clean close writes
 * (`.index`, `.timeindex`, `.snapshot`: rebuilt from the segments when missing).
 */
export function logFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name !== '.lock' && !/\.(index|timeindex|snapshot)$/.test(name))
    .sort();
}

/** Name and SHA-256 of every file in `dir` but the lock: equal before and after means not a byte changed. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of logFiles(dir)) {
    out[name] = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
  }
  return out;
}

export function records(n: number, tag = 'r'): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`${tag}-key-${i}`),
    value: Buffer.from(`${tag}-value-${i}`),
  }));
}

export const NOW = 1_700_000_000_000;

/** The error of class `kind` that `fn` throws; fails the test if it throws nothing or something else. */
export function thrown<E extends Error>(kind: new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof kind) return error;
    throw new Error(`expected a ${kind.name}, got ${String(error)}`);
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`);
}

/**
 * For tests whose work is large by design (kill -9 rounds, thousands of fuzz inputs, a flip of every
 * bit): a timeout far above what they take alone, so a busy 2-core machine slows them but never fails them.
 */
export const LONG_TEST = { timeout: 300_000 } as const;

/**
 * A partition's log with its writes. `Partition.log` hands out reads only (a partition's
 * writes go through `Partition.append`, under the producer windows); a test that writes raw
 * batches past the windows, or flushes or swaps segments itself, does so on purpose, here.
 */
export function writableLog(p: Partition): Log {
  return p.log as Log;
}
