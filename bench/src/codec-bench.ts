import { decodeRecordBatch, encodeRecordBatch, type RecordBatchFields } from '@klog/storage/internals';
import { type BenchContext, reportComparison } from './context.js';
import { BENCH_NOW_MS, codecRecords, formatBytes, recordInputs } from './data.js';
import { measurePair, type TaskSpec } from './harness.js';
import {
  type KafkaJsBatchInput,
  type KafkaJsRecordInput,
  kafkaJsCrc32C,
  kafkaJsDecode,
  kafkaJsLong,
  kafkaJsRecord,
  kafkaJsRecordBatch,
} from './kafkajs.js';
import type { Comparison } from './results.js';
import { comparison } from './stats.js';
import { CODEC_TARGET } from './targets.js';

/**
 * RecordBatch v2 encode and decode, klog against KafkaJS, on the same records and
 * the same bytes: both encoders start from plain JS records (key, value, deltas)
 * and must produce byte-identical batches (checked before timing), and both
 * decoders read those bytes.
 *
 * KafkaJS's encoder and decoder are async (they may compress), so its tasks await
 * every batch, as a caller of KafkaJS must; klog's are synchronous. Each timed call
 * runs a loop of about 1000 records' worth of batches, so the harness's own cost
 * per call (tinybench's timer and, for async tasks, one awaited promise) is spread
 * over hundreds of microseconds of work on both sides.
 *
 * Fairness of decode: klog checks the CRC-32C of every batch (native, @node-rs/crc32),
 * KafkaJS's decoder does not check it at all. The target row compares klog with the
 * CRC against KafkaJS without; a second row adds KafkaJS's own crc32C to its side,
 * so that both do the same work.
 */

export const RECORD_COUNTS = [1, 10, 100, 1000] as const;
export const VALUE_SIZES = [100, 1024] as const;
interface CodecCase {
  readonly count: number;
  readonly valueBytes: number;
  readonly fields: RecordBatchFields;
  readonly kafkaJsRecords: readonly KafkaJsRecordInput[];
  readonly kafkaJsBatch: Omit<KafkaJsBatchInput, 'records'>;
  readonly bytes: Buffer;
  /** Batches per timed call. */
  readonly inner: number;
}

async function makeCase(count: number, valueBytes: number): Promise<CodecCase> {
  const records = codecRecords(recordInputs(count, valueBytes, count + valueBytes));
  const fields: RecordBatchFields = {
    baseOffset: 1_000_000,
    partitionLeaderEpoch: 0,
    attributes: 0,
    lastOffsetDelta: count - 1,
    baseTimestamp: BENCH_NOW_MS,
    maxTimestamp: BENCH_NOW_MS + count - 1,
    producerId: 1000,
    producerEpoch: 0,
    baseSequence: 0,
    records,
  };
  const kafkaJsRecords: KafkaJsRecordInput[] = records.map((r) => ({
    offsetDelta: r.offsetDelta,
    timestampDelta: r.timestampDelta,
    key: r.key as Buffer,
    value: r.value as Buffer,
    headers: {},
  }));
  const kafkaJsBatch = {
    firstOffset: kafkaJsLong(fields.baseOffset),
    firstTimestamp: fields.baseTimestamp,
    maxTimestamp: fields.maxTimestamp,
    partitionLeaderEpoch: fields.partitionLeaderEpoch,
    lastOffsetDelta: fields.lastOffsetDelta,
    producerId: kafkaJsLong(fields.producerId),
    producerEpoch: fields.producerEpoch,
    firstSequence: fields.baseSequence,
  };
  const ours = encodeRecordBatch(fields);
  const theirs = (await kafkaJsRecordBatch({ ...kafkaJsBatch, records: kafkaJsRecords.map(kafkaJsRecord) }))
    .buffer;
  if (!ours.equals(theirs)) {
    throw new Error(`klog and KafkaJS encode ${count} × ${valueBytes} B differently: not a fair comparison`);
  }
  const decoded = decodeRecordBatch(ours);
  const theirDecoded = await kafkaJsDecode(ours);
  if (decoded.records.length !== count || theirDecoded.records.length !== count) {
    throw new Error(`a decoder lost records of ${count} × ${valueBytes} B`);
  }
  return {
    count,
    valueBytes,
    fields,
    kafkaJsRecords,
    kafkaJsBatch,
    bytes: ours,
    inner: Math.max(1, Math.round(1000 / count)),
  };
}

/** Keeps results observable so the engine cannot drop the work. */
let sink = 0;

export async function runCodecBench(ctx: BenchContext): Promise<Comparison[]> {
  const out: Comparison[] = [];
  const cases: CodecCase[] = [];
  for (const valueBytes of VALUE_SIZES) {
    for (const count of RECORD_COUNTS) cases.push(await makeCase(count, valueBytes));
  }
  ctx.progress(`  ${cases.length} batch shapes; klog and KafkaJS bytes checked identical for each`);
  for (const c of cases) {
    const shape = `${c.count} × ${formatBytes(c.valueBytes)}`;
    const perOp = { batches: 1, records: c.count, bytes: c.bytes.length };
    const { inner, fields, bytes, kafkaJsBatch, kafkaJsRecords } = c;

    const klogEncode: TaskSpec = {
      name: 'klog',
      ops: inner,
      async: false,
      fn: () => {
        for (let i = 0; i < inner; i++) sink += encodeRecordBatch(fields).length;
      },
    };
    const kafkaJsEncode: TaskSpec = {
      name: 'KafkaJS',
      ops: inner,
      async: true,
      fn: async () => {
        for (let i = 0; i < inner; i++) {
          const batch = await kafkaJsRecordBatch({
            ...kafkaJsBatch,
            records: kafkaJsRecords.map(kafkaJsRecord),
          });
          sink += batch.buffer.length;
        }
      },
    };
    const encode = comparison(
      {
        id: `encode-${c.count}x${c.valueBytes}`,
        group: 'codec',
        label: `encode ${shape}`,
        ratioUnit: 'faster than KafkaJS',
        subjectPerOp: perOp,
        baselinePerOp: perOp,
        target: CODEC_TARGET,
      },
      await measurePair(klogEncode, kafkaJsEncode, ctx.rounds),
    );
    reportComparison(ctx, encode);
    out.push(encode);

    const klogDecode: TaskSpec = {
      name: 'klog (CRC checked)',
      ops: inner,
      async: false,
      fn: () => {
        for (let i = 0; i < inner; i++) sink += decodeRecordBatch(bytes).records.length;
      },
    };
    const kafkaJsDecodeTask: TaskSpec = {
      name: 'KafkaJS (no CRC check)',
      ops: inner,
      async: true,
      fn: async () => {
        for (let i = 0; i < inner; i++) sink += (await kafkaJsDecode(bytes)).records.length;
      },
    };
    const decode = comparison(
      {
        id: `decode-${c.count}x${c.valueBytes}`,
        group: 'codec',
        label: `decode ${shape}`,
        ratioUnit: 'faster than KafkaJS',
        subjectPerOp: perOp,
        baselinePerOp: perOp,
        target: CODEC_TARGET,
        note: 'klog checks the CRC-32C, KafkaJS does not',
      },
      await measurePair(klogDecode, kafkaJsDecodeTask, ctx.rounds),
    );
    reportComparison(ctx, decode);
    out.push(decode);

    const kafkaJsDecodeCrc: TaskSpec = {
      name: 'KafkaJS + its crc32C',
      ops: inner,
      async: true,
      fn: async () => {
        for (let i = 0; i < inner; i++) {
          if (kafkaJsCrc32C(bytes.subarray(21)) !== bytes.readUInt32BE(17)) throw new Error('CRC mismatch');
          sink += (await kafkaJsDecode(bytes)).records.length;
        }
      },
    };
    const decodeCrc = comparison(
      {
        id: `decode-crc-${c.count}x${c.valueBytes}`,
        group: 'codec',
        label: `decode ${shape}, both check the CRC`,
        ratioUnit: 'faster than KafkaJS',
        subjectPerOp: perOp,
        baselinePerOp: perOp,
      },
      await measurePair(klogDecode, kafkaJsDecodeCrc, ctx.rounds),
    );
    reportComparison(ctx, decodeCrc);
    out.push(decodeCrc);
  }
  if (sink === 0) throw new Error('no work was done');
  return out;
}
