import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  DecodeError,
  decodeRecordBatch,
  findBatchStart,
  type InspectedBatch,
  LogSegment,
} from '@klog/storage/internals';
import { UsageError } from '../errors.js';
import type { Style } from '../style.js';
import { batchLine, recordLine } from './batch-lines.js';
import type { DumpPlan, SegmentFile } from './segment-files.js';

/**
 * What is printed of each batch's records, as Kafka's DumpLogSegments chooses:
 * - `none`: batch lines only (its default, shallow iteration);
 * - `metadata`: a line per record, without key and value (`--deep-iteration`);
 * - `data`: a line per record with key and value (`--print-data-log`, klog's `--records`).
 * Records are decoded whatever is printed: a batch whose CRC holds but whose records
 * do not parse (or do not decompress) is bad too.
 */
export type RecordsShown = 'none' | 'metadata' | 'data';

export interface DumpOptions {
  readonly records: RecordsShown;
  /** Show `__consumer_offsets` records decoded (kafka-dump-log --offsets-decoder). */
  readonly offsetsDecoder?: boolean;
}

/** What was wrong, for the one-line summary: the file and what (for bytes: the field, the byte, why). */
export interface Finding {
  readonly file: string;
  readonly what: string;
}

function where(error: DecodeError): string {
  return `${error.field} at byte ${error.offset}: ${error.reason}`;
}

/** Offsets one record does not follow the one before on, as `--deep-iteration` reports them (a compacted log has them). */
interface OffsetGaps {
  last: bigint | undefined;
  readonly pairs: [bigint, bigint][];
}

/**
 * Dump one file, batch by batch, as `kafka-dump-log.sh` does, then say what is
 * wrong with it, if anything. A batch whose length leads to the next is printed
 * even when it is bad (`isvalid: false` for its CRC, and a `problem:` line for
 * anything else, such as a 64-bit field no number holds), and the dump goes on;
 * where no whole batch can be found the dump stops and says at which byte, and
 * why. Read only: nothing is repaired.
 */
function dumpFile(
  file: SegmentFile,
  options: DumpOptions,
  out: (line: string) => void,
  style: Style,
  note: (line: string) => void,
): Finding[] {
  const findings: Finding[] = [];
  const problem = (error: DecodeError) => {
    findings.push({ file: file.path, what: where(error) });
    out(style.red(`  problem: ${where(error)}`));
  };
  out(`Dumping ${file.path}`);
  if (file.baseOffset !== undefined) out(`Log starting offset: ${file.baseOffset}`);
  let segment: LogSegment;
  try {
    segment = LogSegment.open(file.path, file.baseOffset ?? 0, {
      readOnly: true,
      nextBaseOffset: file.nextBaseOffset,
    });
  } catch (error) {
    throw new UsageError(`dump-log ${file.path}: cannot open it: ${(error as Error).message}`);
  }
  const gaps: OffsetGaps = { last: undefined, pairs: [] };
  try {
    if (segment.size === 0) {
      out(`${basename(file.path)} is empty: 0 bytes, no batches`);
      return findings;
    }
    for (const entry of segment.inspect()) {
      if (entry.kind === 'stop') {
        findings.push({ file: file.path, what: where(entry.error) });
        const trailing = segment.size - entry.position;
        out(style.red(`Found ${trailing} invalid bytes at the end of ${basename(file.path)}`));
        out(style.red(`Stopped at position ${entry.position}: ${where(entry.error)}`));
        const again = findBatchStart(segment, entry.position + 1);
        if (again !== undefined) {
          out(
            style.red(
              `A whole batch with a valid CRC starts again at position ${again}: ` +
                `the ${again - entry.position} bytes before it are damaged (dump a copy cut there to see the rest)`,
            ),
          );
        }
        break;
      }
      printBatch(entry, options, out, style, problem, gaps);
    }
  } finally {
    segment.close();
  }
  if (gaps.pairs.length > 0) {
    note(`Non-consecutive offsets in ${file.path}`);
    for (const [first, second] of gaps.pairs) note(`  ${first} is followed by ${second}`);
  }
  return findings;
}

function printBatch(
  entry: InspectedBatch,
  options: DumpOptions,
  out: (line: string) => void,
  style: Style,
  problem: (error: DecodeError) => void,
  gaps: OffsetGaps,
): void {
  const valid = entry.problem === undefined;
  const line = batchLine(entry.stored, entry.position, entry.bytes.length, entry.crcValid);
  out(valid ? line : style.red(line));
  if (entry.problem !== undefined) {
    problem(entry.problem);
    if (entry.previousSuspect)
      out(style.red('  problem: so the baseOffset of the batch before may be the wrong one'));
  }
  // A field no number holds, in a batch whose CRC fails too: the CRC is the first problem, this the second.
  if (entry.headerProblem !== undefined && entry.headerProblem !== entry.problem)
    problem(entry.headerProblem);
  const shown = options.records !== 'none';
  // Records that cannot be read leave no gap to report: the next batch starts the count again.
  if (!entry.crcValid || entry.header === undefined) gaps.last = undefined;
  if (!entry.crcValid) {
    if (shown) out(style.red('| records not shown: the batch fails its CRC-32C'));
    return;
  }
  if (entry.header === undefined) {
    if (shown)
      out(style.red("| records not shown: the batch's header holds values the format does not allow"));
    return;
  }
  try {
    const batch = decodeRecordBatch(entry.bytes, 0, { base: entry.position, verifyCrc: false });
    if (!shown) return;
    for (const record of batch.records) {
      const offset = entry.stored.baseOffset + BigInt(record.offsetDelta);
      if (gaps.last !== undefined && offset !== gaps.last + 1n) gaps.pairs.push([gaps.last, offset]);
      gaps.last = offset;
      out(recordLine(entry.stored, record, options.records === 'data', options.offsetsDecoder === true));
    }
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    gaps.last = undefined;
    problem(error);
  }
}

/**
 * Dump every file of the plan; returns what was found wrong, in order. `note` takes
 * the lines Kafka's tool prints on stderr that are not problems: an unknown file
 * ignored, offsets that do not follow on (with --deep-iteration).
 */
export function dumpLog(
  plan: DumpPlan,
  options: DumpOptions,
  out: (line: string) => void,
  note: (line: string) => void,
  style: Style,
): Finding[] {
  const findings: Finding[] = [];
  for (const item of plan.files) {
    if (item.kind === 'unknown') {
      // Kafka's DumpLogSegments: "Dumping <file>" on stdout, then this on stderr; not a problem.
      out(`Dumping ${item.path}`);
      note(`Ignoring unknown file ${item.path}`);
      continue;
    }
    if (item.kind === 'not-a-file') {
      const what = `named like a segment but ${item.type}, not a regular file: not opened`;
      out(style.red(`Skipping ${item.path}: ${what}`));
      findings.push({ file: item.path, what });
      continue;
    }
    findings.push(...dumpFile(item, options, out, style, note));
  }
  for (const path of plan.dropped) {
    out(
      `Not part of the log: ${path} (${statSync(path).size} bytes that recovery cut from a segment and kept)`,
    );
  }
  for (const path of plan.ignored) note(`Ignoring unknown file ${path}`);
  return findings;
}
