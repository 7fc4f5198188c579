import { type DecodeOptions, MAX_READABLE_BATCH_BYTES } from '../format/record-batch.js';

/**
 * Decode options for bytes read from a segment: the readers' limit (the most any
 * `message.max.bytes` can be set to), never the setting itself, which applies when
 * data is accepted. The batch must also lie inside the file.
 */
export function storedBatchOptions(base: number): DecodeOptions & { readonly base: number } {
  return { maxBatchBytes: MAX_READABLE_BATCH_BYTES, base };
}
