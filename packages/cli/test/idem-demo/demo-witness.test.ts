import { rmSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { CheckFailed } from '../../src/errors.js';
import { runIdemDemo } from '../../src/idem-demo/run.js';
import { createStyle } from '../../src/style.js';

/**
 * The demo's checks, each against a witness of its own: break the thing a check guards, and the run
 * must fail on that very claim. The breakage is switched on per test.
 */
const broken = vi.hoisted(() => ({ windowKeeps: 0, hwOffBy: 0 }));

vi.mock('@klog/core', async (importOriginal) => {
  const real = await importOriginal<typeof import('@klog/core')>();
  // A window that evicts too early: it keeps `windowKeeps` batches instead of five.
  const record = real.ProducerStateEntry.prototype.record;
  real.ProducerStateEntry.prototype.record = function (
    this: InstanceType<typeof real.ProducerStateEntry>,
    batch,
  ) {
    record.call(this, batch);
    const batches = this.batches as unknown as unknown[];
    while (broken.windowKeeps > 0 && batches.length > broken.windowKeeps) batches.shift();
  };
  return real;
});

vi.mock('@klog/storage', async (importOriginal) => {
  const real = await importOriginal<typeof import('@klog/storage')>();
  // A high watermark that is not the log end offset.
  const hw = Object.getOwnPropertyDescriptor(real.Partition.prototype, 'highWatermark')!;
  Object.defineProperty(real.Partition.prototype, 'highWatermark', {
    get(this: import('@klog/storage').Partition) {
      return (hw.get!.call(this) as number) + broken.hwOffBy;
    },
  });
  return real;
});

function failure(): CheckFailed {
  const opts = { pid: 1000, firstSeq: 7, lastSeq: 9, resend: true, nowMs: 0, dataDir: undefined };
  try {
    runIdemDemo(opts, () => {}, createStyle(false));
  } catch (error) {
    if (!(error instanceof CheckFailed)) throw error;
    rmSync(error.keptAt!, { recursive: true, force: true });
    return error;
  }
  throw new Error('the run passed every check');
}

describe('each claim of the demo is checked against a witness, not against itself', () => {
  it('a window that forgets too early differs from the last five batches read back from disk', () => {
    broken.windowKeeps = 4;
    try {
      const failed = failure();
      expect(failed.claim).toBe('after 7..9 the window is the last batches on disk');
      expect(JSON.parse(failed.expected)).toEqual(['0..1', '2..3', '4..5', '6..6', '7..9']);
      expect(JSON.parse(failed.actual)).toEqual(['2..3', '4..5', '6..6', '7..9']);
    } finally {
      broken.windowKeeps = 0;
    }
  });

  it('a high watermark that is not the log end offset is caught', () => {
    broken.hwOffBy = -1;
    try {
      const failed = failure();
      expect(failed.claim).toBe('HW is LEO on a single node');
    } finally {
      broken.hwOffBy = 0;
    }
  });

  it('unbroken, the run passes every check', () => {
    const lines: string[] = [];
    runIdemDemo(
      { pid: 1000, firstSeq: 7, lastSeq: 9, resend: true, nowMs: 0, dataDir: undefined },
      (l) => lines.push(l),
      createStyle(false),
    );
    expect(lines.join('\n')).toContain('LEO = HW = 18');
  });
});
