import { StorageError } from '../errors.js';
import { MAX_OFFSET } from '../format/record-batch.js';

/** Segment files are named by their base offset: `<20-digit offset>.log`, as Kafka names them. */
export const SEGMENT_SUFFIX = '.log';
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
