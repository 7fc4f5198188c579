import { existsSync, rmSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { CheckFailed } from '../../src/errors.js';
import { runIdemDemo } from '../../src/idem-demo/run.js';
import { createStyle } from '../../src/style.js';

/**
 * A broken broker: this appendIdempotent writes every batch, duplicates included.
 * The demo must notice, because it checks the log end offset and the bytes on disk
 * instead of trusting the verdict.
 */
vi.mock('@klog/storage', async (importOriginal) => {
  const real = await importOriginal<typeof import('@klog/storage')>();
  const broken: typeof real.appendIdempotent = (partition, batch) => {
    const verdict = real.appendIdempotent(partition, batch);
    if (verdict.kind === 'Duplicate') real.appendRecords(partition, batch.records, batch.nowMs);
    return verdict;
  };
  return { ...real, appendIdempotent: broken };
});

describe('the demo checks its claims while it runs', () => {
  it('a duplicate that reached the disk fails the run with expected and actual', () => {
    const lines: string[] = [];
    const opts = { pid: 1000, firstSeq: 7, lastSeq: 9, resend: true, nowMs: 0, dataDir: undefined };
    let failure: unknown;
    try {
      runIdemDemo(opts, (l) => lines.push(l), createStyle(false));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(CheckFailed);
    const failed = failure as CheckFailed;
    expect(failed.claim).toBe('a resend: the log end offset did not move');
    expect(failed.expected).toBe('10');
    expect(failed.actual).toBe('13');
    // The failed run keeps its partitions for a person to inspect; the test removes them when it has looked.
    expect(failed.keptAt).toMatch(/klog-idem-demo-/);
    expect(existsSync(failed.keptAt!)).toBe(true);
    rmSync(failed.keptAt!, { recursive: true, force: true });
    // It stopped before printing the claim that did not hold.
    expect(lines.join('\n')).not.toMatch(/DUPLICATE/);
  });
});
