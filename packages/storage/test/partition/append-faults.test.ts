import { describe, expect, it, vi } from 'vitest';
import { Partition, StorageError } from '../../src/index.js';
import { buildProducerBatch } from '../../src/internals.js';
import { tempDir } from '../helpers.js';

/**
 * Issue 22, case 2: an append is one unit. A full disk (ENOSPC) or an I/O error (EIO) at any write step of
 * an append — the segment, the offset index, the time index, a roll, a producer snapshot, an fsync — either
 * leaves the batch on the log and acknowledged, or nothing of it and the log end offset where it was. The
 * workload is run once to list its write steps; then once per step with that one step failing, the
 * producer retrying a refused batch once; after a restart every acknowledged batch is on the log once, at
 * the offsets it was acknowledged at, and nothing else is.
 */
const fault = vi.hoisted(() => ({
  /** Write steps seen so far in this run, and the one (1-based) that fails; 0: none. */
  steps: 0,
  failAt: 0,
  errno: 'ENOSPC' as 'ENOSPC' | 'EIO',
  recording: false,
  /** Only the appends' steps count (not the open and close around them). */
  active: false,
  labels: [] as string[],
  paths: new Map<number, string>(),
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const kindOf = (path: string) =>
    path.endsWith('.log')
      ? 'segment'
      : path.endsWith('.timeindex') || path.endsWith('.timeindex.tmp')
        ? 'time index'
        : path.endsWith('.index') || path.endsWith('.index.tmp')
          ? 'offset index'
          : path.includes('.snapshot')
            ? 'snapshot'
            : path.endsWith('.lock')
              ? 'lock'
              : 'directory';
  const step = (call: string, path: string) => {
    if (!fault.active || (!fault.recording && fault.failAt === 0)) return;
    fault.steps++;
    if (fault.recording) fault.labels.push(`${call} ${kindOf(path)}`);
    if (fault.steps === fault.failAt) {
      throw Object.assign(new Error(`${fault.errno}: injected, ${call}`), {
        code: fault.errno,
        syscall: call,
      });
    }
  };
  const pathOf = (fd: number) => fault.paths.get(fd) ?? '?';
  const CREATE = fs.constants.O_CREAT;
  const openSync = ((path: string, flags: unknown, ...rest: unknown[]) => {
    const creates = typeof flags === 'string' ? flags.startsWith('w') : ((flags as number) & CREATE) !== 0;
    if (creates) step('create', String(path));
    const fd = (fs.openSync as (...a: unknown[]) => number)(path, flags, ...rest);
    fault.paths.set(fd, String(path));
    return fd;
  }) as typeof fs.openSync;
  const wrap =
    <A extends unknown[], R>(call: string, f: (fd: number, ...a: A) => R) =>
    (fd: number, ...a: A): R => {
      step(call, pathOf(fd));
      return f(fd, ...a);
    };
  const writeSync = wrap(
    'write',
    fs.writeSync as (fd: number, ...a: unknown[]) => number,
  ) as typeof fs.writeSync;
  const writevSync = wrap(
    'writev',
    fs.writevSync as (fd: number, ...a: unknown[]) => number,
  ) as typeof fs.writevSync;
  const fsyncSync = wrap('fsync', fs.fsyncSync) as typeof fs.fsyncSync;
  const ftruncateSync = wrap(
    'ftruncate',
    fs.ftruncateSync as (fd: number, ...a: unknown[]) => void,
  ) as typeof fs.ftruncateSync;
  const renameSync = ((from: string, to: string) => {
    step('rename', String(to));
    return fs.renameSync(from, to);
  }) as typeof fs.renameSync;
  const replaced = { openSync, writeSync, writevSync, fsyncSync, ftruncateSync, renameSync };
  return { ...fs, ...replaced, default: { ...fs, ...replaced } };
});

const PRODUCER = { producerId: 7, producerEpoch: 0 };
/** Batches of 4 records of ~1 KiB: each past the index interval (4096 bytes), so each makes an index entry. */
const RECORDS_PER_BATCH = 4;
const BATCHES = 700;
/** One roll, after the active segment's index has written a page of entries (512) to its files. */
const CONFIG = { segmentBytes: 2_400_000, flush: { everyMessages: 400 } } as const;

function batchBytes(n: number): Buffer {
  const records = Array.from({ length: RECORDS_PER_BATCH }, (_, r) => ({
    key: Buffer.from(`b${n}-r${r}`),
    value: Buffer.alloc(1024, 97 + ((n + r) % 26)),
  }));
  return buildProducerBatch(records, 0, 1_700_000_000_000 + n, {
    ...PRODUCER,
    baseSequence: n * RECORDS_PER_BATCH,
  });
}

/** The workload: each batch sent, and sent once more if refused; what was acknowledged, at which offset. */
function workload(dataDir: string): { acked: Map<number, number>; refused: number } {
  const p = Partition.open(dataDir, 'faults', 0, CONFIG, { producerSnapshots: true });
  const acked = new Map<number, number>();
  let refused = 0;
  try {
    for (let n = 0; n < BATCHES; n++) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const bytes = batchBytes(n);
        try {
          fault.active = true;
          const result = p.appendProducerBatch(bytes);
          if (result.kind !== 'Append' && result.kind !== 'Duplicate')
            throw new Error(`batch ${n}: ${result.kind}`);
          acked.set(n, result.firstOffset);
          break;
        } catch (error) {
          if (!(error instanceof StorageError)) throw error;
          expect(error.code).toBe('KAFKA_STORAGE_ERROR');
          refused++;
        } finally {
          fault.active = false;
        }
      }
    }
  } finally {
    p.close();
  }
  return { acked, refused };
}

/** After a restart: the batch number and first offset of every batch on the log, in order, and the log end offset. */
function onDisk(dataDir: string): { batches: [number, number][]; logEndOffset: number; next: string } {
  const p = Partition.open(dataDir, 'faults', 0, CONFIG, { producerSnapshots: true });
  try {
    const batches: [number, number][] = [];
    for (let offset = p.logStartOffset; offset < p.logEndOffset; ) {
      for (const batch of p.log.readCheckedBatches(offset, 1)) {
        const n = Number(/^b(\d+)-r0$/.exec(Buffer.from(batch.records[0]!.key!).toString())![1]);
        batches.push([n, batch.baseOffset]);
        offset = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
    }
    // The producer's next batch is accepted where it belongs: the window survived the restart.
    const next = p.appendProducerBatch(batchBytes(BATCHES)).kind;
    return { batches, logEndOffset: p.logEndOffset - RECORDS_PER_BATCH, next };
  } finally {
    p.close();
  }
}

describe('an append is one unit: a fault at any write step leaves it whole on the log or not there at all', () => {
  it('ENOSPC or EIO at each write step of the workload: after a restart each acknowledged batch is there once', {
    timeout: 600_000,
  }, () => {
    fault.recording = true;
    fault.steps = 0;
    fault.labels = [];
    const clean = workload(tempDir());
    fault.recording = false;
    expect(clean.refused).toBe(0);
    expect(clean.acked.size).toBe(BATCHES);
    const labels = fault.labels;
    // Every kind of write step the issue names happens in the workload.
    const kinds = new Set(labels);
    for (const k of [
      'write segment',
      'write offset index',
      'write time index',
      'create segment',
      'fsync directory',
      'create snapshot',
      'fsync segment',
    ]) {
      expect(kinds, k).toContain(k);
    }
    // Each step that is not a plain segment write fails in a run of its own; segment writes, one in 40.
    const cases = labels.flatMap((label, i) => (label !== 'write segment' || i % 40 === 0 ? [i + 1] : []));
    const faulted = new Set<string>();
    for (const [c, at] of cases.entries()) {
      const dataDir = tempDir();
      fault.steps = 0;
      fault.failAt = at;
      fault.errno = c % 2 === 0 ? 'ENOSPC' : 'EIO';
      let result: ReturnType<typeof workload>;
      try {
        result = workload(dataDir);
      } finally {
        fault.failAt = 0;
      }
      const what = `${fault.errno} at step ${at} (${labels[at - 1]})`;
      if (result.refused > 0) faulted.add(labels[at - 1]!);
      const disk = onDisk(dataDir);
      const expected = [...result.acked].sort((a, b) => a[1] - b[1]);
      expect(disk.batches, what).toEqual(expected);
      expect(disk.logEndOffset, what).toBe(result.acked.size * RECORDS_PER_BATCH);
      expect(disk.next, what).toBe('Append');
    }
    // The injected faults reached the append as refusals at every kind of step (not all swallowed).
    expect([...faulted].sort()).toEqual(
      expect.arrayContaining(['write segment', 'fsync segment', 'create segment', 'create snapshot']),
    );
  });
});
