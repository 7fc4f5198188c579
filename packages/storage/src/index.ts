// The public types name Node's Buffer: keep the reference in the published index.d.ts, so a TypeScript
// project gets Node's types (a dependency of this package) even when its tsconfig lists no "types".
/// <reference types="node" preserve="true" />
export { appendRecords } from './append.js';
export { buildPlainBatch, buildProducerBatch, type ProducerFields, rewriteBatch } from './batch-builder.js';
export {
  type CompactionOptions,
  type CompactionReport,
  compact,
  DEFAULT_DEDUPE_BUFFER_BYTES,
} from './compaction.js';
export {
  COMPRESSION_MASK,
  COMPRESSION_TYPES,
  type CompressionType,
  compressionName,
  compressionOf,
  decompressRecords,
} from './compression.js';
export { crc32c } from './crc32c.js';
export {
  DecodeError,
  type KafkaErrorCode,
  type KlogErrorCode,
  StorageError,
  type StorageErrorCode,
} from './errors.js';
export { fsyncDirectory } from './fsync.js';
export {
  appendIdempotent,
  type IdempotentAppend,
  type IdempotentBatch,
  type SequenceRule,
} from './idempotent-append.js';
export {
  DEFAULT_LOG_CONFIG,
  type FlushPolicy,
  Log,
  type LogAppendInfo,
  type LogConfig,
  type LogOpenOptions,
} from './log.js';
export { LogManager, type LogManagerOptions } from './log-manager.js';
export { stampLogAppendTime } from './log-append-time.js';
export { LOG_START_OFFSET_FILE } from './log-start-offset.js';
export {
  type FetchResult,
  Partition,
  type PartitionOptions,
  type ProducerBatchAppend,
} from './partition.js';
export {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  type LoadedSnapshot,
  loadLatestSnapshot,
  snapshotFileName,
  writeProducerSnapshot,
} from './producer-snapshot.js';
export { addBatchFromHeader, rebuildProducerState, type SkippedBatch } from './producer-state-rebuild.js';
export type { Record, RecordHeader, RecordInput } from './record.js';
export {
  BATCH_FIELD,
  type BatchFieldName,
  batchSize,
  CRC_COVERS_FROM,
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
  MAX_OFFSET,
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
export { type FoundBatch, findBatchStart, findValidBatches } from './batch-search.js';
export { type AppendOrigin, validateForAppend } from './batch-validator.js';
export { DirectoryLock, LOCK_FILE_NAME } from './file-lock.js';
export { type LogDirListing, listLogDir, type SegmentFileEntry } from './log-dir.js';
export { OffsetMap } from './offset-map.js';
export {
  checkSegment,
  describeRecovery,
  type RecoveryReport,
  recoverSegment,
  type SegmentCheck,
} from './recovery.js';
export { SegmentFileCache } from './segment-file-cache.js';
export {
  DEFAULT_INDEX_INTERVAL_BYTES,
  DEFAULT_MAX_INDEX_BYTES,
  OFFSET_ENTRY_BYTES,
  OFFSET_INDEX_SUFFIX,
  SegmentIndex,
  TIME_ENTRY_BYTES,
  TIME_INDEX_SUFFIX,
} from './segment-index.js';
export { type BatchPosition, LogSegment, type SegmentOpenOptions } from './segment.js';
export {
  type InspectedBatch,
  type InspectionEntry,
  type InspectionStop,
  inspectSegment,
} from './segment-inspection.js';
export { parseSegmentFileName, SEGMENT_SUFFIX, segmentFileName } from './segment-name.js';
export {
  MAX_PARTITIONS,
  MAX_TOPIC_NAME_LENGTH,
  partitionDirName,
  validatePartitionNumber,
  validateTopicName,
} from './topic.js';
