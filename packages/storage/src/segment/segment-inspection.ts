import { crcMismatch, DecodeError } from '../errors.js';
import {
  BATCH_FIELD,
  computeBatchCrc,
  type DecodeOptions,
  decodeBatchHeader,
  lastOffsetOf,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchHeader,
  readStoredBatchHeader,
  type StoredBatchHeader,
} from '../format/record-batch.js';
import { storedBatchOptions } from './stored-batch.js';

/**
 * Diagnostics of a segment, for recovery and `klog dump-log`: every batch checked as
 * they need it, going on past a bad batch as long as its length leads to the next.
 * What makes the bytes trustworthy is checked with the segment's own rules (its
 * framing, inside the file; the CRC; the offsets and epoch the CRC does not cover).
 */

/**
 * A whole batch found by `LogSegment.inspect` (its length leads to the next one), with
 * what is wrong with it, if anything. `header` is undefined when a field holds a value
 * the format does not allow (a flipped high byte in producerId, a compression id of 7):
 * then `headerProblem` says which, and `stored` still shows every field as it is.
 */
export type InspectedBatch = InspectedBatchFields &
  (
    | { readonly header: RecordBatchHeader; readonly headerProblem: undefined }
    | { readonly header: undefined; readonly headerProblem: DecodeError }
  );

interface InspectedBatchFields {
  readonly kind: 'batch';
  readonly position: number;
  /** The header exactly as stored, 64-bit fields as bigint. */
  readonly stored: StoredBatchHeader;
  /** The batch's bytes as stored, `batchSize(header)` of them. */
  readonly bytes: Buffer;
  /** CRC-32C of the bytes, attributes … end of batch; `header.crc` is what was stored. */
  readonly computedCrc: number;
  readonly crcValid: boolean;
  /**
   * Why this whole batch is not to be trusted: its CRC, its offsets out of order, its
   * epoch. Undefined for a valid batch. Offsets count from the start of the file.
   */
  readonly problem: DecodeError | undefined;
  /**
   * This batch starts below where the one before it ended (for a batch whose CRC
   * fails too: its stored baseOffset does). Both baseOffsets lie outside the CRC and
   * either may be the wrong one, so neither is to be trusted.
   */
  readonly previousSuspect: boolean;
}

/** Where `inspect` could not find a whole batch: the position and why. */
export interface InspectionStop {
  readonly kind: 'stop';
  readonly position: number;
  readonly error: DecodeError;
}

export type InspectionEntry = InspectedBatch | InspectionStop;

/**
 * What inspecting needs of a `LogSegment` (log-segment.ts calls `inspectSegment` on itself): named here so the
 * two files do not import each other.
 */
export interface InspectedSegment {
  readonly size: number;
  readonly path: string;
  read(position: number, length: number): Buffer;
  wholeBatchSize(bytes: Uint8Array, at: number, options: DecodeOptions & { readonly base: number }): number;
  misplacement(
    header: RecordBatchHeader,
    position: number,
    nextOffset: number,
  ): { readonly error: DecodeError; readonly neighbour: boolean } | undefined;
}

/**
 * Every batch in `segment` from `from`: whole batches come with their bytes, their CRC
 * and what is wrong with them, if anything, and the scan goes on past a bad one as
 * long as its length leads to the next; it ends with a `stop` entry where no whole
 * batch could be found (a torn write, or a length field that is garbage). `from` must
 * be a batch position; `expectFrom` is the offset the first batch must not start below.
 */
export function* inspectSegment(
  segment: InspectedSegment,
  from: number,
  expectFrom: number,
): Generator<InspectionEntry> {
  let position = from;
  let nextOffset = expectFrom;
  let previous = from > 0;
  while (position < segment.size) {
    let size: number;
    try {
      size = segment.wholeBatchSize(
        segment.read(position, RECORD_BATCH_OVERHEAD),
        0,
        storedBatchOptions(position),
      );
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      yield { kind: 'stop', position, error };
      return;
    }
    const bytes = segment.read(position, size);
    const stored = readStoredBatchHeader(bytes);
    // A field the format does not allow makes the batch bad, not the scan: its length still leads to the next.
    let header: RecordBatchHeader | undefined;
    let headerProblem: DecodeError | undefined;
    try {
      header = decodeBatchHeader(bytes, 0, storedBatchOptions(position));
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      headerProblem = error.inFile(segment.path);
    }
    const computedCrc = computeBatchCrc(bytes, 0, stored);
    const crcValid = computedCrc === stored.crc;
    let problem: DecodeError | undefined;
    let previousSuspect = false;
    if (!crcValid) {
      problem = crcMismatch(stored.crc, computedCrc, position + BATCH_FIELD.crc, segment.path);
      // Its baseOffset is outside the CRC either way; if it still disagrees with the batch
      // before, that one's baseOffset may be the wrong one, and nothing after can vouch for it.
      previousSuspect = previous && stored.baseOffset < BigInt(nextOffset);
    } else if (header === undefined) {
      problem = headerProblem;
    } else {
      const misplaced = segment.misplacement(header, position, nextOffset);
      problem = misplaced?.error;
      previousSuspect = misplaced?.neighbour === true && previous;
      // A batch whose CRC fails may have any lastOffsetDelta: judge the next one by the last good one.
      nextOffset = lastOffsetOf(header) + 1;
    }
    const fields = {
      kind: 'batch',
      position,
      stored,
      bytes,
      computedCrc,
      crcValid,
      previousSuspect,
    } as const;
    yield header === undefined
      ? { ...fields, header, headerProblem: headerProblem!, problem }
      : { ...fields, header, headerProblem: undefined, problem };
    previous = true;
    position += bytes.length;
  }
}
