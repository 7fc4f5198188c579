import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  incrementSequence,
  judgeBatch,
  ProducerState,
  recordAppendedBatch,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import {
  appendIdempotent,
  batchSize,
  crc32c,
  decodeBatchHeader,
  type FlushPolicy,
  Partition,
  type RecordInput,
} from '@klog/storage/internals';
import { type BenchContext, reportComparison } from './context.js';
import { BENCH_NOW_MS, recordInputs } from './data.js';
import { measurePair, type TaskSpec } from './harness.js';
import type { Comparison } from './results.js';
import { comparison } from './stats.js';
import { APPEND_TARGET } from './targets.js';

/**
 * Idempotent append against the limit: raw `fs.writeSync` of the very same bytes
 * to a file. Each timed call appends a run of batches of 1 KiB records to a fresh
 * partition (klog) or a fresh file (raw); creating, closing (with an fsync, on both
 * sides) and deleting them happens outside the timed window. The raw side writes
 * the bytes klog wrote in a previous call, batch by batch, one `writeSync` each, so
 * both put the same bytes on disk with the same number of writes.
 *
 * klog's append does, per batch: validate the producer fields, judge the batch
 * against the producer's window, encode it (records, CRC-32C), write it, and
 * update the window. (A batch from outside, through `Log.append` as `raw` bytes, is also
 * checked before the write; one klog built itself a moment ago is not.)
 */

const TOPIC = 'bench';
const PRODUCER_ID = 1000;
const VALUE_BYTES = 1024;
interface AppendCase {
  readonly recordsPerBatch: number;
  readonly flush: FlushPolicy;
  /** Batches per timed call. */
  readonly batchesPerCall: number;
}

function appendCases(quick: boolean): AppendCase[] {
  const noFlushBytes = quick ? 1_000_000 : 2_000_000;
  const flushBatches = quick ? 16 : 40;
  const cases: AppendCase[] = [];
  for (const recordsPerBatch of [1, 10, 100]) {
    const batchBytes = 61 + recordsPerBatch * (VALUE_BYTES + 20);
    cases.push({
      recordsPerBatch,
      flush: 'os',
      batchesPerCall: Math.max(8, Math.round(noFlushBytes / batchBytes)),
    });
  }
  for (const recordsPerBatch of [1, 10]) {
    cases.push({ recordsPerBatch, flush: 'every-append', batchesPerCall: flushBatches });
  }
  return cases;
}

/** A fresh partition and producer state for one timed call of klog's append. */
class AppendRun {
  dir = '';
  partition: Partition | undefined;
  state = new ProducerState();
  seq = 0;

  constructor(
    private readonly ctx: BenchContext,
    private readonly flush: FlushPolicy,
  ) {}

  open(): void {
    this.dir = mkdtempSync(join(this.ctx.scratch, 'append-'));
    this.partition = Partition.open(this.dir, TOPIC, 0, { flush: this.flush });
    this.state = new ProducerState();
    this.seq = 0;
  }

  append(records: readonly RecordInput[]): void {
    const result = appendIdempotent(this.partition!, {
      producerId: PRODUCER_ID,
      producerEpoch: 0,
      firstSequence: this.seq,
      records: records,
      nowMs: BENCH_NOW_MS,
    });
    if (result.kind !== 'Append') throw new Error(`append was judged ${result.kind}`);
    this.seq += records.length;
  }

  close(): void {
    this.partition?.close();
    rmSync(this.dir, { recursive: true, force: true });
    this.partition = undefined;
  }
}

/** The batches one call of klog's append writes, read back from its segment file. */
function batchesOfOneCall(ctx: BenchContext, c: AppendCase, records: readonly RecordInput[]): Buffer[] {
  const run = new AppendRun(ctx, 'os');
  run.open();
  for (let i = 0; i < c.batchesPerCall; i++) run.append(records);
  const file = readFileSync(run.partition!.log.activeSegment.path);
  run.close();
  const batches: Buffer[] = [];
  for (let pos = 0; pos < file.length; ) {
    const size = batchSize(decodeBatchHeader(file, pos));
    batches.push(file.subarray(pos, pos + size));
    pos += size;
  }
  if (batches.length !== c.batchesPerCall) throw new Error('the segment does not hold the batches appended');
  return batches;
}

function appendTask(ctx: BenchContext, c: AppendCase, records: readonly RecordInput[]): TaskSpec {
  const run = new AppendRun(ctx, c.flush);
  return {
    name: 'klog appendIdempotent',
    ops: c.batchesPerCall,
    async: false,
    beforeEach: () => run.open(),
    afterEach: () => run.close(),
    fn: () => {
      for (let i = 0; i < c.batchesPerCall; i++) run.append(records);
    },
  };
}

function rawWriteTask(ctx: BenchContext, c: AppendCase, batches: readonly Buffer[]): TaskSpec {
  const flush = c.flush === 'every-append';
  let dir = '';
  let fd = -1;
  return {
    name: flush ? 'raw writeSync + fsyncSync' : 'raw writeSync',
    ops: batches.length,
    async: false,
    beforeEach: () => {
      dir = mkdtempSync(join(ctx.scratch, 'raw-'));
      fd = openSync(join(dir, '00000000000000000000.log'), 'wx');
    },
    afterEach: () => {
      fsyncSync(fd);
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
    fn: () => {
      for (const batch of batches) {
        let written = 0;
        while (written < batch.length) written += writeSync(fd, batch, written, batch.length - written);
        if (flush) fsyncSync(fd);
      }
    },
  };
}

/**
 * The floor any append of valid batches could reach: the raw write plus the one
 * CRC-32C pass over the batch that the format requires (computed while encoding),
 * with klog's own native crc32c. No encoding, no copy.
 */
function floorTask(ctx: BenchContext, c: AppendCase, batches: readonly Buffer[]): TaskSpec {
  const raw = rawWriteTask(ctx, c, batches);
  return {
    ...raw,
    name: 'raw writeSync + CRC-32C',
    fn: () => {
      for (const batch of batches) {
        // What encoding the batch costs in CRC; compared so the work cannot be optimised away.
        if (crc32c(batch.subarray(21)) !== batch.readUInt32BE(17)) throw new Error('bad CRC');
      }
      return raw.fn();
    },
  };
}

export async function runAppendBench(ctx: BenchContext): Promise<Comparison[]> {
  const out: Comparison[] = [];
  for (const c of appendCases(ctx.quick)) {
    const records = recordInputs(c.recordsPerBatch, VALUE_BYTES, 42);
    const batches = batchesOfOneCall(ctx, c, records);
    const batchBytes = batches[0]!.length;
    const perOp = { batches: 1, records: c.recordsPerBatch, bytes: batchBytes };
    const flushed = c.flush === 'every-append';
    const shape = `${c.recordsPerBatch} × 1 KiB per batch`;
    const result = comparison(
      {
        id: `append-${c.recordsPerBatch}${flushed ? '-flush' : ''}`,
        group: 'append',
        label: flushed ? `append ${shape}, fsync every append` : `append ${shape}, no flush`,
        ratioUnit: 'of raw write throughput',
        ratioFormat: 'percent',
        subjectPerOp: perOp,
        baselinePerOp: perOp,
        ...(flushed ? {} : { target: APPEND_TARGET }),
      },
      await measurePair(appendTask(ctx, c, records), rawWriteTask(ctx, c, batches), ctx.rounds),
    );
    reportComparison(ctx, result);
    out.push(result);
    if (!flushed) {
      const floor = comparison(
        {
          id: `append-floor-${c.recordsPerBatch}`,
          group: 'append',
          label: `floor for ${shape}: raw write + CRC-32C computed once`,
          ratioUnit: 'of raw write throughput',
          ratioFormat: 'percent',
          subjectPerOp: perOp,
          baselinePerOp: perOp,
          note: 'the best an append that writes valid batches (with their CRC) could reach here',
        },
        await measurePair(floorTask(ctx, c, batches), rawWriteTask(ctx, c, batches), ctx.rounds),
      );
      reportComparison(ctx, floor);
      out.push(floor);
    }
  }

  // judge + window update, per batch, against the whole append of the same batch.
  for (const recordsPerBatch of [1, 10]) {
    const c = appendCases(ctx.quick).find((x) => x.recordsPerBatch === recordsPerBatch && x.flush === 'os')!;
    const records = recordInputs(recordsPerBatch, VALUE_BYTES, 42);
    const result = comparison(
      {
        id: `judge-${recordsPerBatch}`,
        group: 'judge',
        label: `judge + window update, ${recordsPerBatch} × 1 KiB per batch`,
        ratioUnit: 'of the whole append',
        ratioFormat: 'percent',
        subjectPerOp: { batches: 1, records: recordsPerBatch },
        baselinePerOp: { batches: 1, records: recordsPerBatch },
        note: 'share of the time of appendIdempotent spent judging and updating the window',
      },
      await measurePair(appendTask(ctx, c, records), judgeTask(recordsPerBatch), ctx.rounds),
    );
    reportComparison(ctx, result);
    out.push(result);
  }
  return out;
}

/**
 * The producer-state half of an append, alone: look the producer up, judge the
 * batch, push it into the window, store the entry — what appendIdempotent does
 * besides encoding and writing.
 */
function judgeTask(recordsPerBatch: number): TaskSpec {
  const calls = 1000;
  const pid = toProducerId(PRODUCER_ID);
  const epoch = toProducerEpoch(0);
  let state = new ProducerState();
  let seq = 0;
  let offset = 0;
  return {
    name: 'judge + window update',
    ops: calls,
    async: false,
    beforeEach: () => {
      state = new ProducerState();
      seq = 0;
      offset = 0;
    },
    fn: () => {
      // The same two calls appendIdempotent makes around its write.
      for (let i = 0; i < calls; i++) {
        const first = toSequence(seq);
        const last = incrementSequence(first, recordsPerBatch - 1);
        const verdict = judgeBatch('chapter', state.get(pid), epoch, first, last);
        if (verdict.kind !== 'Append') throw new Error(`judged ${verdict.kind}`);
        offset += recordsPerBatch;
        recordAppendedBatch(state, pid, epoch, last, offset - 1, recordsPerBatch - 1, BENCH_NOW_MS);
        seq = incrementSequence(last, 1);
      }
    },
  };
}
