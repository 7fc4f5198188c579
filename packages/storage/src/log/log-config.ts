import { StorageError } from '../errors.js';
import { BROKER_COMPRESSION_TYPES, type BrokerCompressionType } from '../format/compression.js';
import { MAX_READABLE_BATCH_BYTES, RECORD_BATCH_OVERHEAD } from '../format/record-batch.js';

/**
 * When appended data is forced to disk (Kafka's `flush.messages`):
 * - `'os'`, the default, as in Kafka (`flush.messages` = Long.MAX_VALUE): each append
 *   is a `write` into the OS page cache and the OS writes it back when it chooses. An
 *   acknowledged append survives a crash of the process (`kill -9`): the page cache
 *   is the kernel's, not the process's. It may be lost, or torn, by a power cut or a
 *   kernel crash; Kafka answers that with replication, klog (one node) does not.
 * - `'every-append'`: fsync after each batch, before the append returns. An
 *   acknowledged append survives a power cut too, at the cost of one fsync per batch.
 * - `{ everyMessages: n }`: fsync once n records have been appended since the last
 *   fsync; what came after the last fsync is as safe as under `'os'`.
 * Whatever the policy, a segment is fsynced before a roll creates the next one, and on
 * close; recovery on open cuts a torn last batch (see recovery.ts).
 */
export type FlushPolicy = 'every-append' | 'os' | { readonly everyMessages: number };

export interface LogConfig {
  /** Roll a new segment when the next batch would take the active one past this size (Kafka's `segment.bytes`). */
  readonly segmentBytes: number;
  readonly flush: FlushPolicy;
  /**
   * The largest batch an append accepts (Kafka's `message.max.bytes`), at most
   * MAX_READABLE_BATCH_BYTES. It limits what is accepted, never what is read back:
   * a log reopened with a smaller value keeps and serves its larger batches.
   */
  readonly maxBatchBytes: number;
  /**
   * The codec a client's batch is stored in (Kafka's `compression.type`): `producer`, the default, keeps
   * the producer's; any other rewrites a batch in another codec into it as it is appended (log-validator.ts).
   */
  readonly compression: BrokerCompressionType;
  /**
   * Whether the topic is compacted (Kafka's `LogConfig.compact`, from `cleanup.policy`): a client's record
   * without a key is then refused, as `LogValidator.validateKey` refuses it (log.ts, `check`).
   */
  readonly compact: boolean;
  /**
   * Whether retention deletes old segments (Kafka's `LogConfig.delete`, from `cleanup.policy`): false for a
   * topic that is only compacted, whose old values compaction removes instead.
   */
  readonly delete: boolean;
  /**
   * Roll the active segment at the next append once it holds a batch this much older than the appended
   * one (Kafka's `segment.ms`, `LogSegment.shouldRoll`).
   */
  readonly segmentMs: number;
  /** Delete an inactive segment once its newest record is this old (Kafka's `retention.ms`); −1: never. */
  readonly retentionMs: number;
  /** Delete the oldest inactive segments while the log holds more than this (Kafka's `retention.bytes`); −1: no limit. */
  readonly retentionBytes: number;
  /** Compact once this share of the log's inactive bytes is uncleaned (Kafka's `min.cleanable.dirty.ratio`). */
  readonly minCleanableDirtyRatio: number;
  /** Compact only once the newest inactive record is this old (Kafka's `min.compaction.lag.ms`). */
  readonly minCompactionLagMs: number;
  /** Drop tombstones once the newest inactive record is this old (Kafka's `delete.retention.ms`). */
  readonly deleteRetentionMs: number;
}

/**
 * Kafka's defaults (`LogConfig`, `ServerLogConfigs`): `segment.bytes` = 1 GiB, `message.max.bytes` =
 * 1048588, flush left to the OS, `compression.type` = producer, `cleanup.policy` = delete (not compacted),
 * `segment.ms` and `retention.ms` = 7 days, `retention.bytes` = −1, `min.cleanable.dirty.ratio` = 0.5,
 * `min.compaction.lag.ms` = 0, `delete.retention.ms` = 1 day.
 */
export const DEFAULT_LOG_CONFIG: LogConfig = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  flush: 'os',
  maxBatchBytes: 1_048_588,
  compression: 'producer',
  compact: false,
  delete: true,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: -1,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  deleteRetentionMs: 24 * 60 * 60 * 1000,
});

/**
 * A log's config as given (a key given as undefined, from JavaScript, means the default, as
 * a missing one does), completed with the defaults and checked: StorageError
 * `INVALID_CONFIG` naming the setting.
 */
export function logConfigOf(config: Partial<LogConfig>): LogConfig {
  const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
  return validateConfig({ ...DEFAULT_LOG_CONFIG, ...given });
}

function invalidConfig(message: string): StorageError {
  return new StorageError('INVALID_CONFIG', message);
}

/**
 * The values each numeric setting may take, the one place that says so: the broker's
 * config and `klog serve`'s flags check against these, so a value is refused up front
 * with one message rather than when the log opens. A segment and a batch must hold at
 * least one empty batch's header (61 bytes); `segment.bytes` is a Java `int` in Kafka;
 * an accepted batch must be one every reader of the log can read back.
 */
export const LOG_CONFIG_BOUNDS = Object.freeze({
  segmentBytes: Object.freeze({ min: RECORD_BATCH_OVERHEAD, max: 2 ** 31 - 1 }),
  maxBatchBytes: Object.freeze({ min: RECORD_BATCH_OVERHEAD, max: MAX_READABLE_BATCH_BYTES }),
});

function validateConfig(config: LogConfig): LogConfig {
  const segment = LOG_CONFIG_BOUNDS.segmentBytes;
  if (!Number.isSafeInteger(config.segmentBytes) || config.segmentBytes < segment.min) {
    throw invalidConfig(`segment.bytes must be an integer >= ${segment.min}, got ${config.segmentBytes}`);
  }
  if (config.segmentBytes > segment.max) {
    throw invalidConfig(
      `segment.bytes must be at most ${segment.max} (a Kafka int), got ${config.segmentBytes}`,
    );
  }
  const batch = LOG_CONFIG_BOUNDS.maxBatchBytes;
  if (
    !Number.isSafeInteger(config.maxBatchBytes) ||
    config.maxBatchBytes < batch.min ||
    config.maxBatchBytes > batch.max
  ) {
    throw invalidConfig(
      `max batch bytes must be an integer in ${batch.min}..${batch.max} (what klog can read back), got ${config.maxBatchBytes}`,
    );
  }
  if (!(BROKER_COMPRESSION_TYPES as readonly string[]).includes(config.compression)) {
    throw invalidConfig(
      `compression.type must be one of ${BROKER_COMPRESSION_TYPES.join(', ')}, got ${String(config.compression)}`,
    );
  }
  if (typeof config.compact !== 'boolean') {
    throw invalidConfig(`compact must be true or false, got ${String(config.compact)}`);
  }
  if (typeof config.delete !== 'boolean') {
    throw invalidConfig(`delete must be true or false, got ${String(config.delete)}`);
  }
  // Kafka's bounds: segment.ms at least 1; the retention limits −1 (none) or more; the lags 0 or more.
  wholeAtLeast('segment.ms', config.segmentMs, 1);
  wholeAtLeast('retention.ms', config.retentionMs, -1);
  wholeAtLeast('retention.bytes', config.retentionBytes, -1);
  wholeAtLeast('min.compaction.lag.ms', config.minCompactionLagMs, 0);
  wholeAtLeast('delete.retention.ms', config.deleteRetentionMs, 0);
  const ratio = config.minCleanableDirtyRatio;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) {
    throw invalidConfig(`min.cleanable.dirty.ratio must be from 0 to 1, got ${String(ratio)}`);
  }
  const flush: unknown = config.flush;
  if (typeof flush === 'object' && flush !== null) {
    const n = (flush as { everyMessages?: unknown }).everyMessages;
    if (!Number.isSafeInteger(n) || (n as number) < 1) {
      throw invalidConfig(`flush every N messages needs N >= 1, got ${String(n)}`);
    }
  } else if (flush !== 'os' && flush !== 'every-append') {
    throw invalidConfig(`flush must be 'os', 'every-append' or { everyMessages: n }, got ${String(flush)}`);
  }
  return config;
}

function wholeAtLeast(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw invalidConfig(`${name} must be an integer >= ${min}, got ${String(value)}`);
  }
}
