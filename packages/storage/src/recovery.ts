import { writeFileSync } from 'node:fs';
import { DecodeError } from './errors.js';
import {
  batchSize,
  computeBatchCrc,
  DEFAULT_MAX_BATCH_BYTES,
  decodeBatchHeader,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
} from './record-batch.js';
import type { LogSegment } from './segment.js';

/** What recovery found in a segment and what it did about it. */
export interface RecoveryReport {
  readonly segmentPath: string;
  /** Whole, valid batches kept. */
  readonly batches: number;
  /** Bytes of valid batches, from the start of the file. */
  readonly validBytes: number;
  /** Bytes cut from the end of the file (0 when the segment was whole). */
  readonly truncatedBytes: number;
  /** Why the first dropped byte was not the start of a valid batch. */
  readonly error: DecodeError | undefined;
  /** Where the dropped bytes were saved, so nothing is deleted silently. */
  readonly savedTo: string | undefined;
  /** The offset after the last valid batch; undefined for a segment with no batch. */
  readonly nextOffset: number | undefined;
}

/**
 * Validate a segment batch by batch, as Kafka's `LogSegment.recover` does after an
 * unclean shutdown: length within bounds, magic, CRC-32C, offsets increasing. At the
 * first invalid batch, the rest of the file is a torn or corrupt tail: it is copied to
 * `<segment>.log.dropped-<position>` and cut off, so appends continue after the last
 * good batch.
 */
export function recoverSegment(segment: LogSegment, maxBatchBytes = DEFAULT_MAX_BATCH_BYTES): RecoveryReport {
  let position = 0;
  let batches = 0;
  let nextOffset: number | undefined;
  let error: DecodeError | undefined;
  const size = segment.size;
  while (position < size) {
    try {
      const head = segment.read(position, RECORD_BATCH_OVERHEAD);
      const header = decodeBatchHeader(head, 0, { maxBatchBytes, base: position });
      const length = batchSize(header);
      if (position + length > size) {
        throw new DecodeError(
          'batchLength',
          position + 8,
          `truncated: batch needs ${length} bytes, the file has ${size - position} left`,
        );
      }
      const expectedFrom = nextOffset ?? segment.baseOffset;
      if (header.baseOffset < expectedFrom) {
        throw new DecodeError(
          'baseOffset',
          position,
          `${header.baseOffset} is below ${expectedFrom}, where the previous batch ended`,
        );
      }
      const bytes = segment.read(position, length);
      if (computeBatchCrc(bytes, 0, header) !== header.crc) {
        throw new DecodeError('crc', position + 17, 'the batch does not match its CRC-32C');
      }
      nextOffset = lastOffsetOf(header) + 1;
      position += length;
      batches++;
    } catch (caught) {
      if (!(caught instanceof DecodeError)) throw caught;
      error = caught;
      break;
    }
  }
  let savedTo: string | undefined;
  const truncatedBytes = size - position;
  if (truncatedBytes > 0) {
    savedTo = `${segment.path}.dropped-${position}`;
    writeFileSync(savedTo, segment.read(position, truncatedBytes));
    segment.truncateTo(position);
  }
  return {
    segmentPath: segment.path,
    batches,
    validBytes: position,
    truncatedBytes,
    error,
    savedTo,
    nextOffset,
  };
}
