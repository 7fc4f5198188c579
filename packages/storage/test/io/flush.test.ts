import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  DEFAULT_LOG_CONFIG,
  type FlushPolicy,
  Log,
  Partition,
} from '../../src/internals.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * Every fsync the package makes, observed at the system call's door: node:fs's `fsyncSync` itself, wrapped
 * for the storage sources, with the file each descriptor was open on (read from /proc/self/fd before the
 * call returns). A flush that stopped syncing, or synced the wrong file, shows here; a count of calls to
 * some method of ours would not.
 */
const synced = vi.hoisted(() => ({ paths: [] as string[], recording: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fsyncSync: typeof fs.fsyncSync = (fd) => {
    if (synced.recording) synced.paths.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
    fs.fsyncSync(fd);
  };
  return { ...fs, default: { ...fs, fsyncSync }, fsyncSync };
});

afterEach(() => {
  synced.recording = false;
  synced.paths.length = 0;
});

/** Start recording fsyncs; the list grows with each one (file paths, in order). */
function countFsyncs(): string[] {
  synced.paths.length = 0;
  synced.recording = true;
  return synced.paths;
}

/** The segment files among `paths` (directory fsyncs after a roll or create are not segment syncs). */
function segmentSyncs(paths: readonly string[]): string[] {
  return paths.filter((p) => p.endsWith('.log')).map((p) => basename(p));
}

function open(flush: FlushPolicy, segmentBytes = DEFAULT_LOG_CONFIG.segmentBytes): Partition {
  return Partition.open(tempDir(), 'orders', 0, { flush, segmentBytes });
}

describe('the flush policy (Kafka flush.messages)', () => {
  it("is 'os' by default, as in Kafka", () => {
    expect(DEFAULT_LOG_CONFIG.flush).toBe('os');
    const p = Partition.open(tempDir(), 'orders', 0);
    expect(p.log.config.flush).toBe('os');
    p.close();
  });

  it("'every-append' fsyncs each batch before the append returns", () => {
    const p = open('every-append');
    const fsyncs = countFsyncs();
    for (let i = 1; i <= 5; i++) {
      appendRecords(p, records(2), NOW);
      expect(segmentSyncs(fsyncs)).toEqual(Array(i).fill('00000000000000000000.log'));
    }
    p.close();
  });

  it('{ everyMessages: 3 } fsyncs once 3 records have come since the last fsync', () => {
    const p = open({ everyMessages: 3 });
    const fsyncs = countFsyncs();
    const after = [2, 2, 1, 5, 1, 1, 1].map((n) => {
      appendRecords(p, records(n), NOW);
      return segmentSyncs(fsyncs).length;
    });
    // 2 → 4 (fsync) · 1 → 1+5 (fsync) · 1 · 1 → 3 (fsync)
    expect(after).toEqual([0, 1, 1, 2, 2, 2, 3]);
    p.close();
  });

  it("'os' never fsyncs an append; close and each roll still do", () => {
    const one = buildPlainBatch(records(1), 0, NOW).length;
    const p = open('os', 2 * one);
    const fsyncs = countFsyncs();
    appendRecords(p, records(1), NOW);
    appendRecords(p, records(1), NOW);
    expect(fsyncs).toEqual([]);
    appendRecords(p, records(1), NOW); // rolls: the full segment is fsynced before the next is created
    expect(p.log.segments).toHaveLength(2);
    const second = basename(p.log.segments[1]!.path);
    // The full segment, then the directory that now lists the new one (and, between them, the full
    // segment's index files, written trimmed when it stops being active).
    expect(fsyncs.filter((f) => !/\.(index|timeindex)(\.tmp)?$/.test(f))).toEqual([
      p.log.segments[0]!.path,
      p.dir,
    ]);
    expect(fsyncs.filter((f) => /\.(index|timeindex)\.tmp$/.test(f))).toHaveLength(2);
    p.close();
    expect(segmentSyncs(fsyncs)).toEqual(['00000000000000000000.log', second]);
  });

  it('refuses a policy it does not know instead of never flushing', () => {
    const dir = join(tempDir(), 'x-0');
    for (const flush of ['every_append', 'always', null, { everyMessages: 0 }, { everyMessages: 1.5 }, {}]) {
      expect(() => Log.open(dir, { flush: flush as never })).toThrow(/flush/);
    }
  });
});
