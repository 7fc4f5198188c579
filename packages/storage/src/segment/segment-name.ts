import { StorageError } from '../errors.js';
import { MAX_OFFSET } from '../format/record-batch.js';

/**
 * The names of a partition directory's files, the one place that spells them (Kafka's
 * `LogFileUtils`). Segment files are named by their base offset: `<20-digit offset>.log`,
 * with their indexes beside them (`.index`, `.timeindex`); compaction writes
 * `<segment>.cleaned` and commits it as `<segment>.swap`; a file written whole is first
 * written as `<name>.tmp`.
 */
export const SEGMENT_SUFFIX = '.log';
export const OFFSET_INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const CLEANED_SUFFIX = '.cleaned';
export const SWAP_SUFFIX = '.swap';
export const TEMPORARY_SUFFIX = '.tmp';

/** A segment's two index files, beside it. */
export interface IndexPaths {
  readonly offsets: string;
  readonly times: string;
}

/** `<base>.index` and `<base>.timeindex` of the segment at `segmentPath`. */
export function indexPathsOf(segmentPath: string): IndexPaths {
  const stem = segmentPath.slice(0, -SEGMENT_SUFFIX.length);
  return { offsets: stem + OFFSET_INDEX_SUFFIX, times: stem + TIME_INDEX_SUFFIX };
}

/** Where compaction writes the cleaned copy of the segment at `segmentPath`. */
export function cleanedPathOf(segmentPath: string): string {
  return segmentPath + CLEANED_SUFFIX;
}

/** The committed cleaned copy of the segment at `segmentPath`, renamed over it next. */
export function swapPathOf(segmentPath: string): string {
  return segmentPath + SWAP_SUFFIX;
}

/** The segment a `.swap` file replaces. */
export function segmentPathOfSwap(swapPath: string): string {
  return swapPath.slice(0, -SWAP_SUFFIX.length);
}

/** Where recovery keeps the bytes it cut from the segment at `segmentPath`, from byte `position` on. */
export function droppedPathOf(segmentPath: string, position: number): string {
  return `${segmentPath}.dropped-${position}`;
}

/** Where a file written whole (`writeFileWhole`) is written before it is renamed to `path`. */
export function temporaryPathOf(path: string): string {
  return path + TEMPORARY_SUFFIX;
}
const SEGMENT_NAME = /^\d{20}\.log$/;

export function segmentFileName(baseOffset: number): string {
  return String(baseOffset).padStart(20, '0') + SEGMENT_SUFFIX;
}

/**
 * The base offset in a segment file name, or undefined if the name is not a
 * segment's. A segment name whose offset klog cannot hold exactly (past 2^53 - 1)
 * is refused with StorageError `OFFSET_OVERFLOW`, never skipped.
 */
export function parseSegmentFileName(name: string): number | undefined {
  if (!SEGMENT_NAME.test(name)) return undefined;
  const value = Number(name.slice(0, 20));
  if (value > MAX_OFFSET) {
    throw new StorageError(
      'OFFSET_OVERFLOW',
      `segment file ${name} starts at offset ${name.slice(0, 20).replace(/^0+(?=\d)/, '')}, past ${MAX_OFFSET}, ` +
        'the largest offset klog holds exactly',
    );
  }
  return value;
}
