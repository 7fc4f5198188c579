import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BatchHeaderFields,
  type Duplicate,
  type InvalidProducerEpoch,
  incrementSequence,
  judgeBatch,
  type OutOfOrderSequence,
  type ProducerEpoch,
  type ProducerId,
  ProducerState,
  recordAppendedBatch,
  type Sequence,
  type SequenceRule,
  toProducerEpoch,
  toProducerId,
  toSequence,
} from '@klog/core';
import { type CompactionOptions, type CompactionReport, compactLog } from '../cleaner/compaction.js';
import { StorageError } from '../errors.js';
import { BatchScratch, buildPlainBatch, buildProducerBatch, NO_PRODUCER } from '../format/batch-builder.js';
import { stampLogAppendTime } from '../format/log-append-time.js';
import { type ProducedBatch, readProducedBatch } from '../format/produced-batch.js';
import type { RecordInput } from '../format/record.js';
import { CONTROL_FLAG } from '../format/record-batch.js';
import { DirectoryLock } from '../io/file-lock.js';
import { io } from '../io/io.js';
import {
  type CheckedBatch,
  Log,
  type LogAppend,
  type LogAppendInfo,
  type LogConfig,
  type LogReader,
} from '../log/log.js';
import { validateTimestamp } from '../log/log-validator.js';
import { loadLatestSnapshot, writeProducerSnapshot } from '../producer/producer-snapshot.js';
import {
  addBatchFromHeader,
  rebuildProducerState,
  type SkippedBatch,
} from '../producer/producer-state-rebuild.js';
import type { ProducerWindow } from '../producer/producer-window.js';
import type { ReadAllocator } from '../segment/file-records.js';
import type { LogSegment } from '../segment/log-segment.js';
import type { RecoveryReport } from '../segment/recovery.js';
import type { SegmentFileCache } from '../segment/segment-file-cache.js';
import { partitionDirName } from './topic.js';

/**
 * A batch to append to a partition, and where it comes from (Kafka's `AppendOrigin`),
 * which decides what the log checks and which rule judges a producer's batch:
 * - `client`: a Kafka client's batch as a Produce carried it, judged by Kafka 4.1's rules;
 *   `nowMs`, when given, first expires idle producers;
 * - `klog`: records klog builds into one batch at `nowMs` (its timestamp), with a
 *   producer's fields or without (chapter 3's plain batch), judged by `rule` (the
 *   chapter's by default).
 */
export type AppendRequest =
  | {
      readonly origin: 'client';
      readonly batch: ProducedBatch;
      readonly nowMs?: number;
      /** A topic's `message.timestamp.type=LogAppendTime`: the checked batch is stamped with this time. */
      readonly logAppendTimeMs?: number;
    }
  | {
      readonly origin: 'klog';
      readonly records: readonly RecordInput[];
      readonly nowMs: number;
      readonly producer?: {
        readonly producerId: ProducerId;
        readonly producerEpoch: ProducerEpoch;
        readonly baseSequence: Sequence;
      };
      readonly rule?: SequenceRule;
    };

/**
 * How `append` judges a producer's batch: by this partition's producer state (Kafka's
 * `ProducerStateManager`), or, with `window`, by a window kept outside it (`klog serve --window`,
 * chapter 7's lab). The log's checks are the same either way.
 */
export interface AppendOptions {
  readonly window?: ProducerWindow;
}

/** What `append` did: written (where), a duplicate answered with its first offsets, or refused. */
export type AppendResult =
  | { readonly kind: 'Append'; readonly appended: LogAppendInfo }
  | Duplicate
  | OutOfOrderSequence
  | InvalidProducerEpoch;

/** One build buffer for every append in the process: each batch is written out before the next is built. */
const scratch = new BatchScratch();

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
  /** The log's clock (Kafka's `Time`): retention's and `segment.ms`'s (default `Date.now`). */
  readonly time?: () => number;
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
    config: Partial<LogConfig>,
    readonly options: PartitionOptions,
    /** The data directory's shared lock, held while this partition is open on its own. */
    readonly dataDirLock: DirectoryLock | undefined,
  ) {
    this.#log = this.#openLog(join(dataDir, partitionDirName(topic, partition)), config);
    this.#state = new ProducerState();
    this.#producerStateReport = [];
    try {
      this.#loadProducerState();
    } catch (error) {
      this.#log.close();
      throw error;
    }
  }

  /** The log in `dir`, whose rolls write this partition's producer snapshots. */
  #openLog(dir: string, config: Partial<LogConfig>): Log {
    const files = this.options.segmentFiles;
    const time = this.options.time;
    return Log.open(dir, config, {
      ...(files === undefined ? {} : { segmentFiles: files }),
      ...(time === undefined ? {} : { time }),
      onRoll: (base) => this.#onRoll(base),
    });
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
    // Validated before anything touches the disk.
    partitionDirName(topic, partition);
    const shared = acquireDataDirShared(dataDir);
    try {
      return new Partition(dataDir, topic, partition, config, options, shared);
    } catch (error) {
      shared.release();
      throw error;
    }
  }

  /**
   * Open a partition of a data directory whose lock its `LogManager` holds (exclusively): no shared lock
   * is taken, and closing the partition releases only its own.
   */
  static openManaged(
    dataDir: string,
    topic: string,
    partition: number,
    config: Partial<LogConfig>,
    options: PartitionOptions,
  ): Partition {
    return new Partition(dataDir, topic, partition, config, options, undefined);
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

  /** The partition's log, to read: its writes are `append`'s, under the producer windows. */
  get log(): LogReader {
    return this.#log;
  }

  /**
   * Kafka's `LogCleaner` on this partition's inactive segments: the latest value per key
   * (see compaction.ts). The producer state is not changed: compaction keeps what it holds.
   */
  compact(options: CompactionOptions = {}): CompactionReport {
    return compactLog(this.#log, options);
  }

  /** DeleteRecords: the log starts at `offset` from now on (see `Log.advanceLogStartOffset`). */
  advanceLogStartOffset(offset: number): number {
    return this.#log.advanceLogStartOffset(offset);
  }

  /** Retention: old inactive segments deleted while `breached` holds (see `Log.deleteOldSegments`). */
  deleteOldSegments(breached: (segment: LogSegment, logBytes: number) => boolean): number[] {
    return this.#log.deleteOldSegments(breached);
  }

  /** Retention by the log's config: `retention.ms` and `retention.bytes` (see `Log.deleteRetentionBreachedSegments`). */
  deleteRetentionBreachedSegments(): number[] {
    return this.#log.deleteRetentionBreachedSegments();
  }

  /** A new active segment now, unless the active one is empty (`Log.roll`). */
  roll(): boolean {
    return this.#log.roll();
  }

  /** A topic's config changed: the next appends and rolls follow it (see `Log.reconfigure`). */
  reconfigure(config: Partial<LogConfig>): void {
    this.#log.reconfigure(config);
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

  // #region append-head fragment
  /**
   * Judge first, then write. Only an Append touches the log: a Duplicate answers
   * with the first write's offsets and an OutOfOrderSequence refuses, and neither
   * writes a byte, so the log end offset stays where it was (Kafka's `UnifiedLog.append`
   * skips `localLog.append` when `maybeDuplicate` is present).
   */
  append(request: AppendRequest, options: AppendOptions = {}): AppendResult {
    let batch = this.#log.check(this.#logAppend(request));
    if (request.origin === 'client' && request.logAppendTimeMs !== undefined) {
      const now = validateTimestamp(request.logAppendTimeMs, 'logAppendTimeMs');
      batch = { ...batch, header: stampLogAppendTime(batch.bytes, batch.header, now) };
    }
    const { header } = batch;
    if (header.producerId < 0) return { kind: 'Append', appended: this.#log.append(batch) };
    if (options.window !== undefined) return this.#appendJudgedBy(options.window, batch);
    const pid = toProducerId(header.producerId);
    const epoch = toProducerEpoch(header.producerEpoch);
    const first = toSequence(header.baseSequence);
    const last = incrementSequence(first, header.lastOffsetDelta);
    const rule = request.origin === 'client' ? 'kafka' : (request.rule ?? 'chapter');
    const verdict = judgeBatch(rule, this.#state.get(pid), epoch, first, last);

    switch (verdict.kind) {
      case 'Duplicate':
        return verdict;
      case 'OutOfOrderSequence':
      case 'InvalidProducerEpoch':
        return verdict;
      // #endregion append-head fragment
      case 'Append': {
        const appended = this.#log.append(batch);
        // The window learns of the batch only once it is on the log.
        recordAppendedBatch(
          this.#state,
          pid,
          epoch,
          last,
          appended.lastOffset,
          header.lastOffsetDelta,
          header.maxTimestamp,
        );
        return { kind: 'Append', appended };
      }
    }
  }

  /** What the log checks: a client's batch as it came, or the batch klog builds from the records (once judged, written as built). */
  #logAppend(request: AppendRequest): LogAppend {
    if (request.origin === 'client') {
      if (request.nowMs !== undefined) this.removeExpiredProducers(validateTimestamp(request.nowMs, 'nowMs'));
      return { origin: 'client', batch: request.batch };
    }
    const { records, nowMs } = request;
    if (records.length === 0) throw new StorageError('INVALID_RECORD', 'a batch needs at least one record');
    validateTimestamp(nowMs);
    const base = this.#log.logEndOffset;
    const producer = request.producer ?? NO_PRODUCER;
    // Built in a reused buffer: the log writes it out before another batch is built.
    const bytes =
      request.producer === undefined
        ? buildPlainBatch(records, base, nowMs)
        : buildProducerBatch(records, base, nowMs, producer, scratch.allocate);
    const header = {
      attributes: 0,
      lastOffsetDelta: records.length - 1,
      recordsCount: records.length,
      maxTimestamp: nowMs,
      ...producer,
    };
    return { origin: 'klog', bytes, header };
  }

  // #region append-producer-batch
  /**
   * Append a batch as a Kafka client sent it (RecordBatch v2 bytes, compressed or not),
   * as Kafka's leader does, reading the header only: the size against
   * `message.max.bytes`, the framing (`readProducedBatch`, which the broker has done
   * already), the CRC-32C (checked once, by the log), Kafka's `LogValidator` client rules,
   * then Kafka 4.1's producer rules (`judgeBatch` with the rule `'kafka'`). Only an Append
   * writes: the bytes as received, with the base offset and partition leader epoch
   * assigned on the way to the file; the producer state learns of the batch once it is on
   * the log. No record is decoded, none allocated. With `logAppendTimeMs` (a topic's
   * `message.timestamp.type=LogAppendTime`) the checked batch is stamped with that time.
   */
  appendProducerBatch(
    records: Buffer | ProducedBatch,
    options?: { readonly nowMs?: number; readonly logAppendTimeMs?: number } & AppendOptions,
  ): ProducerBatchAppend {
    const batch = Buffer.isBuffer(records) ? this.#readProduced(records) : records;
    const nowMs = options?.nowMs;
    const stamp = options?.logAppendTimeMs;
    const window = options?.window;
    const result = this.append(
      {
        origin: 'client',
        batch,
        ...(nowMs === undefined ? {} : { nowMs }),
        ...(stamp === undefined ? {} : { logAppendTimeMs: stamp }),
      },
      window === undefined ? {} : { window },
    );
    switch (result.kind) {
      case 'Append':
        return {
          kind: 'Append',
          firstOffset: result.appended.firstOffset,
          lastOffset: result.appended.lastOffset,
          logAppendTimeMs: stamp ?? -1,
          logStartOffset: this.logStartOffset,
        };
      case 'Duplicate':
        return { ...result, logStartOffset: this.logStartOffset };
      default:
        return result;
    }
  }
  // #endregion append-producer-batch

  /**
   * A producer's batch judged by `window` in place of this partition's producer state, which is left as it
   * was (see ProducerWindow): written when the window says so, answered as it says. The batch has passed
   * the log's checks already, as every batch of `append` has.
   */
  #appendJudgedBy(window: ProducerWindow, batch: CheckedBatch): AppendResult {
    const { header } = batch;
    const decision = window.decide(
      {
        topic: this.topic,
        partition: this.partition,
        producerId: header.producerId,
        producerEpoch: header.producerEpoch,
        baseSequence: header.baseSequence,
        records: header.lastOffsetDelta + 1,
        logEndOffset: this.#log.logEndOffset,
        maxTimestamp: header.maxTimestamp,
      },
      () => this.#activeHeaders(),
    );
    const { verdict } = decision;
    const write = 'written' in decision ? decision.written : true;
    const appended = write ? this.#log.append(batch) : undefined;
    return verdict.kind === 'Append' ? { kind: 'Append', appended: appended! } : verdict;
  }

  /** The producers' batch headers of the active segment, as a window rebuilds from them (no control batch). */
  #activeHeaders(): BatchHeaderFields[] {
    const out: BatchHeaderFields[] = [];
    for (const { header } of this.#log.activeSegment.headers()) {
      if (header.producerId < 0 || header.attributes & CONTROL_FLAG) continue;
      const { baseOffset, lastOffsetDelta, producerId, producerEpoch, baseSequence, maxTimestamp } = header;
      out.push({ baseOffset, lastOffsetDelta, producerId, producerEpoch, baseSequence, maxTimestamp });
    }
    return out;
  }

  /** A client's bytes read as one batch, the size first (as Kafka reports an oversized batch, whatever else is wrong). */
  #readProduced(bytes: Buffer): ProducedBatch {
    const maxBatchBytes = this.#log.config.maxBatchBytes;
    if (bytes.length > maxBatchBytes) {
      throw new StorageError(
        'MESSAGE_TOO_LARGE',
        `batch of ${bytes.length} bytes exceeds the limit of ${maxBatchBytes} (message.max.bytes)`,
      );
    }
    return readProducedBatch(bytes);
  }

  /**
   * Raw bytes of whole batches from the one holding `offset`, at most `maxBytes` (but at
   * least one batch), ready to send, with the offsets a Fetch response carries
   * (Kafka's `Partition.fetchRecords`). StorageError `OFFSET_OUT_OF_RANGE` outside
   * [log start, log end].
   */
  fetch(offset: number, maxBytes: number, allocate?: ReadAllocator): FetchResult {
    return {
      records: this.#log.readRaw(offset, maxBytes, allocate),
      highWatermark: this.highWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.logStartOffset,
    };
  }

  /** ListOffsets by timestamp: the first offset whose record's timestamp is `timestampMs` or later. */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | undefined {
    return this.#log.offsetForTimestamp(timestampMs);
  }

  /** ListOffsets' MAX_TIMESTAMP: the record with the largest timestamp, and that timestamp (`Log.offsetOfMaxTimestamp`). */
  offsetOfMaxTimestamp(): { offset: number; timestamp: number } | undefined {
    return this.#log.offsetOfMaxTimestamp();
  }

  /** Close and open the log again from disk, and rebuild the producer state. */
  reopen(): void {
    const config = this.#log.config;
    this.#close();
    this.#log = this.#openLog(this.#log.dir, config);
    this.#loadProducerState();
  }

  /** Flush and close the log (writing a producer snapshot first, when they are on) and release the locks. */
  /** fsync the log's active segment (what `flush` policies and Kafka's `log.flush.interval.ms` ask for). */
  flush(): void {
    this.#log.flush();
  }

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
  #onRoll(newBaseOffset: number): void {
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

/** A shared lock on the data directory: a `LogManager` (which takes it exclusively) cannot open it meanwhile. */
function acquireDataDirShared(dataDir: string): DirectoryLock {
  io('create data directory', dataDir, () => mkdirSync(dataDir, { recursive: true }));
  return DirectoryLock.acquire(dataDir, 'data directory', { shared: true });
}
