import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  BatchMetadata,
  type Duplicate,
  type InvalidProducerEpoch,
  incrementSequence,
  judgeByKafkaRules,
  type OutOfOrderSequence,
  ProducerState,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import { validateForAppend, validateTimestamp } from './batch-validator.js';
import { crcMismatch, StorageError } from './errors.js';
import { DirectoryLock } from './file-lock.js';
import { io } from './io.js';
import { appendValidatedClientBatch, Log, type LogConfig } from './log.js';
import { addBatchFromHeader, rebuildProducerState, type SkippedBatch } from './producer-state-rebuild.js';
import { loadLatestSnapshot, writeProducerSnapshot } from './producer-snapshot.js';
import { stampLogAppendTime } from './log-append-time.js';
import { BATCH_FIELD, batchSize, computeBatchCrc, decodeBatchHeader } from './record-batch.js';
import type { RecoveryReport } from './recovery.js';
import type { SegmentFileCache } from './segment-file-cache.js';
import { partitionDirName } from './topic.js';

/** What `appendProducerBatch` did: written, a duplicate answered with its first offsets, or refused. */
export type ProducerBatchAppend =
  | {
      readonly kind: 'Append';
      readonly firstOffset: number;
      readonly lastOffset: number;
      /** The broker's time stamped on the batch (message.timestamp.type=LogAppendTime), or -1: CreateTime. */
      readonly logAppendTimeMs: number;
      readonly logStartOffset: number;
    }
  | (Duplicate & { readonly logStartOffset: number })
  /** Kafka error 45. */
  | OutOfOrderSequence
  /** Kafka error 47. */
  | InvalidProducerEpoch;

/** What `fetch` returns: the bytes, and the offsets a Fetch response carries with them. */
export interface FetchResult {
  readonly records: Buffer;
  readonly highWatermark: number;
  readonly lastStableOffset: number;
  readonly logStartOffset: number;
}

/** How a partition keeps its producer state across restarts, apart from the log's config. */
export interface PartitionOptions {
  /**
   * Kafka's producer snapshots (`<offset>.snapshot`, written at each roll and on close;
   * loaded on open, then the log after the snapshot's offset replayed). Off by default:
   * the chapter's demo rebuilds from the active segment alone, so the 5 → 1 narrowing
   * shows. A broker turns them on.
   */
  readonly producerSnapshots?: boolean;
  /** Kafka's `producer.id.expiration.ms`: forget a producer idle this long. Off when undefined. */
  readonly producerIdExpirationMs?: number;
  /** Where inactive segments get their file descriptors (a `LogManager` shares one). */
  readonly segmentFiles?: SegmentFileCache;
  /** The clock for expiring producers on open (default `Date.now()`). */
  readonly nowMs?: number;
}

/** Set by Partition's static block: a LogManager opens its partitions under the data directory's lock. */
let openManagedPartition: (
  lock: DirectoryLock,
  dataDir: string,
  topic: string,
  partition: number,
  config: Partial<LogConfig>,
  options: PartitionOptions,
) => Partition;

/** Open a partition of a LogManager's data directory, whose lock the manager already holds. */
export function openPartitionUnder(
  lock: DirectoryLock,
  dataDir: string,
  topic: string,
  partition: number,
  config: Partial<LogConfig>,
  options: PartitionOptions,
): Partition {
  return openManagedPartition(lock, dataDir, topic, partition, config, options);
}

/**
 * One partition of a topic: the directory `<topic>-<partition>` under a data
 * directory, the log inside it, and the state of every producer that writes to it
 * (Kafka's `Partition` with its `ProducerStateManager`, minus replication).
 */
export class Partition {
  #log: Log;
  #state: ProducerState;
  #producerStateReport: readonly SkippedBatch[];

  private constructor(
    readonly dataDir: string,
    readonly topic: string,
    readonly partition: number,
    log: Log,
    readonly options: PartitionOptions,
    /** The data directory's shared lock, held while this partition is open on its own. */
    readonly dataDirLock: DirectoryLock | undefined,
  ) {
    this.#log = log;
    this.#state = new ProducerState();
    this.#producerStateReport = [];
    this.#loadProducerState();
    log.rollListener = (base) => this.onRoll(base);
  }

  /**
   * Open (or create) `<dataDir>/<topic>-<partition>`. The topic name and partition
   * number are validated before anything touches the disk; opening takes the
   * partition's lock (and a shared lock on the data directory, so that no
   * `LogManager` opens it meanwhile), recovers the active segment (`recovery` says
   * what that had to cut, if anything), and rebuilds the producer state.
   */
  static open(
    dataDir: string,
    topic: string,
    partition: number,
    config: Partial<LogConfig> = {},
    options: PartitionOptions = {},
  ): Partition {
    const name = partitionDirName(topic, partition);
    const shared = acquireDataDirShared(dataDir);
    try {
      const log = Log.open(join(dataDir, name), config, logOptions(options));
      try {
        return new Partition(dataDir, topic, partition, log, options, shared);
      } catch (error) {
        log.close();
        throw error;
      }
    } catch (error) {
      shared.release();
      throw error;
    }
  }

  static {
    openManagedPartition = (_lock, dataDir, topic, partition, config, options) => {
      const log = Log.open(join(dataDir, partitionDirName(topic, partition)), config, logOptions(options));
      try {
        return new Partition(dataDir, topic, partition, log, options, undefined);
      } catch (error) {
        log.close();
        throw error;
      }
    };
  }

  /** What recovery cut from the active segment when the log was opened; undefined when it was whole. */
  get recovery(): RecoveryReport | undefined {
    return this.#log.recovery;
  }

  /** Batches the producer-state rebuild left out, and snapshots it could not use, with why. */
  get producerStateReport(): readonly SkippedBatch[] {
    return this.#producerStateReport;
  }

  get dir(): string {
    return this.#log.dir;
  }

  get log(): Log {
    return this.#log;
  }

  /** Every producer this partition knows: the windows the next batches are judged against. */
  get producerState(): ProducerState {
    return this.#state;
  }

  get logStartOffset(): number {
    return this.#log.logStartOffset;
  }

  get logEndOffset(): number {
    return this.#log.logEndOffset;
  }

  /**
   * The high watermark. With one replica every appended record is committed, so it
   * equals the log end offset; chapter 8 makes it trail the slowest in-sync replica.
   */
  get highWatermark(): number {
    return this.#log.logEndOffset;
  }

  /** The last stable offset: the high watermark, since klog has no transactions. */
  get lastStableOffset(): number {
    return this.highWatermark;
  }

  /**
   * Kafka's `removeExpiredProducers`: forget producers idle for `producerIdExpirationMs`
   * (a no-op when that is off). Returns the ids removed.
   */
  removeExpiredProducers(nowMs: number): number[] {
    const expiration = this.options.producerIdExpirationMs;
    return expiration === undefined ? [] : this.#state.removeExpired(nowMs, expiration);
  }

  // #region append-producer-batch
  /**
   * Append a batch as a Kafka client sent it (RecordBatch v2 bytes, compressed or not),
   * as Kafka's leader does, reading the header only: the size against
   * `message.max.bytes`, the framing, the CRC-32C (checked once, here), Kafka's
   * `LogValidator` client rules, then Kafka 4.1's producer rules (`judgeByKafkaRules`).
   * Only an Append writes: the bytes as received, with the base offset and partition
   * leader epoch assigned on the way to the file; the producer state learns of the
   * batch once it is on the log. No record is decoded, none allocated. With `logAppendTimeMs` (a topic's
   * `message.timestamp.type=LogAppendTime`) the checked batch is stamped with that time first.
   */
  appendProducerBatch(
    bytes: Buffer,
    options?: { readonly nowMs?: number; readonly logAppendTimeMs?: number },
  ): ProducerBatchAppend {
    const log = this.#log;
    const maxBatchBytes = log.config.maxBatchBytes;
    if (bytes.length > maxBatchBytes) {
      throw new StorageError(
        'MESSAGE_TOO_LARGE',
        `batch of ${bytes.length} bytes exceeds the limit of ${maxBatchBytes} (message.max.bytes)`,
      );
    }
    let header = decodeBatchHeader(bytes, 0);
    if (batchSize(header) !== bytes.length) {
      throw new StorageError(
        'INVALID_RECORD',
        `the records hold ${bytes.length} bytes but the batch is ${batchSize(header)}: ` +
          'a produce request carries exactly one record batch per partition',
      );
    }
    const computed = computeBatchCrc(bytes, 0, header);
    if (computed !== header.crc) throw crcMismatch(header.crc, computed, BATCH_FIELD.crc);
    const stamp = options?.logAppendTimeMs;
    if (stamp !== undefined) header = stampLogAppendTime(bytes, header, validateTimestamp(stamp, 'logAppendTimeMs'));
    const nowMs = options?.nowMs;
    if (nowMs !== undefined) this.removeExpiredProducers(validateTimestamp(nowMs, 'nowMs'));
    // Once, for every batch, against the offset it will get: the write below checks nothing again.
    validateForAppend(header, bytes.length, log.logEndOffset, maxBatchBytes, 'client');
    if (header.producerId < 0) return this.#appended(appendValidatedClientBatch(log, bytes, header), stamp);
    const pid = toProducerId(header.producerId);
    const epoch = toProducerEpoch(header.producerEpoch);
    const first = toSequence(header.baseSequence);
    const last = incrementSequence(first, header.lastOffsetDelta);
    const entry = this.#state.get(pid);
    const verdict = judgeByKafkaRules(entry, epoch, first, last);
    if (verdict.kind === 'Duplicate') {
      return {
        kind: 'Duplicate',
        firstOffset: verdict.firstOffset,
        lastOffset: verdict.lastOffset,
        timestamp: verdict.timestamp,
        logStartOffset: this.logStartOffset,
      };
    }
    if (verdict.kind !== 'Append') return verdict;
    const firstOffset = appendValidatedClientBatch(log, bytes, header);
    const metadata = new BatchMetadata(
      last,
      log.logEndOffset - 1,
      header.lastOffsetDelta,
      header.maxTimestamp,
    );
    (entry ?? this.#state.entry(pid)).addBatch(epoch, metadata);
    return this.#appended(firstOffset, stamp);
  }
  // #endregion append-producer-batch

  /** The answer to an Append: the batch from `firstOffset` to the log end offset. */
  #appended(firstOffset: number, logAppendTimeMs: number | undefined): ProducerBatchAppend {
    return {
      kind: 'Append',
      firstOffset,
      lastOffset: this.#log.logEndOffset - 1,
      logAppendTimeMs: logAppendTimeMs ?? -1,
      logStartOffset: this.#log.logStartOffset,
    };
  }

  /**
   * Raw bytes of whole batches from the one holding `offset`, at most `maxBytes` (but at
   * least one batch), ready to send, with the offsets a Fetch response carries
   * (Kafka's `Partition.fetchRecords`). StorageError `OFFSET_OUT_OF_RANGE` outside
   * [log start, log end].
   */
  fetch(offset: number, maxBytes: number): FetchResult {
    return {
      records: this.#log.fetch(offset, maxBytes),
      highWatermark: this.highWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.logStartOffset,
    };
  }

  /** ListOffsets by timestamp: the first offset whose record's timestamp is `timestampMs` or later. */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | undefined {
    return this.#log.offsetForTimestamp(timestampMs);
  }

  /** Close and open the log again from disk, and rebuild the producer state. */
  reopen(): void {
    const config = this.#log.config;
    this.#close();
    this.#log = Log.open(this.#log.dir, config, logOptions(this.options));
    this.#log.rollListener = (base) => this.onRoll(base);
    this.#loadProducerState();
  }

  /** Flush and close the log (writing a producer snapshot first, when they are on) and release the locks. */
  close(): void {
    this.#close();
    this.dataDirLock?.release();
  }

  #close(): void {
    if (!this.#log.isClosed && this.options.producerSnapshots === true) {
      writeProducerSnapshot(this.#log.dir, this.#log.logEndOffset, this.#state);
    }
    this.#log.close();
  }

  /** Snapshot at a roll: the state as of the new segment's base offset (everything before it is in). */
  onRoll(newBaseOffset: number): void {
    if (this.options.producerSnapshots === true)
      writeProducerSnapshot(this.#log.dir, newBaseOffset, this.#state);
  }

  #loadProducerState(): void {
    const report: SkippedBatch[] = [];
    const skip = (s: SkippedBatch) => report.push(s);
    if (this.options.producerSnapshots === true) {
      const log = this.#log;
      const loaded = loadLatestSnapshot(log.dir, log.logEndOffset, (path, reason) =>
        report.push({ position: -1, reason: `${path}: ${reason}` }),
      );
      // No snapshot: replay the last two segments, as Kafka does after a clean shutdown without one.
      const from = loaded?.offset ?? log.segments.at(-2)?.baseOffset ?? log.activeSegment.baseOffset;
      const state = loaded?.state ?? new ProducerState();
      for (const { position, header } of log.headersFrom(from)) {
        const reason = addBatchFromHeader(state, header);
        if (reason !== undefined) skip({ position, reason });
      }
      this.#state = state;
    } else {
      this.#state = rebuildProducerState(this.#log, skip);
    }
    this.#producerStateReport = report;
    const expiration = this.options.producerIdExpirationMs;
    if (expiration !== undefined) this.#state.removeExpired(this.options.nowMs ?? Date.now(), expiration);
  }
}

function logOptions(options: PartitionOptions) {
  return options.segmentFiles === undefined ? {} : { segmentFiles: options.segmentFiles };
}

/** A shared lock on the data directory: a `LogManager` (which takes it exclusively) cannot open it meanwhile. */
function acquireDataDirShared(dataDir: string): DirectoryLock {
  io('create data directory', dataDir, () => mkdirSync(dataDir, { recursive: true }));
  return DirectoryLock.acquire(dataDir, 'data directory', { shared: true });
}
