import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  DEFAULT_LOG_CONFIG,
  type FlushPolicy,
  Log,
  LogSegment,
  Partition,
} from '../src/index.js';
import { NOW, records, tempDir } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Count the fsyncs of segment files (LogSegment.flush calls fsync and nothing else). */
function countFsyncs() {
  return vi.spyOn(LogSegment.prototype, 'flush');
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
      expect(fsyncs).toHaveBeenCalledTimes(i);
    }
    p.close();
  });

  it('{ everyMessages: 3 } fsyncs once 3 records have come since the last fsync', () => {
    const p = open({ everyMessages: 3 });
    const fsyncs = countFsyncs();
    const after = [2, 2, 1, 5, 1, 1, 1].map((n) => {
      appendRecords(p, records(n), NOW);
      return fsyncs.mock.calls.length;
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
    expect(fsyncs).not.toHaveBeenCalled();
    appendRecords(p, records(1), NOW); // rolls: the full segment is fsynced before the next is created
    expect(p.log.segments).toHaveLength(2);
    expect(fsyncs).toHaveBeenCalledTimes(1);
    expect(fsyncs.mock.contexts[0]).toBe(p.log.segments[0]);
    p.close();
    expect(fsyncs).toHaveBeenCalledTimes(2);
    expect(fsyncs.mock.contexts[1]).toBe(p.log.segments[1]);
  });

  it('refuses a policy it does not know instead of never flushing', () => {
    const dir = join(tempDir(), 'x-0');
    for (const flush of ['every_append', 'always', null, { everyMessages: 0 }, { everyMessages: 1.5 }, {}]) {
      expect(() => Log.open(dir, { flush: flush as never })).toThrow(/flush/);
    }
  });
});
