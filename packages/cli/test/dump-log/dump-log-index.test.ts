import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProducerBatch, Partition } from '@klog/storage/internals';
import { afterAll, describe, expect, it } from 'vitest';
import { klog } from '../run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-index-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A partition of three segments of client batches (10 records of 1 KiB), closed cleanly: index files written. */
function partition(name: string): string {
  const p = Partition.open(scratch, name, 0, { segmentBytes: 64 * 1024 });
  const records = Array.from({ length: 10 }, (_, i) => ({
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(1024, i),
  }));
  for (let seq = 0; p.log.segments.length < 3; seq += 10) {
    p.appendProducerBatch(
      buildProducerBatch(records, 0, 1_700_000_000_000 + seq, {
        producerId: 5,
        producerEpoch: 0,
        baseSequence: seq,
      }),
    );
  }
  p.close();
  return p.dir;
}

describe("klog dump-log and index files, as Kafka's DumpLogSegments", () => {
  it('--verify-index-only: every entry of every index file of a directory matches its segment', () => {
    const dir = partition('ok');
    const run = klog(['dump-log', dir, '--verify-index-only']);
    expect(run.status).toBe(0);
    expect(run.stdout.match(/every entry matches/g)).toHaveLength(6);
  });

  it('dumps an index file entry by entry, and --index-sanity-check passes a good one', () => {
    const dir = partition('dump');
    const run = klog(['dump-log', join(dir, '00000000000000000000.index')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^offset: \d+ position: \d+$/m);
    const times = klog(['dump-log', join(dir, '00000000000000000000.timeindex')]);
    expect(times.stdout).toMatch(/^timestamp: 1700000000\d+ offset: \d+$/m);
    expect(klog(['dump-log', dir, '--index-sanity-check']).stdout).toMatch(/passed sanity check\./);
  });

  it('finds an entry that points at the wrong batch, and one out of order', () => {
    const dir = partition('bad');
    const index = join(dir, '00000000000000000000.index');
    const bytes = readFileSync(index);
    bytes.writeInt32BE(bytes.readInt32BE(8) + 1, 8); // the second entry names the wrong offset
    writeFileSync(index, bytes);
    const verify = klog(['dump-log', dir, '--verify-index-only']);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(/Index offset \d+, log offset \d+ mismatch\./);
    const swapped = Buffer.concat([bytes.subarray(8, 16), bytes.subarray(0, 8), bytes.subarray(16)]);
    writeFileSync(index, swapped);
    const sanity = klog(['dump-log', index, '--index-sanity-check']);
    expect(sanity.status).toBe(1);
    expect(sanity.stdout).toMatch(/failed sanity check: .*out of order/);
  });

  it("a live segment's preallocated index: the entries end at the zero-filled tail, as Kafka's dump", () => {
    const dir = partition('live');
    for (const [name, entry] of [
      ['00000000000000000000.index', 8],
      ['00000000000000000000.timeindex', 12],
    ] as const) {
      const file = join(dir, name);
      const entries = readFileSync(file);
      // What an open segment's index looks like on disk: its entries, then zeros up to its preallocated size.
      writeFileSync(file, Buffer.concat([entries, Buffer.alloc(4096 * entry)]));
      const run = klog(['dump-log', file]);
      expect(run.status).toBe(0);
      const lines = run.stdout.split('\n').filter((l) => /^(offset|timestamp): /.test(l));
      expect(lines).toHaveLength(entries.length / entry);
      const verify = klog(['dump-log', file, '--verify-index-only']);
      expect(verify.status).toBe(0);
    }
  });
});
