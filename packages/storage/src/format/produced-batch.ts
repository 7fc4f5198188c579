import { StorageError } from '../errors.js';
import { batchSize, decodeBatchHeader, type RecordBatchHeader } from './record-batch.js';

/**
 * One partition's records as a Produce request carried them, read once (Kafka's
 * `ProduceRequest.validateRecords`): exactly one RecordBatch v2, its header decoded and
 * its length checked against the bytes. The broker reads it to check what it must before
 * appending (codec, transactions); the append takes it as it is, so the header is decoded
 * once per Produce. The CRC and the `LogValidator` rules are the append's (`Log.check`).
 */
export interface ProducedBatch {
  readonly bytes: Buffer;
  readonly header: RecordBatchHeader;
}

/**
 * Read a Produce's records: a DecodeError when they do not frame as a v2 batch (a magic
 * other than 2 names the field `magic`), StorageError `INVALID_RECORD` when they hold more
 * or less than one batch. No size limit here: `message.max.bytes` is the append's to check
 * (MESSAGE_TOO_LARGE), as Kafka's is.
 */
export function readProducedBatch(bytes: Buffer): ProducedBatch {
  const header = decodeBatchHeader(bytes, 0, { maxBatchBytes: Number.MAX_SAFE_INTEGER });
  if (batchSize(header) !== bytes.length) {
    throw new StorageError(
      'INVALID_RECORD',
      `the records hold ${bytes.length} bytes but the batch is ${batchSize(header)}: ` +
        'a produce request carries exactly one record batch per partition',
    );
  }
  return { bytes, header };
}
