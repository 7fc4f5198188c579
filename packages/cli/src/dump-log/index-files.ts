import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  LogSegment,
  OFFSET_ENTRY_BYTES,
  OFFSET_INDEX_SUFFIX,
  parseSegmentFileName,
  SegmentIndex,
  TIME_ENTRY_BYTES,
  TIME_INDEX_SUFFIX,
} from '@klog/storage/internals';
import type { Style } from '../style.js';

/**
 * `.index` and `.timeindex` files, as Kafka's `DumpLogSegments` shows and checks them:
 * each entry (`offset: O position: P`, `timestamp: T offset: O`), then each entry
 * checked against the segment beside it: an offset entry must point at the batch
 * whose last offset it names, a time entry at the batch whose largest timestamp it
 * names. `--index-sanity-check` runs only the file's own sanity check (Kafka's
 * `sanityCheck`); `--verify-index-only` checks without printing the entries.
 */

export type IndexMode = 'dump' | 'verify-only' | 'sanity-check';

export function isIndexFile(path: string): boolean {
  return path.endsWith(OFFSET_INDEX_SUFFIX) || path.endsWith(TIME_INDEX_SUFFIX);
}

/** The base offset of the segment after `segmentPath`'s in its directory, if any. */
function nextBaseOffset(segmentPath: string, base: number): number | undefined {
  const bases = readdirSync(dirname(segmentPath))
    .map((n) => parseSegmentFileName(n))
    .filter((b): b is number => b !== undefined && b > base)
    .sort((a, b) => a - b);
  return bases[0];
}

/** Dump or check one index file; returns the problems found (one line each). */
export function dumpIndexFile(
  path: string,
  mode: IndexMode,
  out: (line: string) => void,
  style: Style,
): string[] {
  const offsetIndex = path.endsWith(OFFSET_INDEX_SUFFIX);
  const stem = path.slice(0, -(offsetIndex ? OFFSET_INDEX_SUFFIX : TIME_INDEX_SUFFIX).length);
  const segmentPath = `${stem}.log`;
  const base = parseSegmentFileName(basename(segmentPath));
  out(`Dumping ${path}`);
  const problems: string[] = [];
  const problem = (line: string) => {
    problems.push(line);
    out(style.red(line));
  };
  if (base === undefined || !existsSync(segmentPath)) {
    problem(`${path}: no segment ${basename(segmentPath)} beside it to check it against`);
    return problems;
  }
  const whole = readFileSync(path);
  const size = offsetIndex ? OFFSET_ENTRY_BYTES : TIME_ENTRY_BYTES;
  // A live segment's index is preallocated and zero-filled past its entries: as Kafka's DumpLogSegments, the
  // entries end at the first one after the first whose relative offset is 0 (in dump and verify modes).
  const bytes = mode === 'sanity-check' ? whole : whole.subarray(0, usedBytes(whole, offsetIndex, size));
  const segment = LogSegment.open(segmentPath, base, {
    readOnly: true,
    nextBaseOffset: nextBaseOffset(segmentPath, base),
  });
  try {
    const sanity = offsetIndex
      ? SegmentIndex.decode(bytes, Buffer.alloc(0), base, segment.size, segment.nextBaseOffset)
      : SegmentIndex.decode(Buffer.alloc(0), bytes, base, segment.size, segment.nextBaseOffset);
    if (mode === 'sanity-check') {
      if (typeof sanity === 'string') problem(`${path} failed sanity check: ${sanity}`);
      else out(`${path} passed sanity check.`);
      return problems;
    }
    if (typeof sanity === 'string') problem(`${path} failed sanity check: ${sanity}`);
    for (let at = 0; at + size <= bytes.length; at += size) {
      if (offsetIndex) {
        const offset = base + bytes.readInt32BE(at);
        const position = bytes.readInt32BE(at + 4);
        if (mode === 'dump') out(`offset: ${offset} position: ${position}`);
        let last: number | undefined;
        try {
          const { header } = segment.readCheckedBatchAt(position);
          last = header.baseOffset + header.lastOffsetDelta;
        } catch (error) {
          problem(
            `Index offset ${offset}, position ${position}: no valid batch there (${(error as Error).message})`,
          );
          continue;
        }
        if (last !== offset) problem(`Index offset ${offset}, log offset ${last} mismatch.`);
      } else {
        const timestamp = Number(bytes.readBigInt64BE(at));
        const offset = base + bytes.readInt32BE(at + 8);
        if (mode === 'dump') out(`timestamp: ${timestamp} offset: ${offset}`);
        let found: number | undefined;
        for (const { header } of segment.headers()) {
          if (header.baseOffset + header.lastOffsetDelta === offset) {
            found = header.maxTimestamp;
            break;
          }
        }
        if (found === undefined) problem(`Time index offset ${offset}: no batch ends there.`);
        else if (found !== timestamp) {
          problem(
            `Time index offset ${offset}: the index says timestamp ${timestamp}, the batch holds ${found}.`,
          );
        }
      }
    }
    if (problems.length === 0 && mode === 'verify-only')
      out(`${path}: every entry matches ${basename(segmentPath)}`);
  } finally {
    segment.close();
  }
  return problems;
}

/** The bytes of `index` before its zero-filled tail: entries up to the first after the first with relative offset 0. */
function usedBytes(index: Buffer, offsetIndex: boolean, size: number): number {
  const relativeAt = offsetIndex ? 0 : 8;
  for (let at = size; at + size <= index.length; at += size) {
    if (index.readInt32BE(at + relativeAt) === 0) return at;
  }
  return index.length - (index.length % size);
}

/** The index files of a partition directory, in offset order. */
export function indexFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => /^\d{20}\.(index|timeindex)$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}
