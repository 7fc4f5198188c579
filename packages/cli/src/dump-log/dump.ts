import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  DecodeError,
  decodeRecordBatch,
  findBatchStart,
  type InspectedBatch,
  LogSegment,
} from '@klog/storage';
import { UsageError } from '../errors.js';
import type { Style } from '../style.js';
import { batchLine, recordLine } from './batch-lines.js';
import type { DumpPlan, SegmentFile } from './segment-files.js';

export interface DumpOptions {
  /** Print each record too (Kafka's `--print-data-log`). */
  readonly records: boolean;
}

/** What was wrong, for the one-line summary: the file, the byte, the field, why. */
export interface Finding {
  readonly file: string;
  readonly error: DecodeError;
}

function where(error: DecodeError): string {
  return `${error.field} at byte ${error.offset}: ${error.reason}`;
}

/**
 * Dump one file, batch by batch, as `kafka-dump-log.sh` does, then say what is
 * wrong with it, if anything. A batch whose length leads to the next is printed
 * even when it is bad (`isvalid: false` for its CRC, and a `problem:` line for
 * anything else), and the dump goes on; where no whole batch can be found the dump
 * stops and says at which byte, and why. Read only: nothing is repaired.
 */
function dumpFile(
  file: SegmentFile,
  options: DumpOptions,
  out: (line: string) => void,
  style: Style,
): Finding[] {
  const findings: Finding[] = [];
  const problem = (error: DecodeError) => {
    findings.push({ file: file.path, error });
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
  try {
    for (const entry of segment.inspect()) {
      if (entry.kind === 'stop') {
        findings.push({ file: file.path, error: entry.error });
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
      printBatch(entry, options, out, style, problem);
    }
  } finally {
    segment.close();
  }
  return findings;
}

function printBatch(
  entry: InspectedBatch,
  options: DumpOptions,
  out: (line: string) => void,
  style: Style,
  problem: (error: DecodeError) => void,
): void {
  const line = batchLine(entry.header, entry.position, entry.bytes.length, entry.crcValid);
  out(entry.crcValid ? line : style.red(line));
  if (entry.problem !== undefined) {
    problem(entry.problem);
    if (entry.previousSuspect)
      out(style.red('  problem: so the baseOffset of the batch before may be the wrong one'));
  }
  // Records are decoded even when not printed: a batch whose CRC holds but whose records do not parse is bad too.
  if (!entry.crcValid) {
    if (options.records) out(style.red('| records not shown: the batch fails its CRC-32C'));
    return;
  }
  try {
    const batch = decodeRecordBatch(entry.bytes, 0, { base: entry.position, verifyCrc: false });
    if (options.records) for (const record of batch.records) out(recordLine(entry.header, record));
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    problem(error);
  }
}

/** Dump every file of the plan; returns what was found wrong, in order. */
export function dumpLog(
  plan: DumpPlan,
  options: DumpOptions,
  out: (line: string) => void,
  style: Style,
): Finding[] {
  const findings: Finding[] = [];
  for (const file of plan.files) findings.push(...dumpFile(file, options, out, style));
  for (const path of plan.dropped) {
    out(
      `Not part of the log: ${path} (${statSync(path).size} bytes that recovery cut from a segment and kept)`,
    );
  }
  return findings;
}
