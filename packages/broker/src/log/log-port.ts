/**
 * Everything the broker asks of the log, in one place: the only module that calls @klog/storage. The
 * handlers see `BrokerLog` and `BrokerPartition`, and errors as `LogError` carrying the name of the Kafka
 * error to answer with — a rename in storage is a change here and nowhere else.
 */
import { type ErrorName, isErrorName } from '@klog/protocol';
import {
  appendRecords,
  BROKER_COMPRESSION_TYPES,
  type BrokerCompressionType,
  CONTROL_FLAG,
  type CompactionReport,
  type CompressionType,
  compressionOf,
  DEFAULT_LOG_CONFIG,
  DecodeError,
  describeRecovery,
  type FetchResult,
  fsyncDirectory,
  LOG_CONFIG_BOUNDS,
  type LogConfig,
  type LogEvent,
  LogManager,
  type Partition,
  type ProducedBatch,
  type ProducerBatchAppend,
  type ProducerWindow,
  type ReadAllocator,
  readProducedBatch,
  StorageError,
  TRANSACTIONAL_FLAG,
  validateTopicName,
} from '@klog/storage';

/**
 * What one append of a client's batch did (Kafka's verdicts), what a fetch returns, and a Produce's records
 * read once: storage's own types.
 */
/** What storage's background passes did to a partition (retention, compaction, a failure): the broker logs it. */
export type { CompactionReport, FetchResult, LogEvent, ProducedBatch, ProducerBatchAppend, ProducerWindow };
/** Kafka's `compression.type` values (`BrokerCompressionType`): storage applies them on append. */
export { BROKER_COMPRESSION_TYPES, type BrokerCompressionType };

/** The log's settings a broker takes, with storage's defaults and bounds (the one place that has them). */
export const LOG_SETTINGS = {
  /** Kafka's `message.max.bytes`: storage's `maxBatchBytes`. */
  messageMaxBytes: { default: DEFAULT_LOG_CONFIG.maxBatchBytes, ...LOG_CONFIG_BOUNDS.maxBatchBytes },
  /** Kafka's `log.segment.bytes`. */
  segmentBytes: { default: DEFAULT_LOG_CONFIG.segmentBytes, ...LOG_CONFIG_BOUNDS.segmentBytes },
} as const;

export interface BrokerPartition {
  readonly topic: string;
  readonly partition: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** = log end offset on one node. */
  readonly highWatermark: number;
  /** = high watermark: there are no transactions. */
  readonly lastStableOffset: number;
  /**
   * Appends one RecordBatch v2 as the client sent it (read by `inspectProducedRecords`), under Kafka 4.1's
   * producer rules; `logAppendTime` stamps it with `nowMs` (message.timestamp.type=LogAppendTime). Throws
   * LogError.
   */
  appendProducerBatch(batch: ProducedBatch, nowMs: number, logAppendTime?: boolean): ProducerBatchAppend;
  /**
   * Whole batches from the one holding `offset`, at most `maxBytes` but at least one, read into memory
   * `allocate` gives (the broker's `ReadBuffers`; fresh memory without it). Throws LogError.
   */
  fetch(offset: number, maxBytes: number, allocate?: ReadAllocator): FetchResult;
  /** The first offset whose timestamp is at least `timestampMs`, through the time index. */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | undefined;
  /** The record with the largest timestamp (ListOffsets' MAX_TIMESTAMP); undefined when the log is empty. */
  offsetOfMaxTimestamp(): { offset: number; timestamp: number } | undefined;
  /** Appends records the broker writes itself (no producer: the group coordinator's), as one batch. Throws LogError. */
  appendRecords(records: readonly { key: Uint8Array; value: Uint8Array | null }[], nowMs: number): void;
  /** Every record from the log start to its end, in offset order (null value: a tombstone). Throws LogError. */
  readRecords(visit: (key: Uint8Array | null, value: Uint8Array | null, offset: number) => void): void;
  /** Bytes on disk, over every segment. */
  readonly sizeBytes: number;
  /** DeleteRecords: the log starts at `offset` from now on (at most the high watermark). Throws LogError. */
  advanceLogStartOffset(offset: number): number;
  /** The producers this partition knows: what DescribeProducers shows (Kafka's ProducerStateManager). */
  producers(): ProducerSummary[];
}

/**
 * What start-up's check of every log found (Kafka's `LogLoader` logs it): damage one line each, what
 * recovery cut from an active segment and the partitions that could not be opened; the offsets no segment
 * holds as one count, since compaction leaves such gaps in every compacted log (Kafka says nothing of them).
 */
export interface LoadReport {
  readonly damage: readonly string[];
  /** The gaps, one line; undefined when there are none. */
  readonly gaps: string | undefined;
  /** How many partitions were opened, how many had nothing to load; whether `close` stopped it. */
  readonly summary: string;
}

export interface ProducerSummary {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly lastSequence: number;
  readonly lastTimestamp: number;
}

export interface BrokerLog {
  /** Hidden entries of the data directory that map to no topic, found on open: to be reported, not skipped. */
  readonly unmapped: readonly { readonly path: string; readonly reason: string }[];
  /**
   * Start-up's check of every log, run while requests are served (see `LoadReport`); resolves once it is
   * through, or stopped by `close`.
   */
  checkLogs(): Promise<LoadReport>;
  /** topic → partition count. */
  topics(): ReadonlyMap<string, number>;
  /**
   * The topic's id as its `partition.metadata` files keep it (8-4-4-4-12 hex, as the codecs carry uuids);
   * undefined for no such topic.
   */
  topicId(topic: string): string | undefined;
  /** The topic an id names (Metadata v12 and Fetch v13 ask by id); undefined when none has it. */
  topicName(id: string): string | undefined;
  /** One more on every create, addPartitions and delete (the role of Kafka's metadata image offset). */
  readonly topicsVersion: number;
  partition(topic: string, partition: number): BrokerPartition | undefined;
  /** Creates the topic's partitions. Throws LogError (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION…). */
  createTopic(topic: string, partitions: number): void;
  /** More partitions for a topic. Throws LogError (UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS). */
  addPartitions(topic: string, count: number): void;
  /** Deletes a topic and its files. Throws LogError (UNKNOWN_TOPIC_OR_PARTITION). */
  deleteTopic(topic: string): void;
  /** The topic's config changed: its open logs take the new segment.bytes, max.message.bytes, compression.type. */
  reconfigureTopic(topic: string): void;
  /** Why `topic` cannot name a topic (Kafka's `Topic.validate`), or undefined if it can. */
  invalidTopicName(topic: string): string | undefined;
  /** fsyncs every open partition (`log.flush.interval.ms`). Throws LogError. */
  flush(): void;
  /**
   * Starts storage's background passes over every log (Kafka's `LogManager.startup`): retention every
   * `retentionCheckIntervalMs`, the cleaner every `cleanerBackoffMs`; `close` stops them.
   */
  startup(schedule: {
    readonly retentionCheckIntervalMs: number;
    readonly cleanerBackoffMs: number;
    readonly onEvent: (event: LogEvent) => void;
  }): void;
  /** One cleaner pass now (what the schedule runs every `log.cleaner.backoff.ms`), for tests and tools. */
  cleanLogs(): Promise<LogEvent[]>;
  /** Flushes and closes every partition, releasing the data directory. */
  close(): void;
}

/** Kafka's `Uuid.ZERO_UUID`: the topic id answered where there is no topic (an error, a validateOnly create). */
export const NO_TOPIC_ID = '00000000-0000-0000-0000-000000000000';

/** A log operation refused: the Kafka error to answer with, and why. */
export class LogError extends Error {
  override readonly name = 'LogError';
  constructor(
    readonly code: ErrorName,
    message: string,
    /** The records refused one by one, for a Produce answer's RecordErrors (a compacted topic's keyless records). */
    readonly recordErrors: readonly { readonly batchIndex: number; readonly message: string }[] = [],
  ) {
    super(message);
  }
}

/**
 * The RecordBatch header fields the Produce path checks before appending (Kafka's
 * `ProduceRequest.validateRecords`), or why the bytes are not exactly one v2 batch.
 */
export type ProducedRecords =
  | {
      readonly kind: 'batch';
      /** The records, read once: the append takes them as they are. */
      readonly batch: ProducedBatch;
      readonly producerId: number;
      /** undefined for an id Kafka does not define (storage refuses it at the append). */
      readonly compression: CompressionType | undefined;
      readonly transactional: boolean;
      readonly control: boolean;
    }
  | { readonly kind: 'invalid'; readonly code: ErrorName; readonly message: string };

/**
 * Kafka's `ProduceRequest.validateRecords` for version 3 and above: the records of one partition must be
 * exactly one batch, of magic 2. The producer id comes back for the error messages, the codec and the
 * transaction bits for the checks the broker makes before appending (transactions are not built).
 */
export function inspectProducedRecords(bytes: Uint8Array | null): ProducedRecords {
  if (bytes === null || bytes.length === 0) {
    return {
      kind: 'invalid',
      code: 'INVALID_RECORD',
      message: 'Produce requests must carry exactly one record batch: none came',
    };
  }
  let batch: ProducedBatch;
  try {
    // No size limit here: message.max.bytes is the append's to check (MESSAGE_TOO_LARGE).
    batch = readProducedBatch(asBuffer(bytes));
  } catch (error) {
    if (error instanceof StorageError)
      return { kind: 'invalid', code: 'INVALID_RECORD', message: error.message };
    if (!(error instanceof DecodeError)) throw error;
    if (error.field === 'magic') {
      return {
        kind: 'invalid',
        code: 'INVALID_RECORD',
        message: `Produce requests with version >= 3 are only allowed to contain record batches with magic version 2 (${error.reason})`,
      };
    }
    return { kind: 'invalid', code: 'CORRUPT_MESSAGE', message: error.message };
  }
  const { header } = batch;
  return {
    kind: 'batch',
    batch,
    producerId: header.producerId,
    compression: compressionOf(header.attributes),
    transactional: (header.attributes & TRANSACTIONAL_FLAG) !== 0,
    control: (header.attributes & CONTROL_FLAG) !== 0,
  };
}

/**
 * The partition, undefined when it does not exist, or the LogError of opening it (EMFILE, a damaged segment):
 * each handler answers that partition with the error, and the others as usual, never dropping the response.
 */
export function partitionOrError(
  log: BrokerLog,
  topic: string,
  partition: number,
): BrokerPartition | undefined | LogError {
  try {
    return log.partition(topic, partition);
  } catch (error) {
    if (error instanceof LogError) return error;
    throw error;
  }
}

/** fsync a directory, so a file created or renamed in it stays after a crash (the broker's own files). */
export function syncDirectory(dir: string): void {
  fsyncDirectory(dir);
}

export interface LogOptions {
  readonly dataDir: string;
  /** Entries of the data directory that are the broker's own (`.broker`), not topics. */
  readonly ownEntries?: readonly string[];
  readonly segmentBytes: number;
  readonly messageMaxBytes: number;
  /** `log.flush.interval.messages`: fsync after this many records (1: every append); undefined: left to the OS. */
  readonly flushIntervalMessages?: number | undefined;
  /**
   * A topic's log config (storage's `LogConfig`: segment.bytes and segment.ms, max.message.bytes,
   * compression.type, cleanup.policy, retention and the cleaner's settings), when it has one.
   */
  readonly topicLogConfig?: (topic: string) => Partial<TopicLogSettings>;
  /** The logs' clock (default `Date.now`). */
  readonly time?: () => number;
  /** Judges every producer batch in place of the partitions' producer state (`klog serve --window`). */
  readonly producerWindow?: ProducerWindow;
}

/** The settings of a topic's log, as storage's `LogConfig` names them, without the broker-wide flush policy. */
export type TopicLogSettings = Omit<LogConfig, 'flush'>;

/** A storage error as the Kafka error a broker answers with (klog-only codes become KAFKA_STORAGE_ERROR). */
function asLogError(error: unknown): unknown {
  if (error instanceof StorageError) {
    return new LogError(
      isErrorName(error.code) ? error.code : 'KAFKA_STORAGE_ERROR',
      error.message,
      error.recordErrors,
    );
  }
  // Bytes that do not frame as a batch: Kafka's CorruptRecordException.
  if (error instanceof DecodeError) return new LogError('CORRUPT_MESSAGE', error.message);
  return error;
}

function call<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    throw asLogError(error);
  }
}

/** How much of the log one read of `readRecords` takes (at least one batch, whatever its size). */
const READ_CHUNK_BYTES = 1024 * 1024;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function brokerPartition(p: Partition, window: ProducerWindow | undefined): BrokerPartition {
  return {
    topic: p.topic,
    partition: p.partition,
    get logStartOffset() {
      return p.logStartOffset;
    },
    get logEndOffset() {
      return p.logEndOffset;
    },
    get highWatermark() {
      return p.highWatermark;
    },
    get lastStableOffset() {
      return p.lastStableOffset;
    },
    appendProducerBatch: (batch, nowMs, logAppendTime) =>
      call(() => {
        // A lab window (klog serve --window) judges without LogAppendTime: the lab's batches keep their time.
        if (window !== undefined) return p.appendProducerBatch(batch, { nowMs, window });
        return p.appendProducerBatch(
          batch,
          logAppendTime === true ? { nowMs, logAppendTimeMs: nowMs } : { nowMs },
        );
      }),
    fetch: (offset, maxBytes, allocate) => call(() => p.fetch(offset, maxBytes, allocate)),
    offsetForTimestamp: (timestampMs) => call(() => p.offsetForTimestamp(timestampMs)),
    offsetOfMaxTimestamp: () => call(() => p.offsetOfMaxTimestamp()),
    appendRecords: (records, nowMs) => {
      call(() => appendRecords(p, records, nowMs));
    },
    readRecords: (visit) =>
      call(() => {
        let offset = p.logStartOffset;
        while (offset < p.logEndOffset) {
          const batches = p.log.readCheckedBatches(offset, READ_CHUNK_BYTES);
          if (batches.length === 0) break;
          for (const b of batches) {
            for (const r of b.records) {
              const at = b.baseOffset + r.offsetDelta;
              if (at >= offset) visit(r.key, r.value, at);
            }
            offset = b.baseOffset + b.lastOffsetDelta + 1;
          }
        }
      }),
    get sizeBytes() {
      return p.log.size;
    },
    advanceLogStartOffset: (offset) => call(() => p.advanceLogStartOffset(offset)),
    producers: () =>
      p.producerState.producerIds().flatMap((id) => {
        const entry = p.producerState.get(id);
        const last = entry?.batches.at(-1);
        if (entry === undefined || last === undefined) return [];
        return [
          {
            producerId: id,
            producerEpoch: entry.producerEpoch,
            lastSequence: last.lastSeq,
            lastTimestamp: entry.lastTimestamp,
          },
        ];
      }),
  };
}

/**
 * Opens the data directory's log (storage's LogManager), holding its lock until `close`: Kafka's
 * producer snapshots on, so a restarted broker knows every producer's window, not only what the active
 * segment holds (the chapter's demo keeps them off to show the narrowing).
 */
export function openBrokerLog(options: LogOptions): BrokerLog {
  const manager = call(() =>
    LogManager.open(options.dataDir, {
      config: {
        segmentBytes: options.segmentBytes,
        maxBatchBytes: options.messageMaxBytes,
        flush:
          options.flushIntervalMessages === undefined
            ? 'os'
            : options.flushIntervalMessages === 1
              ? 'every-append'
              : { everyMessages: options.flushIntervalMessages },
      },
      producerSnapshots: true,
      ownEntries: options.ownEntries ?? [],
      ...(options.topicLogConfig === undefined
        ? {}
        : { topicConfig: (topic: string): Partial<LogConfig> => options.topicLogConfig!(topic) }),
      ...(options.time === undefined ? {} : { time: options.time }),
    }),
  );
  const wrapped = new WeakMap<Partition, BrokerPartition>();
  return {
    unmapped: manager.unmapped,
    async checkLogs() {
      const check = await manager.checkLogs();
      const damage = [
        ...check.failed.map(
          (f) =>
            `${f.topic}-${f.partition}: cannot be opened (${f.error instanceof Error ? f.error.message : String(f.error)}): answered with its error when asked for`,
        ),
        ...check.findings.flatMap((f) =>
          f.recovery === undefined ? [] : [`${f.topic}-${f.partition}: ${describeRecovery(f.recovery)}`],
        ),
      ];
      let gaps = 0;
      let offsets = 0;
      let partitions = 0;
      for (const f of check.findings) {
        if (f.gaps.length > 0) partitions++;
        gaps += f.gaps.length;
        for (const g of f.gaps) offsets += g.to - g.from + 1;
      }
      return {
        damage,
        gaps:
          gaps === 0
            ? undefined
            : `${gaps} gap(s) of offsets in no segment, ${offsets} offset(s) over ${partitions} partition(s): ` +
              'records compacted away at the end of a segment (normal), or a segment deleted; ' +
              '`klog dump-log <partition directory>` lists them',
        summary:
          `${check.opened} partition(s) with segments loaded, ${check.empty} with none` +
          (check.complete ? '' : ': stopped by shutdown before every partition was checked'),
      };
    },
    topics: () => manager.topics(),
    topicId: (topic) => manager.topicId(topic),
    topicName: (id) => manager.topicName(id),
    get topicsVersion() {
      return manager.topicsVersion;
    },
    partition(topic, partition) {
      const p = call(() => manager.partition(topic, partition));
      if (p === undefined) return undefined;
      let w = wrapped.get(p);
      if (w === undefined) {
        w = brokerPartition(p, options.producerWindow);
        wrapped.set(p, w);
      }
      return w;
    },
    createTopic: (topic, partitions) => call(() => manager.createTopic(topic, partitions)),
    addPartitions: (topic, count) => call(() => manager.addPartitions(topic, count)),
    deleteTopic: (topic) => call(() => manager.deleteTopic(topic)),
    reconfigureTopic: (topic) => call(() => manager.reconfigureTopic(topic)),
    invalidTopicName(topic) {
      try {
        validateTopicName(topic);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
    flush: () => call(() => manager.flush()),
    startup: (schedule) => call(() => manager.startup(schedule)),
    cleanLogs: () => manager.cleanLogs(),
    close: () => call(() => manager.close()),
  };
}
