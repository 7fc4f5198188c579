import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DecodeError, StorageError } from '../src/errors.js';
import { fzstdLib, lz4Lib, nodeZstdLib, snappyLib } from '../src/format/codecs.js';
import { COMPRESSION_MASK } from '../src/format/compression.js';
import {
  batchSize,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  MAX_READABLE_BATCH_BYTES,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
} from '../src/format/record-batch.js';
import { Partition } from '../src/partition/partition.js';
import { findBatchStart, findValidBatches } from '../src/segment/batch-search.js';
import { LogSegment } from '../src/segment/log-segment.js';
import { checkSegment, recoverSegment } from '../src/segment/recovery.js';
import { batchInputs, type FuzzInput, largeSegmentInputs, produceInputs, segmentInputs } from './inputs.js';

/**
 * The fuzz targets and what each must hold for every input:
 * - no exception but the typed DecodeError (a RangeError, a TypeError or an
 *   assertion from deep inside is a bug);
 * - no allocation past the input: no buffer larger than the input's bytes and no
 *   array longer than that (a count read from the bytes is checked against what the
 *   bytes can hold before anything is allocated). The probe below sees every
 *   `Buffer.alloc*` and every `new Array(n)`, `new Uint8Array(n)`, `new ArrayBuffer(n)`
 *   made while a target runs;
 * - no wrong value: bytes whose CRC holds and which no one re-CRC'd decode to a
 *   batch that encodes back to the very same bytes;
 * - no hang: every loop moves forward by at least one batch or one field; the time
 *   of the slowest input is reported, and `pnpm fuzz` fails past a generous bound.
 */

export class AllocationProbe {
  /** Largest buffer, in bytes, and longest array, in elements, asked for while on. */
  bytes = 0;
  elements = 0;
  #on = false;
  #restore: (() => void) | undefined;

  install(): void {
    if (this.#restore !== undefined) return;
    const probe = this;
    const B = Buffer as unknown as Record<string, (size: number, ...rest: unknown[]) => Buffer>;
    const names = ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const;
    const originals = names.map((name) => B[name]!);
    names.forEach((name, i) => {
      const original = originals[i]!;
      B[name] = function (this: unknown, size: number, ...rest: unknown[]) {
        if (probe.#on && typeof size === 'number') probe.bytes = Math.max(probe.bytes, size);
        return original.call(this, size, ...rest);
      };
    });
    const g = globalThis as unknown as Record<string, unknown>;
    const constructors = ['Array', 'Uint8Array', 'ArrayBuffer'] as const;
    const saved = constructors.map((name) => g[name]);
    const watch = (args: unknown[]) => {
      if (probe.#on && args.length === 1 && typeof args[0] === 'number') {
        probe.elements = Math.max(probe.elements, args[0]);
      }
    };
    constructors.forEach((name, i) => {
      g[name] = new Proxy(saved[i] as new (...args: unknown[]) => unknown, {
        construct(target, args, newTarget) {
          watch(args);
          return Reflect.construct(target, args, newTarget);
        },
        apply(target, self, args) {
          watch(args);
          return Reflect.apply(target, self, args);
        },
      });
    });
    this.#restore = () => {
      names.forEach((name, i) => {
        B[name] = originals[i]!;
      });
      constructors.forEach((name, i) => {
        g[name] = saved[i];
      });
    };
  }

  uninstall(): void {
    this.#restore?.();
    this.#restore = undefined;
  }

  /** Measure what `fn` allocates. */
  measure<T>(fn: () => T): T {
    this.#on = true;
    try {
      return fn();
    } finally {
      this.#on = false;
    }
  }

  reset(): void {
    this.bytes = 0;
    this.elements = 0;
  }
}

/** What one input did: `ok` or the DecodeError's field (record indexes folded), for the figures. */
type Outcome = string;

function outcomeOf(error: unknown): Outcome {
  if (error instanceof DecodeError) {
    if (!Number.isSafeInteger(error.offset) || error.offset < 0) {
      throw new Error(`DecodeError with a bad offset ${error.offset}: ${error.message}`);
    }
    return `DecodeError ${error.field.replace(/\[\d+\]/g, '[]')}`;
  }
  throw error;
}

/**
 * Whether a batch reached from the start of `bytes`, following each length as the
 * readers do, names a codec: decoding it allocates what the codec gives.
 */
function compressedBatchIn(bytes: Uint8Array): boolean {
  for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= bytes.length; ) {
    if ((bytes[pos + 22]! & COMPRESSION_MASK) !== 0) return true;
    const length = new DataView(bytes.buffer, bytes.byteOffset + pos + 8, 4).getInt32(0);
    if (length < RECORD_BATCH_OVERHEAD - 12) return false;
    pos += 12 + length;
  }
  return false;
}

/** A decoded batch encodes back to exactly the bytes it came from (klog's encoder writes uncompressed batches only). */
function expectFaithful(bytes: Uint8Array, context: string): void {
  const decoded = decodeRecordBatch(bytes);
  if ((decoded.attributes & COMPRESSION_MASK) !== 0) return;
  const again = encodeRecordBatch(decoded);
  if (!again.equals(bytes.subarray(0, batchSize(decoded)))) {
    throw new Error(`${context}: a batch with a valid CRC decoded to values that encode to other bytes`);
  }
}

export interface Target {
  readonly name: string;
  readonly inputs: fc.Arbitrary<FuzzInput>;
  /** Run the input; allocations inside `probe.measure` are checked against the input's size. */
  run(input: FuzzInput, probe: AllocationProbe, scratch: string): Outcome;
}

export const batchDecoder: Target = {
  name: 'batch decoder',
  inputs: batchInputs,
  run(input, probe) {
    const { bytes } = input;
    try {
      probe.measure(() => decodeBatchHeader(bytes));
    } catch (error) {
      outcomeOf(error);
    }
    let outcome: Outcome = 'ok';
    for (const verifyCrc of [false, true]) {
      try {
        const decoded = probe.measure(() => decodeRecordBatch(bytes, 0, { verifyCrc }));
        if (batchSize(decoded) > bytes.length) throw new Error('decoded a batch longer than its input');
        if (decoded.records.length !== decoded.recordsCount) throw new Error('records count mismatch');
        if (verifyCrc && (decoded.attributes & COMPRESSION_MASK) === 0) {
          if (!input.crcFixed) expectFaithful(bytes, 'decodeRecordBatch');
          // What is decoded encodes to a batch that decodes to the same fields; only the
          // length and CRC may differ, where the input spelled a varint with more bytes than needed.
          const reencoded = encodeRecordBatch(decoded);
          const again = decodeRecordBatch(reencoded);
          const fieldsOf = ({ batchLength: _l, crc: _c, ...rest }: RecordBatch) =>
            JSON.stringify(plain(rest));
          if (fieldsOf(again) !== fieldsOf(decoded))
            throw new Error('decode ∘ encode ∘ decode differs from decode');
          if (!encodeRecordBatch(again).equals(reencoded)) throw new Error('encode ∘ decode is not stable');
        }
        outcome = 'ok';
      } catch (error) {
        outcome = outcomeOf(error);
      }
    }
    return outcome;
  },
};

let fileCounter = 0;

function writeSegment(scratch: string, bytes: Uint8Array): string {
  const path = join(scratch, `${String(fileCounter++).padStart(20, '0')}.log`);
  writeFileSync(path, bytes, { flag: 'wx' });
  return path;
}

export const segmentReader: Target = {
  name: 'segment reader',
  inputs: segmentInputs,
  run(input, probe, scratch) {
    const path = writeSegment(scratch, input.bytes);
    const segment = LogSegment.open(path, 0, { readOnly: true });
    try {
      return probe.measure(() => {
        let last = -1;
        for (const entry of segment.inspect()) {
          if (entry.position <= last || entry.position >= segment.size)
            throw new Error('inspect went backwards');
          last = entry.position;
          if (entry.kind === 'stop') {
            outcomeOf(entry.error);
            continue;
          }
          if (entry.position + entry.bytes.length > segment.size) throw new Error('a batch past the end');
          if (entry.problem !== undefined) {
            outcomeOf(entry.problem);
            continue;
          }
          if (!input.crcFixed) expectFaithful(entry.bytes, `the batch at ${entry.position}`);
        }
        for (const scan of [() => [...segment.headers()], () => [...segment.batches()]]) {
          try {
            scan();
          } catch (error) {
            outcomeOf(error);
          }
        }
        const check = checkSegment(segment);
        if (
          check.validBytes > segment.size ||
          (check.kind === 'clean') !== (check.validBytes === segment.size)
        ) {
          throw new Error(`checkSegment is inconsistent: ${JSON.stringify({ ...check, error: undefined })}`);
        }
        const found = findBatchStart(segment, 1);
        if (found !== undefined && (found < 1 || found >= segment.size))
          throw new Error('findBatchStart out of range');
        // The linear search finds what trying every position would: compared on one small input in eight,
        // since trying every position is quadratic.
        if (segment.size <= 1024 && segment.size % 8 === 0) {
          const fast = findValidBatches(segment, 0).map((b) => b.position);
          const slow = naiveBatchStarts(segment);
          if (fast.join() !== slow.join()) {
            throw new Error(`findValidBatches found [${fast}], trying every position finds [${slow}]`);
          }
        }
        return check.error === undefined ? 'whole' : `${check.kind} at ${outcomeOf(check.error)}`;
      });
    } finally {
      segment.close();
      unlinkSync(path);
    }
  },
};

/** Every position where a whole batch with a good CRC starts, by trying each one: the search's reference. */
export function naiveBatchStarts(segment: LogSegment): number[] {
  const starts: number[] = [];
  for (let position = 0; position + 61 <= segment.size; position++) {
    const first = segment.inspect(position, 0).next();
    if (!first.done && first.value.kind === 'batch' && first.value.crcValid) starts.push(position);
  }
  return starts;
}

/** The segment reader on inputs of megabytes (see `largeSegmentInputs`): fewer of them, each far larger. */
export const largeSegmentReader: Target = {
  ...segmentReader,
  name: 'segment reader, inputs of megabytes',
  inputs: largeSegmentInputs,
};

export const recovery: Target = {
  name: 'recovery',
  inputs: segmentInputs,
  run(input, probe, scratch) {
    const path = writeSegment(scratch, input.bytes);
    const segment = LogSegment.open(path, 0);
    try {
      const report = probe.measure(() => recoverSegment(segment));
      // Nothing lost: what is left and what was saved are the input, byte for byte.
      const kept = readFileSync(path);
      const saved = report.savedTo === undefined ? Buffer.alloc(0) : readFileSync(report.savedTo);
      if (!Buffer.concat([kept, saved]).equals(input.bytes)) throw new Error('recovery lost bytes');
      if (kept.length !== report.validBytes) throw new Error('the segment was not cut where the report says');
      // Nothing let in: what is left is whole and valid, and a second recovery finds nothing to do.
      if (checkSegment(segment).kind !== 'clean') throw new Error('recovery left an invalid batch');
      if (report.savedTo !== undefined) unlinkSync(report.savedTo);
      return report.kind;
    } finally {
      segment.close();
      unlinkSync(path);
    }
  },
};

/** One partition per fuzz run (its scratch directory), appended to by every input. */
const partitions = new Map<string, Partition>();

/**
 * The Produce path below the CRC (`Partition.appendProducerBatch`, as `klog serve` calls it):
 * every input either is refused with a StorageError or a DecodeError, writing nothing, or is
 * appended and then read back whole by klog's own reader (`readCheckedBatches`, what `klog dump-log`
 * and recovery decode), with each record at the offset its delta says. A batch the log
 * accepted and its reader refuses would wedge every consumer at that offset.
 */
export const produceBelowCrc: Target = {
  name: 'produce, below the CRC',
  inputs: produceInputs,
  run(input, _probe, scratch) {
    let partition = partitions.get(scratch);
    if (partition === undefined || partition.log.isClosed) {
      partition = Partition.open(scratch, 'fuzz', 0);
      partitions.set(scratch, partition);
    }
    const before = partition.logEndOffset;
    const size = partition.log.activeSegment.size;
    let appended: ReturnType<Partition['appendProducerBatch']>;
    try {
      appended = partition.appendProducerBatch(Buffer.from(input.bytes));
    } catch (error) {
      if (partition.logEndOffset !== before || partition.log.activeSegment.size !== size) {
        throw new Error('a refused batch moved the log');
      }
      if (error instanceof StorageError) return `refused ${error.code}`;
      return `refused ${outcomeOf(error)}`;
    }
    if (appended.kind !== 'Append') throw new Error(`a batch with no producer was judged ${appended.kind}`);
    const [batch] = partition.log.readCheckedBatches(appended.firstOffset, 1);
    if (batch === undefined || batch.baseOffset !== appended.firstOffset) {
      throw new Error('an accepted batch did not read back');
    }
    batch.records.forEach((r, i) => {
      if (r.offsetDelta !== i)
        throw new Error(`record ${i} of an accepted batch has offset delta ${r.offsetDelta}`);
    });
    if (batch.records.length !== appended.lastOffset - appended.firstOffset + 1) {
      throw new Error('an accepted batch holds another number of records than its offsets');
    }
    return 'accepted, reads back';
  },
};

/** Close the partitions `produceBelowCrc` opened in `scratch` (before the directory goes). */
function closePartitions(scratch: string): void {
  partitions.get(scratch)?.close();
  partitions.delete(scratch);
}

function plain(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)),
  ) as unknown;
}

export interface Figures {
  readonly target: string;
  readonly inputs: number;
  readonly ms: number;
  readonly slowestInputMs: number;
  /** Input bytes: total and largest. */
  readonly inputBytes: number;
  readonly largestInput: number;
  /** The largest buffer asked for, in bytes, and the input it was asked for. */
  /** The largest buffer allocated for an uncompressed input (a compressed one may decompress to more, up to the ceiling). */
  readonly maxAllocBytes: number;
  readonly maxAllocInput: number;
  readonly maxArrayLength: number;
  readonly maxArrayInput: number;
  readonly outcomes: ReadonlyMap<string, number>;
  /** fast-check's report of the first failing input, shrunk; undefined when all held. */
  readonly failure: string | undefined;
}

export interface FuzzOptions {
  readonly numRuns: number;
  readonly seed?: number;
  readonly onProgress?: (done: number) => void;
}

/** Run a target on `numRuns` inputs and gather the figures. */
export function fuzz(target: Target, options: FuzzOptions): Figures {
  const probe = new AllocationProbe();
  const scratch = mkdtempSync(join(tmpdir(), 'klog-fuzz-'));
  const outcomes = new Map<string, number>();
  let inputs = 0;
  let inputBytes = 0;
  let largestInput = 0;
  let slowest = 0;
  let maxAlloc = { bytes: 0, input: 0 };
  let maxArray = { length: 0, input: 0 };
  const started = performance.now();
  // The codec libraries load on first use (format/codecs.ts), and a library's own start-up builds its tables:
  // loaded here, before the probe, so that is not counted against the first input that needs it.
  for (const load of [fzstdLib, lz4Lib, snappyLib, nodeZstdLib]) load();
  probe.install();
  try {
    const details = fc.check(
      fc.property(target.inputs, (input) => {
        probe.reset();
        const t = performance.now();
        const outcome = target.run(input, probe, scratch);
        slowest = Math.max(slowest, performance.now() - t);
        const size = input.bytes.length;
        // Records a codec decompresses may take more than the input, up to the decoders' one ceiling.
        const compressed = compressedBatchIn(input.bytes);
        const allowed = compressed ? MAX_READABLE_BATCH_BYTES : size;
        if (probe.bytes > allowed) {
          throw new Error(`allocated a buffer of ${probe.bytes} bytes for an input of ${size}`);
        }
        if (probe.elements > size) {
          throw new Error(`allocated an array of ${probe.elements} elements for an input of ${size} bytes`);
        }
        // The figure (and the bound the tests put on it) is for what the input's own bytes can ask for.
        if (!compressed && probe.bytes > maxAlloc.bytes) maxAlloc = { bytes: probe.bytes, input: size };
        if (probe.elements > maxArray.length) maxArray = { length: probe.elements, input: size };
        inputs++;
        inputBytes += size;
        largestInput = Math.max(largestInput, size);
        const key = `${input.how}: ${outcome}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        options.onProgress?.(inputs);
      }),
      { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) },
    );
    return {
      target: target.name,
      inputs,
      ms: performance.now() - started,
      slowestInputMs: slowest,
      inputBytes,
      largestInput,
      maxAllocBytes: maxAlloc.bytes,
      maxAllocInput: maxAlloc.input,
      maxArrayLength: maxArray.length,
      maxArrayInput: maxArray.input,
      outcomes,
      failure: details.failed
        ? `${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}`
        : undefined,
    };
  } finally {
    probe.uninstall();
    closePartitions(scratch);
    rmSync(scratch, { recursive: true, force: true });
  }
}
