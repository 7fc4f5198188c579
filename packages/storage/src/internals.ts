// Everything `@klog/storage` exports, and the parts it is made of: the RecordBatch v2 codec, segments and
// their indexes, the directory listing and lock, recovery, producer snapshots and the producer-state
// rebuild, the cleaner's offset map. For `klog dump-log`, the benchmarks and the tests: no promise that
// these stay as they are (Kafka's `org.apache.kafka.storage.internals`).
/// <reference types="node" preserve="true" />

export { OffsetMap } from './cleaner/offset-map.js';
export {
  buildPlainBatch,
  buildProducerBatch,
  type ProducerFields,
  rewriteBatch,
} from './format/batch-builder.js';
export { compressRecords } from './format/compress-records.js';
export {
  COMPRESSION_MASK,
  COMPRESSION_TYPES,
  compressionName,
  decompressRecords,
  targetCodec,
} from './format/compression.js';
export { crc32c } from './format/crc32c.js';
export { recompressBatch } from './format/recompress-batch.js';
export {
  BATCH_FIELD,
  type BatchFieldName,
  batchSize,
  CRC_COVERS_FROM,
  computeBatchCrc,
  type DecodeOptions,
  decodeBatchFraming,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  LOG_OVERHEAD,
  lastOffsetOf,
  MAGIC_V2,
  MAX_OFFSET,
  MAX_READABLE_BATCH_BYTES,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchFields,
  readStoredBatchHeader,
  type StoredBatchHeader,
  TIMESTAMP_TYPE_MASK,
} from './format/record-batch.js';
export * from './index.js';
export { DirectoryLock, LOCK_FILE_NAME } from './io/file-lock.js';
export { type LogDirListing, listLogDir, type SegmentFileEntry } from './log/log-dir.js';
export {
  type AppendOrigin,
  type ValidatedBatch,
  validateBatch,
  validateForAppend,
  validateRecords,
} from './log/log-validator.js';
export {
  encodePartitionMetadata,
  kafkaStringToUuid,
  newTopicId,
  PARTITION_METADATA_FILE,
  readPartitionMetadata,
  uuidToKafkaString,
  writePartitionMetadata,
  ZERO_TOPIC_ID,
} from './partition/partition-metadata.js';
export {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  type LoadedSnapshot,
  loadLatestSnapshot,
  snapshotFileName,
  writeProducerSnapshot,
} from './producer/producer-snapshot.js';
export { addBatchFromHeader, rebuildProducerState } from './producer/producer-state-rebuild.js';
export { type FoundBatch, findBatchStart, findValidBatches } from './segment/batch-search.js';
export { type BatchAt, type HeaderAt, LogSegment, type SegmentOpenOptions } from './segment/log-segment.js';
export { checkSegment, recoverSegment, type SegmentCheck } from './segment/recovery.js';
export { SegmentFileCache } from './segment/segment-file-cache.js';
export {
  DEFAULT_INDEX_INTERVAL_BYTES,
  DEFAULT_MAX_INDEX_BYTES,
  OFFSET_ENTRY_BYTES,
  OFFSET_INDEX_SUFFIX,
  SegmentIndex,
  TIME_ENTRY_BYTES,
  TIME_INDEX_SUFFIX,
} from './segment/segment-index.js';
export {
  type InspectedBatch,
  type InspectionEntry,
  type InspectionStop,
  inspectSegment,
} from './segment/segment-inspection.js';
export { parseSegmentFileName, SEGMENT_SUFFIX, segmentFileName } from './segment/segment-name.js';
