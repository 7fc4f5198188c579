// The public types name Node's Buffer: keep the reference in the published index.d.ts, so a TypeScript
// project gets Node's types (a dependency of this package) even when its tsconfig lists no "types".
/// <reference types="node" preserve="true" />
export { appendRecords } from './append.js';
export { buildPlainBatch, buildProducerBatch, type ProducerFields, rewriteBatch } from './batch-builder.js';
export { type CompactionOptions, type CompactionReport, compact } from './compaction.js';
export {
  COMPRESSION_MASK,
  COMPRESSION_TYPES,
  type CompressionType,
  compressionName,
  compressionOf,
  decompressRecords,
} from './compression.js';
export { crc32c } from './crc32c.js';
export { DecodeError, StorageError } from './errors.js';
export { fsyncDirectory } from './fsync.js';
export {
  appendIdempotent,
  type IdempotentAppend,
  type IdempotentAppendOptions,
} from './idempotent-append.js';
export { DEFAULT_LOG_CONFIG, type FlushPolicy, Log, type LogAppendInfo, type LogConfig } from './log.js';
export { Partition } from './partition.js';
export { addBatchFromHeader, rebuildProducerState } from './producer-state-rebuild.js';
export type { Record, RecordHeader, RecordInput } from './record.js';
export {
  batchSize,
  CONTROL_FLAG,
  computeBatchCrc,
  DEFAULT_MAX_BATCH_BYTES,
  type DecodeOptions,
  decodeBatchFraming,
  decodeBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  LOG_OVERHEAD,
  lastOffsetOf,
  MAGIC_V2,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  RECORD_BATCH_OVERHEAD,
  type RecordBatch,
  type RecordBatchFields,
  type RecordBatchHeader,
  readStoredBatchHeader,
  type StoredBatchHeader,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG,
} from './record-batch.js';
export {
  checkSegment,
  describeRecovery,
  findBatchStart,
  type RecoveryReport,
  recoverSegment,
  type SegmentCheck,
} from './recovery.js';
export {
  type BatchPosition,
  type InspectedBatch,
  type InspectionEntry,
  type InspectionStop,
  LogSegment,
  parseSegmentFileName,
  SEGMENT_SUFFIX,
  type SegmentOpenOptions,
  segmentFileName,
} from './segment.js';
export {
  MAX_TOPIC_NAME_LENGTH,
  partitionDirName,
  validatePartitionNumber,
  validateTopicName,
} from './topic.js';
