// The public API of @klog/storage: what a broker, a command line and a reader of the README use. The
// package's parts (the batch codec, segments and their indexes, recovery, producer snapshots, the
// cleaner's map) are under `@klog/storage/internals`, for `klog dump-log`, the benchmarks and the tests,
// as Kafka keeps its storage classes under `org.apache.kafka.storage.internals`.
//
// The public types name Node's Buffer: keep the reference in the published index.d.ts, so a TypeScript
// project gets Node's types (a dependency of this package) even when its tsconfig lists no "types".
/// <reference types="node" preserve="true" />
export {
  type CompactionOptions,
  type CompactionReport,
  compact,
  DEFAULT_DEDUPE_BUFFER_BYTES,
} from './cleaner/compaction.js';
export {
  CLEANER_CHECKPOINT_FILE,
  type CleanedLog,
  type SegmentSummary,
} from './cleaner/log-cleaner-manager.js';
export {
  DecodeError,
  type KafkaErrorCode,
  type KlogErrorCode,
  type RecordError,
  StorageError,
  type StorageErrorCode,
} from './errors.js';
export {
  BROKER_COMPRESSION_TYPES,
  type BrokerCompressionType,
  type CompressionType,
  compressionOf,
} from './format/compression.js';
export { type ProducedBatch, readProducedBatch } from './format/produced-batch.js';
export type { Record, RecordHeader, RecordInput } from './format/record.js';
export {
  CONTROL_FLAG,
  type RecordBatch,
  type RecordBatchHeader,
  TRANSACTIONAL_FLAG,
} from './format/record-batch.js';
export { fsyncDirectory } from './io/fsync.js';
export {
  type CheckedBatch,
  Log,
  type LogAppend,
  type LogAppendInfo,
  type LogOpenOptions,
  type LogReader,
} from './log/log.js';
export {
  DEFAULT_LOG_CONFIG,
  type FlushPolicy,
  LOG_CONFIG_BOUNDS,
  type LogConfig,
} from './log/log-config.js';
export type { OffsetGap } from './log/log-loader.js';
export {
  appendIdempotent,
  appendRecords,
  type IdempotentAppend,
  type IdempotentBatch,
  type SequenceRule,
} from './partition/append.js';
export {
  type LoadCheck,
  type LogEvent,
  LogManager,
  type LogManagerOptions,
  type LogSchedule,
  type PartitionFindings,
  type UnmappedEntry,
} from './partition/log-manager.js';
export {
  type AppendOptions,
  type AppendRequest,
  type AppendResult,
  type FetchResult,
  Partition,
  type PartitionOptions,
  type ProducerBatchAppend,
} from './partition/partition.js';
export {
  MAX_PARTITIONS,
  MAX_TOPIC_NAME_LENGTH,
  partitionDirName,
  validatePartitionNumber,
  validateTopicName,
} from './partition/topic.js';
export type { SkippedBatch } from './producer/producer-state-rebuild.js';
export type { ProducerWindow, WindowDecision, WindowedBatch } from './producer/producer-window.js';
export type { ReadAllocator } from './segment/file-records.js';
export { describeRecovery, type RecoveryReport } from './segment/recovery.js';
