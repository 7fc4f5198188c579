import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ProducerState } from '@klog/core';
import {
  addBatchFromHeader,
  appendIdempotent,
  decodeRecordBatch,
  LOG_OVERHEAD,
  type LogReader,
  Partition,
  rebuildProducerState,
} from '@klog/storage/internals';
import { type BenchContext, reportComparison } from './context.js';
import { BENCH_NOW_MS, formatBytes, recordInputs } from './data.js';
import { measurePair, type TaskSpec } from './harness.js';
import type { Comparison } from './results.js';
import { comparison } from './stats.js';
import { REBUILD_TARGET } from './targets.js';

/**
 * Producer-state rebuild (the header-only scan klog runs on open) against a full
 * decode of the same active segment (every batch read, CRC-checked and its records
 * decoded, then the same window update). The segments are written once per run by
 * klog's own idempotent append, 8 producers taking turns, 1 KiB records.
 *
 * To show that the rebuild's cost follows the number of batches and not the bytes,
 * the segments come in pairs: the same bytes cut into batches of 1, 10 and 100
 * records, and the same number of batches at 10× the bytes (10 MB of 10-record
 * batches and 100 MB of 100-record batches hold about as many batches).
 */

const VALUE_BYTES = 1024;
const PRODUCERS = 8;
interface SegmentCase {
  readonly bytes: number;
  readonly recordsPerBatch: number;
}

function segmentCases(quick: boolean): SegmentCase[] {
  const [small, large] = quick ? [1_000_000, 10_000_000] : [10_000_000, 100_000_000];
  return [
    { bytes: small, recordsPerBatch: 1 },
    { bytes: small, recordsPerBatch: 10 },
    { bytes: small, recordsPerBatch: 100 },
    { bytes: large, recordsPerBatch: 1 },
    { bytes: large, recordsPerBatch: 10 },
    { bytes: large, recordsPerBatch: 100 },
  ];
}

interface Segment {
  readonly partition: Partition;
  readonly batches: number;
  readonly bytes: number;
}

/** Fill a partition's active segment to about `bytes` with batches of `recordsPerBatch` records. */
function writeSegment(ctx: BenchContext, c: SegmentCase): Segment {
  const dir = join(ctx.scratch, `rebuild-${c.bytes}-${c.recordsPerBatch}`);
  mkdirSync(dir);
  let partition = Partition.open(dir, 'bench', 0);
  const seqs = new Array<number>(PRODUCERS).fill(0);
  const records = recordInputs(c.recordsPerBatch, VALUE_BYTES, 7);
  let batches = 0;
  while (partition.log.activeSegment.size < c.bytes) {
    const p = batches % PRODUCERS;
    const result = appendIdempotent(partition, {
      producerId: 5000 + p,
      producerEpoch: 0,
      firstSequence: seqs[p]!,
      records: records,
      nowMs: BENCH_NOW_MS + batches,
    });
    if (result.kind !== 'Append') throw new Error(`segment writer was judged ${result.kind}`);
    seqs[p]! += c.recordsPerBatch;
    batches++;
  }
  partition.close();
  // Opened again as a broker would after a restart (recovery reads it once, outside the timing).
  partition = Partition.open(dir, 'bench', 0);
  if (partition.log.segments.length !== 1) throw new Error('the segment rolled');
  return { partition, batches, bytes: partition.log.activeSegment.size };
}

/** klog's own full decode of a segment: `LogSegment.batches()`, one read per batch, CRC checked. */
function fullDecode(log: LogReader): ProducerState {
  const state = new ProducerState();
  let records = 0;
  for (const { batch } of log.activeSegment.batches()) {
    records += batch.records.length;
    addBatchFromHeader(state, batch); // the rebuild's window update, from a fully decoded batch
  }
  if (records === 0) throw new Error('nothing decoded');
  return state;
}

/** Chunk size of the fastest full decode: large sequential reads into one reused buffer. */
const FAST_DECODE_CHUNK = 1024 * 1024;

/**
 * The fastest full decode we could write on klog's public API, as a second, harder
 * baseline: the file is read in 1 MiB chunks into one reused buffer, and every whole
 * batch in a chunk is decoded (CRC checked) where it lies; a batch cut by the chunk's
 * end is read again from its start with the next chunk. Its records are views into
 * that buffer, fine here, where only the window is kept.
 */
function fastFullDecode(segmentPath: string, size: number, buffer: Buffer): ProducerState {
  const state = new ProducerState();
  const fd = openSync(segmentPath, 'r');
  try {
    let position = 0;
    while (position < size) {
      const length = readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
      let at = 0;
      while (at + LOG_OVERHEAD <= length) {
        const batchBytes = LOG_OVERHEAD + buffer.readInt32BE(at + 8);
        if (at + batchBytes > length) break;
        addBatchFromHeader(state, decodeRecordBatch(buffer, at));
        at += batchBytes;
      }
      if (at === 0) throw new Error(`a batch at ${position} is larger than the decode chunk`);
      position += at;
    }
  } finally {
    closeSync(fd);
  }
  return state;
}

export async function runRebuildBench(ctx: BenchContext): Promise<Comparison[]> {
  const out: Comparison[] = [];
  const cases = segmentCases(ctx.quick);
  const segments: Segment[] = [];
  for (const c of cases) {
    const started = performance.now();
    const segment = writeSegment(ctx, c);
    segments.push(segment);
    ctx.progress(
      `  wrote a ${formatBytes(c.bytes)} segment of ${segment.batches} batches × ${c.recordsPerBatch} × 1 KiB in ${(
        (performance.now() - started) / 1000
      ).toFixed(1)} s`,
    );
  }
  try {
    for (const [i, c] of cases.entries()) {
      const segment = segments[i]!;
      const log = segment.partition.log;
      const expected = rebuildProducerState(log).size;
      if (expected !== PRODUCERS || fullDecode(log).size !== PRODUCERS) {
        throw new Error('rebuild and full decode disagree on the producers');
      }
      const rebuild: TaskSpec = {
        name: 'rebuild (headers only)',
        ops: 1,
        async: false,
        fn: () => {
          if (rebuildProducerState(log).size !== PRODUCERS) throw new Error('lost producers');
        },
      };
      const decode: TaskSpec = {
        name: 'full decode (LogSegment.batches)',
        ops: 1,
        async: false,
        fn: () => {
          if (fullDecode(log).size !== PRODUCERS) throw new Error('lost producers');
        },
      };
      const perOp = {
        batches: segment.batches,
        records: segment.batches * c.recordsPerBatch,
        bytes: segment.bytes,
      };
      const result = comparison(
        {
          id: `rebuild-${c.bytes}-${c.recordsPerBatch}`,
          group: 'rebuild',
          label: `rebuild ${formatBytes(c.bytes)}, ${segment.batches} batches of ${c.recordsPerBatch} × 1 KiB`,
          ratioUnit: 'faster than a full decode',
          subjectPerOp: perOp,
          baselinePerOp: perOp,
          target: REBUILD_TARGET,
        },
        await measurePair(rebuild, decode, { ...ctx.rounds, minSamples: Math.min(ctx.rounds.minSamples, 5) }),
      );
      reportComparison(ctx, result);
      out.push(result);

      const buffer = Buffer.allocUnsafe(FAST_DECODE_CHUNK);
      const path = log.activeSegment.path;
      if (fastFullDecode(path, segment.bytes, buffer).size !== PRODUCERS) throw new Error('lost producers');
      const fastDecode: TaskSpec = {
        name: 'full decode, 1 MiB reads',
        ops: 1,
        async: false,
        fn: () => {
          if (fastFullDecode(path, segment.bytes, buffer).size !== PRODUCERS)
            throw new Error('lost producers');
        },
      };
      const harder = comparison(
        {
          id: `rebuild-fast-${c.bytes}-${c.recordsPerBatch}`,
          group: 'rebuild',
          label: `rebuild ${formatBytes(c.bytes)} of ${c.recordsPerBatch} × 1 KiB batches vs the fastest full decode`,
          ratioUnit: 'faster than a full decode from 1 MiB reads',
          subjectPerOp: perOp,
          baselinePerOp: perOp,
          note: 'a harder baseline than LogSegment.batches(): large reads into one reused buffer',
        },
        await measurePair(rebuild, fastDecode, {
          ...ctx.rounds,
          minSamples: Math.min(ctx.rounds.minSamples, 5),
        }),
      );
      reportComparison(ctx, harder);
      out.push(harder);
    }
  } finally {
    for (const s of segments) s.partition.close();
  }
  return out;
}
