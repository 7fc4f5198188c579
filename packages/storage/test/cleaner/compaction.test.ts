import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ProducerState } from '@klog/core';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  appendRecords,
  buildPlainBatch,
  buildProducerBatch,
  compact,
  decodeRecordBatch,
  Partition,
  rebuildProducerState,
  rewriteBatch,
  StorageError,
} from '../../src/internals.js';
import { fingerprint, logFiles, NOW, tempDir, thrown, writableLog } from '../helpers.js';

const kv = (key: string, value: string | null) => ({
  key: Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
});
const window = (state: ProducerState, pid: number) =>
  (state.get(pid as never)?.batches ?? []).map(
    (b) => `${b.firstSeq()}..${b.lastSeq}@${b.firstOffset()}-${b.lastOffset}`,
  );
const contents = (p: Partition) =>
  [...p.log.batches()].flatMap(({ batch }) =>
    batch.records.map((r) => [
      batch.baseOffset + r.offsetDelta,
      r.key === null ? null : Buffer.from(r.key).toString(),
      r.value === null ? null : Buffer.from(r.value).toString(),
    ]),
  );

describe('rewriteBatch keeps what the producer state needs', () => {
  it('keeps producerId, producerEpoch, baseSequence and the first/last offset when records go', () => {
    const p = Partition.open(tempDir(), 't', 0);
    const records = [kv('a', '1'), kv('b', '2'), kv('c', '3')];
    writableLog(p).append({
      origin: 'raw',
      bytes: buildProducerBatch(records, 0, NOW, { producerId: 77, producerEpoch: 3, baseSequence: 40 }),
    });
    const [batch] = p.log.readCheckedBatches(0);
    const rewritten = decodeRecordBatch(rewriteBatch(batch!, [batch!.records[1]!]));
    expect(rewritten).toMatchObject({
      baseOffset: 0,
      lastOffsetDelta: 2,
      producerId: 77,
      producerEpoch: 3,
      baseSequence: 40,
      recordsCount: 1,
    });
    expect(rewritten.records[0]!.offsetDelta).toBe(1);
    // The plain builder, by contrast, would have erased them.
    const plain = decodeRecordBatch(buildPlainBatch([kv('b', '2')], 0, NOW));
    expect([plain.producerId, plain.producerEpoch, plain.baseSequence]).toEqual([-1, -1, -1]);
    p.close();
  });
});

/** Roll the partition so that everything written so far is in inactive segments, which compaction cleans. */
function roll(p: Partition): void {
  appendRecords(p, [{ key: null, value: Buffer.alloc(p.log.config.segmentBytes) }], NOW);
}

describe('compact', () => {
  it('keeps the latest value per key, keeps tombstones, keeps unkeyed records and every offset', () => {
    const p = Partition.open(tempDir(), 'prices', 0, { segmentBytes: 200 });
    appendRecords(p, [kv('apple', '10'), kv('pear', '20')], NOW);
    appendRecords(p, [kv('apple', '11')], NOW);
    appendRecords(p, [kv('pear', null), { key: null, value: Buffer.from('note') }], NOW);
    appendRecords(p, [kv('fig', '5')], NOW);
    roll(p);
    const segments = p.log.segments.length;
    const report = compact(p);
    expect(contents(p).slice(0, -1)).toEqual([
      [2, 'apple', '11'],
      [3, 'pear', null],
      [4, null, 'note'],
      [5, 'fig', '5'],
    ]);
    expect(report).toMatchObject({
      recordsBefore: 6,
      recordsAfter: 4,
      batchesBefore: 4,
      batchesAfter: 3,
      passes: 1,
    });
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    expect(p.log.segments.length).toBe(segments);
    expect(p.logEndOffset).toBe(7);
    expect(compact(p, { removeTombstones: true }).recordsAfter).toBe(3);
    p.close();
  });

  it('never touches the active segment', () => {
    const p = Partition.open(tempDir(), 'prices', 0);
    appendRecords(p, [kv('apple', '10')], NOW);
    appendRecords(p, [kv('apple', '11')], NOW);
    const before = fingerprint(p.dir);
    expect(compact(p)).toMatchObject({ segmentsCleaned: 0, recordsBefore: 0, passes: 0 });
    expect(fingerprint(p.dir)).toEqual(before);
    expect(contents(p)).toEqual([
      [0, 'apple', '10'],
      [1, 'apple', '11'],
    ]);
    p.close();
  });

  it('after compaction, rebuild finds each producer window and a resend is still a Duplicate', () => {
    const dir = tempDir();
    const config = { segmentBytes: 300 };
    let p = Partition.open(dir, 'orders', 0, config);
    // Producer 1000 overwrites the same three keys in ten batches; producer 2000 writes twice.
    for (let s = 0; s < 10; s++) {
      appendIdempotent(p, {
        producerId: 1000,
        producerEpoch: 0,
        firstSequence: s,
        records: [kv(`k${s % 3}`, `v${s}`)],
        nowMs: NOW + s,
      });
      if (s === 4 || s === 8)
        appendIdempotent(p, {
          producerId: 2000,
          producerEpoch: 1,
          firstSequence: s === 4 ? 0 : 1,
          records: [kv(`k${s % 3}`, `w${s}`)],
          nowMs: NOW,
        });
    }
    p.close();
    p = Partition.open(dir, 'orders', 0, config);
    const expected = rebuildProducerState(p.log);
    const report = compact(p);
    expect(report.segmentsCleaned).toBeGreaterThan(1);
    expect(report.recordsAfter).toBeLessThan(report.recordsBefore);
    p.close();

    p = Partition.open(dir, 'orders', 0, config);
    const rebuilt = rebuildProducerState(p.log);
    expect(rebuilt.producerIds()).toEqual(expected.producerIds());
    expect(window(rebuilt, 1000)).toEqual(window(expected, 1000));
    expect(window(rebuilt, 2000)).toEqual(window(expected, 2000));
    const leo = p.logEndOffset;
    expect(
      appendIdempotent(p, {
        producerId: 1000,
        producerEpoch: 0,
        firstSequence: 9,
        records: [kv('k0', 'v9')],
        nowMs: NOW,
      }),
    ).toMatchObject({
      kind: 'Duplicate',
    });
    expect(
      appendIdempotent(p, {
        producerId: 1000,
        producerEpoch: 0,
        firstSequence: 10,
        records: [kv('k1', 'v10')],
        nowMs: NOW,
      }),
    ).toMatchObject({
      kind: 'Append',
      firstOffset: leo,
    });
    p.close();
  });

  it('keeps an emptied batch only while it is its producer’s last in the log (Kafka’s rule), epochs included', () => {
    const p = Partition.open(tempDir(), 'orders', 0, { segmentBytes: 150 });
    // Epoch 0 writes k at seq 0..2, epoch 1 starts over at 0 and overwrites k twice.
    for (let s = 0; s < 3; s++)
      appendIdempotent(p, {
        producerId: 5,
        producerEpoch: 0,
        firstSequence: s,
        records: [kv('k', `e0-${s}`)],
        nowMs: NOW,
      });
    for (let s = 0; s < 2; s++) {
      expect(
        appendIdempotent(p, {
          producerId: 5,
          producerEpoch: 1,
          firstSequence: s,
          records: [kv('k', `e1-${s}`)],
          nowMs: NOW,
          rule: 'chapter-fencing',
        }).kind,
      ).toBe('Append');
    }
    roll(p);
    compact(p);
    const batches = [...p.log.batches()].map(({ batch }) => batch).filter((b) => b.producerId === 5);
    // Epoch 0's emptied batches go, and so does epoch 1's first, emptied: its producer wrote after it.
    expect(batches.map((b) => [b.producerEpoch, b.baseSequence, b.records.length])).toEqual([[1, 1, 1]]);
    p.close();
  });

  it('a producer’s last batch, emptied, stays: a restart replaying the cleaned log still answers its resend Duplicate', () => {
    const dataDir = tempDir();
    const config = { segmentBytes: 1000 };
    const options = { producerSnapshots: true };
    let p = Partition.open(dataDir, 'orders', 0, config, options);
    const send = (q: Partition, s: number) =>
      appendIdempotent(q, {
        producerId: 7,
        producerEpoch: 0,
        firstSequence: s,
        records: [kv(`k${s}`, `p7-${s}`)],
        nowMs: NOW,
      });
    for (let s = 0; s < 4; s++) expect(send(p, s).kind).toBe('Append');
    // Another writer overwrites every key producer 7 wrote: all four of its batches are emptied.
    for (let s = 0; s < 4; s++) appendRecords(p, [kv(`k${s}`, `later-${s}`)], NOW);
    roll(p);
    compact(p);
    const mine = [...p.log.batches()].map(({ batch }) => batch).filter((b) => b.producerId === 7);
    expect(mine.map((b) => [b.baseSequence, b.records.length])).toEqual([[3, 0]]);
    const kept = mine[0]!;
    p.close();
    // Without a snapshot the state comes from the last two segments, the cleaned one included.
    for (const name of readdirSync(join(dataDir, 'orders-0'))) {
      if (name.endsWith('.snapshot')) rmSync(join(dataDir, 'orders-0', name));
    }
    p = Partition.open(dataDir, 'orders', 0, config, options);
    expect(p.log.segments.length).toBe(2);
    expect(send(p, 3)).toMatchObject({ kind: 'Duplicate', firstOffset: kept.baseOffset });
    expect(send(p, 4).kind).toBe('Append');
    p.close();
  });

  it('a crash mid-swap leaves each segment whole, old or cleaned; open finishes committed swaps', () => {
    const dir = tempDir();
    let p = Partition.open(dir, 'orders', 0, { segmentBytes: 120 });
    for (let i = 0; i < 6; i++) appendRecords(p, [kv('k', `v${i}`)], NOW);
    roll(p);
    const first = p.log.segments[0]!.path;
    const second = p.log.segments[1]!.path;
    p.close();
    // A committed swap of the first segment (its cleaned copy holds nothing), and an unfinished cleaned copy of the second.
    writeFileSync(`${first}.swap`, Buffer.alloc(0));
    writeFileSync(`${second}.cleaned`, 'half a batch');
    p = Partition.open(dir, 'orders', 0, { segmentBytes: 120 });
    expect(logFiles(p.dir).filter((n) => /swap|cleaned/.test(n))).toEqual([]);
    expect(p.log.segments[0]!.size).toBe(0);
    expect(contents(p)[0]![0]).toBe(p.log.segments[1]!.baseOffset);
    p.close();
  });

  it('in passes when the keys do not fit the dedupe buffer, with the same result as one pass', () => {
    const config = { segmentBytes: 400 };
    const write = (p: Partition) => {
      for (let i = 0; i < 120; i++) appendRecords(p, [kv(`key-${(i * 7) % 50}`, `v${i}`)], NOW);
      roll(p);
    };
    const big = Partition.open(tempDir(), 't', 0, config);
    write(big);
    const one = compact(big);
    const small = Partition.open(tempDir(), 't', 0, config);
    write(small);
    // Room for 12 keys a pass: 50 distinct keys take several passes.
    const several = compact(small, { dedupeBufferBytes: 12 * 24 + 48 });
    expect(one.passes).toBe(1);
    expect(several.passes).toBeGreaterThan(3);
    expect(several.dedupeBufferBytes).toBeLessThanOrEqual(12 * 24 + 48);
    expect(contents(small)).toEqual(contents(big));
    expect(several.recordsAfter).toBe(one.recordsAfter);
    expect(contents(small).filter(([, key]) => key !== null)).toHaveLength(50);
    big.close();
    small.close();
  });

  it('refuses a dedupe buffer that cannot hold one batch', () => {
    const p = Partition.open(tempDir(), 't', 0, { segmentBytes: 200 });
    appendRecords(p, [kv('a', '1'), kv('b', '2'), kv('c', '3')], NOW);
    roll(p);
    // 48 bytes: two slots, one key at Kafka's 0.9 load factor.
    expect(thrown(StorageError, () => compact(p, { dedupeBufferBytes: 48 }))).toMatchObject({
      code: 'DEDUPE_BUFFER_TOO_SMALL',
      message: 'the dedupe buffer holds 1 keys, and the batch at offset 0 has 3',
    });
    p.close();
  });

  it('works for the longest topic name Kafka allows', () => {
    const topic = 't'.repeat(249);
    const p = Partition.open(tempDir(), topic, 0, { segmentBytes: 200 });
    appendRecords(p, [kv('a', '1'), kv('a', '2')], NOW);
    roll(p);
    expect(compact(p).recordsAfter).toBe(1);
    expect(p.logEndOffset).toBe(3);
    p.close();
  });
});

describe('compact: its limits, its report, and what stands in its way', () => {
  /** A log of `keys` distinct keys, one record a batch, then a roll: every keyed record is in an inactive segment. */
  function keyed(keys: number, config = { segmentBytes: 200 }, extra: (p: Partition) => void = () => {}) {
    const p = Partition.open(tempDir(), 't', 0, config);
    for (let i = 0; i < keys; i++) appendRecords(p, [kv(`key-${i}`, `v${i}`)], NOW);
    extra(p);
    roll(p);
    return p;
  }
  const unkeyed = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`u${i}`) }));

  it('refuses a dedupe buffer under one 24-byte slot, or not a whole number of bytes, by code and message', () => {
    const p = keyed(0, { segmentBytes: 200 }, (q) => appendRecords(q, unkeyed(1), NOW));
    for (const bad of [23, 24.5]) {
      expect(thrown(StorageError, () => compact(p, { dedupeBufferBytes: bad }))).toMatchObject({
        code: 'INVALID_CONFIG',
        message: `the dedupe buffer needs at least 24 bytes, got ${bad}`,
      });
    }
    // One slot is enough for a log with no keys.
    expect(compact(p, { dedupeBufferBytes: 24 }).passes).toBe(1);
    p.close();
  });

  it('with nothing but the active segment, cleans nothing and sizes no map', () => {
    const p = Partition.open(tempDir(), 't', 0);
    appendRecords(p, [kv('a', '1'), kv('a', '2')], NOW);
    expect(compact(p)).toEqual({
      segmentsCleaned: 0,
      passes: 0,
      dedupeBufferBytes: 0,
      batchesBefore: 0,
      batchesAfter: 0,
      recordsBefore: 0,
      recordsAfter: 0,
      bytesBefore: 0,
      bytesAfter: 0,
    });
    p.close();
  });

  it('sizes the map for the keyed records only, fills it to the last slot in one pass, and reports the bytes on disk', () => {
    // Nine keys: a map sized for them holds exactly nine (11 slots at Kafka's 0.9 load factor).
    const plain = keyed(9);
    const withUnkeyed = keyed(9, { segmentBytes: 200 }, (p) => appendRecords(p, unkeyed(20), NOW));
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const report = compact(withUnkeyed);
    expect(openFiles()).toBe(before);
    expect(report.passes).toBe(1);
    expect(report.dedupeBufferBytes).toBe(compact(plain).dedupeBufferBytes);
    const inactive = withUnkeyed.log.segments.slice(0, -1);
    expect(inactive.length).toBeGreaterThan(2);
    expect(report.bytesAfter).toBe(inactive.reduce((sum, s) => sum + statSync(s.path).size, 0));
    plain.close();
    withUnkeyed.close();
  });

  it('each pass takes as many new keys as the map holds, even when a pass ends inside a segment', () => {
    // Three one-record batches a segment; four keys a pass (120 bytes: 5 slots): twelve keys take three passes.
    const p = keyed(12, { segmentBytes: 250 });
    expect(p.log.segments[0]!.size).toBeLessThan(250);
    expect([...p.log.segments[0]!.batches()].length).toBe(3);
    expect(compact(p, { dedupeBufferBytes: 120 }).passes).toBe(3);
    p.close();
  });

  it('a tombstone past where a pass ends is kept for the next pass, so the value it deletes does not come back', () => {
    // Three one-record batches a segment, four keys a pass (120 bytes: 5 slots): the first pass ends at offset 4,
    // inside the segment that holds the tombstone (offset 5) of the key written at offset 0.
    const p = Partition.open(tempDir(), 't', 0, { segmentBytes: 250 });
    for (const [key, value] of [
      ['k', 'v'],
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['d', '4'],
      ['k', null],
    ] as const) {
      appendRecords(p, [kv(key, value)], NOW);
    }
    roll(p);
    expect(compact(p, { dedupeBufferBytes: 120, removeTombstones: true }).passes).toBe(2);
    expect(contents(p).filter(([, key]) => key === 'k')).toEqual([]);
    p.close();
  });

  it('a cleaned file it cannot create stops it by step and path, and the ones written before are removed', () => {
    const p = keyed(9);
    const [first, second] = p.log.segments;
    mkdirSync(`${second!.path}.cleaned`);
    expect(thrown(StorageError, () => compact(p)).message).toMatch(
      new RegExp(`^open cleaned segment ${second!.path}\\.cleaned: EEXIST`),
    );
    expect(existsSync(`${first!.path}.cleaned`)).toBe(false);
    p.close();
  });

  it('a commit it cannot make stops it by step and path', () => {
    const p = keyed(9);
    const first = p.log.segments[0]!;
    mkdirSync(join(`${first.path}.swap`, 'x'), { recursive: true });
    expect(thrown(StorageError, () => compact(p)).message).toMatch(
      new RegExp(`^commit cleaned segment ${first.path}: `),
    );
    p.close();
  });
});

describe("compact groups adjacent small segments (Kafka's groupSegmentsBySize)", () => {
  /** Forty rounds: every key written again, then the log compacted, as a busy compacted topic is. */
  function overwrittenRounds(dir: string, rounds: number, keys: number) {
    const config = { segmentBytes: 2048 };
    const p = Partition.open(dir, 'prices', 0, config);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < keys; k++) appendRecords(p, [kv(`key-${k}`, `round-${round}`)], NOW);
      compact(p);
    }
    return p;
  }

  it('after 40 rounds of overwrite and clean, a bounded number of segments holds every key’s last value', () => {
    const dir = tempDir();
    const p = overwrittenRounds(dir, 40, 60);
    const live = p.log.segments.slice(0, -1).reduce((sum, s) => sum + s.size, 0);
    // The cleaned part is what one round writes, in as few segments as segment.bytes allows (grouping
    // stops before a group passes it, so each group is at least half full, bar the last).
    expect(p.log.segments.length).toBeLessThanOrEqual(2 * Math.ceil(live / 2048) + 2);
    expect(p.log.segments.length).toBeLessThan(10);
    const latest = new Map(contents(p).map(([, key, value]) => [key, value]));
    for (let k = 0; k < 60; k++) expect(latest.get(`key-${k}`)).toBe('round-39');
    // Every offset is still readable in order: a fetch from the log start walks the whole log.
    const seen = contents(p).map(([offset]) => offset as number);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const before = contents(p);
    p.close();
    // The same after a restart: the grouped segments are whole segments, with their indexes rebuilt.
    const again = Partition.open(dir, 'prices', 0, { segmentBytes: 2048 });
    expect(contents(again)).toEqual(before);
    again.close();
  });

  it('never groups past segment.bytes', () => {
    const p = overwrittenRounds(tempDir(), 10, 60);
    for (const segment of p.log.segments.slice(0, -1)) expect(segment.size).toBeLessThanOrEqual(2048);
    p.close();
  });
});

describe('a crash during the swap of a grouped segment leaves the old segments or the new one', () => {
  it('at every step: cleaned file half or whole, swap committed, each old segment removed, swap renamed', () => {
    const config = { segmentBytes: 600 };
    const dataDir = tempDir();
    const p = Partition.open(dataDir, 'prices', 0, config);
    // Cleaned rounds leave small segments behind, which the next clean groups.
    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < 12; k++) appendRecords(p, [kv(`key-${k}`, `round-${round}`)], NOW);
      if (round < 3) compact(p);
    }
    const oldContents = contents(p);
    const oldBases = p.log.segments.map((s) => s.baseOffset);
    p.close();
    const partitionDir = join(dataDir, 'prices-0');
    const old = tempDir();
    cpSync(partitionDir, old, { recursive: true });
    // The real compaction, for the cleaned bytes and the state it ends in.
    const q = Partition.open(dataDir, 'prices', 0, config);
    compact(q);
    const newContents = contents(q);
    const newBases = q.log.segments.map((s) => s.baseOffset);
    q.close();
    const first = String(newBases[0]).padStart(20, '0');
    const later = oldBases.filter((b) => !newBases.includes(b)).map((b) => String(b).padStart(20, '0'));
    // The first group holds several segments: the case this test is about.
    expect(later.length).toBeGreaterThan(0);
    expect(Number(later[0])).toBe(oldBases[1]);
    expect(newContents).not.toEqual(oldContents);
    const cleaned = readFileSync(join(partitionDir, `${first}.log`));
    // The first group cleaned, the rest of the log as it was (later groups are swapped one by one after it).
    const groupEnd = oldBases[oldBases.indexOf(Number(later.at(-1))) + 1]!;
    const firstGroupCleaned = [
      ...newContents.filter(([offset]) => (offset as number) < groupEnd),
      ...oldContents.filter(([offset]) => (offset as number) >= groupEnd),
    ];
    expect(firstGroupCleaned).not.toEqual(oldContents);

    /** The partition directory as the old one, changed by `step`, then opened: its records. */
    const openAfter = (step: (dir: string) => void) => {
      rmSync(partitionDir, { recursive: true });
      cpSync(old, partitionDir, { recursive: true });
      step(partitionDir);
      const r = Partition.open(dataDir, 'prices', 0, config);
      try {
        expect(logFiles(r.dir).filter((n) => /swap|cleaned/.test(n))).toEqual([]);
        return contents(r);
      } finally {
        r.close();
      }
    };
    const removeSegment = (dir: string, base: string) => {
      for (const suffix of ['.log', '.index', '.timeindex'])
        rmSync(join(dir, base + suffix), { force: true });
    };
    // Before the commit: a cleaned file half written, or whole, is dropped and the old segments stay.
    expect(openAfter((d) => writeFileSync(join(d, `${first}.log.cleaned`), cleaned.subarray(0, 70)))).toEqual(
      oldContents,
    );
    expect(openAfter((d) => writeFileSync(join(d, `${first}.log.cleaned`), cleaned))).toEqual(oldContents);
    // After the commit: whatever old segments are still there, the swap replaces all of its group.
    for (let removed = 0; removed <= later.length; removed++) {
      const state = openAfter((d) => {
        writeFileSync(join(d, `${first}.log.swap`), cleaned);
        for (const base of later.slice(0, removed)) removeSegment(d, base);
      });
      expect(state, `${removed} of the group's later segments removed`).toEqual(firstGroupCleaned);
    }
    // The swap renamed over the group's first segment: done.
    expect(
      openAfter((d) => {
        for (const base of later) removeSegment(d, base);
        removeSegment(d, first);
        writeFileSync(join(d, `${first}.log`), cleaned);
      }),
    ).toEqual(firstGroupCleaned);
  });
});

describe('a fetch over segments left with emptied batches alone', () => {
  it('reads on to the first record, within the budget, so a client is never handed nothing but empty batches', () => {
    const p = Partition.open(tempDir(), 'prices', 0, { segmentBytes: 600 });
    // Twelve producers write key k once each, each batch too big to share a segment or a group with another.
    for (let pid = 1; pid <= 12; pid++) {
      appendIdempotent(p, {
        producerId: pid,
        producerEpoch: 0,
        firstSequence: 0,
        records: [kv('k', 'x'.repeat(500))],
        nowMs: NOW,
      });
    }
    appendRecords(p, [kv('k', 'last')], NOW);
    roll(p);
    compact(p);
    // Each producer's only batch is its last: kept, emptied, one segment each.
    const emptied = p.log.segments.filter((s) =>
      [...s.batches()].every(({ batch }) => batch.records.length === 0),
    );
    expect(emptied.length).toBeGreaterThanOrEqual(11);
    const read = p.fetch(0, 1024 * 1024).records;
    const batches: { records: number; last: number }[] = [];
    for (let at = 0; at < read.length; ) {
      const batch = decodeRecordBatch(read, at);
      batches.push({ records: batch.records.length, last: batch.baseOffset + batch.lastOffsetDelta });
      at += 12 + read.readInt32BE(at + 8);
    }
    expect(batches.slice(0, -1).every((b) => b.records === 0)).toBe(true);
    expect(batches.at(-1)!.records).toBe(1);
    expect(batches.at(-1)!.last).toBe(12);
    // Within a small budget it stops before a batch that would not fit, past the first.
    expect(p.fetch(0, 130).records.length).toBeLessThanOrEqual(130);
    p.close();
  });
});
