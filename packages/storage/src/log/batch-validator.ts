import { MAX_PRODUCER_EPOCH, MAX_SEQUENCE } from '@klog/core';
import { StorageError } from '../errors.js';
import {
  CONTROL_FLAG,
  MAX_OFFSET,
  NO_PRODUCER_ID,
  type RecordBatchHeader,
  TRANSACTIONAL_FLAG,
} from '../format/record-batch.js';

/**
 * Where a batch comes from, which decides how much is checked (Kafka's `AppendOrigin`; see
 * `LogAppend` in log.ts): a `client`'s batch, or `raw` bytes from outside, pass every rule
 * below; a batch `klog` built a moment ago has its structure right by construction, and
 * only its size and offsets are checked.
 */
export type AppendOrigin = 'client' | 'raw' | 'klog';

/** The header fields the checks read. */
export type AppendedHeader = Pick<
  RecordBatchHeader,
  | 'attributes'
  | 'lastOffsetDelta'
  | 'recordsCount'
  | 'producerId'
  | 'producerEpoch'
  | 'baseSequence'
  | 'maxTimestamp'
>;

/**
 * Kafka's `LogValidator.validateBatch` for magic 2, on the header alone, plus the
 * limits that apply when a batch is accepted: whatever is refused here never reaches
 * the file, and whatever passes is something every reader of the log accepts. A
 * limit that is a setting (`message.max.bytes`) applies here only, never when the
 * data is read back.
 */
export function validateForAppend(
  header: AppendedHeader,
  size: number,
  baseOffset: number,
  maxBatchBytes: number,
  origin: AppendOrigin,
): void {
  if (size > maxBatchBytes) {
    throw new StorageError(
      'MESSAGE_TOO_LARGE',
      `batch of ${size} bytes exceeds the limit of ${maxBatchBytes} (message.max.bytes)`,
    );
  }
  if (header.lastOffsetDelta > MAX_OFFSET - baseOffset) {
    throw new StorageError(
      'OFFSET_OVERFLOW',
      `the batch would end at offset ${baseOffset} + ${header.lastOffsetDelta}, past ${MAX_OFFSET}, ` +
        'the largest offset klog holds exactly',
    );
  }
  if (origin !== 'klog') {
    if (header.recordsCount <= 0) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid reported count for record batch: ${header.recordsCount}`,
      );
    }
    if (header.lastOffsetDelta + 1 !== header.recordsCount) {
      throw new StorageError(
        'INVALID_RECORD',
        `inconsistent batch offset range [0, ${header.lastOffsetDelta}] and count of records ${header.recordsCount}`,
      );
    }
    if (header.attributes & CONTROL_FLAG) {
      throw new StorageError('INVALID_RECORD', 'clients are not allowed to write control records');
    }
  }
  if (header.attributes & TRANSACTIONAL_FLAG) {
    throw new StorageError(
      'INVALID_TXN_STATE',
      'a transactional batch: klog does not build transactions (no coordinator, no markers)',
    );
  }
  if (header.producerId > NO_PRODUCER_ID) {
    // Kafka refuses a negative sequence here; an epoch outside 0..32767 would make the
    // producer-state rebuild meet a batch it cannot place, so it is refused too.
    if (header.baseSequence < 0 || header.baseSequence > MAX_SEQUENCE) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid sequence number ${header.baseSequence} in record batch with producerId ${header.producerId}`,
      );
    }
    if (header.producerEpoch < 0 || header.producerEpoch > MAX_PRODUCER_EPOCH) {
      throw new StorageError(
        'INVALID_RECORD',
        `invalid producer epoch ${header.producerEpoch} in record batch with producerId ${header.producerId}`,
      );
    }
  }
}

/** A timestamp the log gives (its clock, `nowMs`): a safe integer >= 0, as a Kafka client requires. */
export function validateTimestamp(nowMs: number, field = 'timestamp'): number {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) {
    throw new StorageError('INVALID_TIMESTAMP', `${field} must be a safe integer >= 0, got ${String(nowMs)}`);
  }
  return nowMs;
}
