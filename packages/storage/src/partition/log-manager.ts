import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import {
  CLEANER_CHECKPOINT_FILE,
  type CleanedLog,
  LogCleanerManager,
  type SegmentSummary,
} from '../cleaner/log-cleaner-manager.js';
import { StorageError } from '../errors.js';
import { DirectoryLock, LOCK_FILE_NAME } from '../io/file-lock.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io } from '../io/io.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../log/log.js';
import type { OffsetGap } from '../log/log-loader.js';
import type { RecoveryReport } from '../segment/recovery.js';
import { SegmentFileCache } from '../segment/segment-file-cache.js';
import { indexPathsOf, parseSegmentFileName, temporaryPathOf } from '../segment/segment-name.js';
import { Partition, type PartitionOptions } from './partition.js';
import {
  newTopicId,
  PARTITION_METADATA_FILE,
  readPartitionMetadata,
  writePartitionMetadata,
} from './partition-metadata.js';
import { MAX_PARTITIONS, partitionDirName, validateTopicName } from './topic.js';

export interface LogManagerOptions {
  /** The config of every partition's log: segmentBytes, maxBatchBytes (message.max.bytes), flush. */
  readonly config?: Partial<LogConfig>;
  /** Kafka's producer snapshots (`.snapshot` files); a broker turns them on. */
  readonly producerSnapshots?: boolean;
  /** Kafka's `producer.id.expiration.ms`; off when undefined. */
  readonly producerIdExpirationMs?: number;
  /** Open files for inactive segments, over every partition (default 256, less under a low `ulimit -n`). */
  readonly maxOpenSegmentFiles?: number;
  /**
   * Partitions open at once (each holds four files: its lock, its active segment and that segment's two
   * index files). Past it, the one used least recently is closed (its producer snapshot written) and opened
   * again on its next use, so one request over more partitions than the process has descriptors is served.
   * Default: an eighth of the process's open-file limit, from 16 to 2000.
   */
  readonly maxOpenPartitions?: number;
  /**
   * Entries of the data directory that belong to the manager's user, not to a topic (a broker's own
   * `.broker`): left alone. Every other entry must be a partition directory or is reported.
   */
  readonly ownEntries?: readonly string[];
  /**
   * A topic's own log config (its `segment.bytes`, `max.message.bytes`), over `config`, read when one of
   * its partitions is opened: a broker keeps topic configs, the log manager only applies them.
   */
  readonly topicConfig?: (topic: string) => Partial<LogConfig>;
  /** The logs' clock (Kafka's `Time`): retention, `segment.ms` and the cleaner's lags (default `Date.now`). */
  readonly time?: () => number;
}

/** How often the background passes run (`LogManager.startup`), with Kafka's names. */
export interface LogSchedule {
  /** Kafka's `log.retention.check.interval.ms`: a retention pass over every log this often. */
  readonly retentionCheckIntervalMs: number;
  /** Kafka's `log.cleaner.backoff.ms`: a cleaner pass over every compacted log this often. */
  readonly cleanerBackoffMs: number;
  /** Told what each pass did, partition by partition (a broker logs it). */
  readonly onEvent?: (event: LogEvent) => void;
}

/** What a background pass did to one partition. */
export type LogEvent =
  | {
      readonly kind: 'retention';
      readonly topic: string;
      readonly partition: number;
      /** Base offsets of the segments deleted, oldest first. */
      readonly deleted: readonly number[];
      readonly logStartOffset: number;
    }
  | ({ readonly kind: 'compaction'; readonly topic: string; readonly partition: number } & CleanedLog)
  | {
      /**
       * A pass began, ended, or was stopped by `close`: the partitions it looked at so far (their segment
       * lists) and how many of them it opened for work (Kafka's `LogCleaner` logs its own statistics so).
       */
      readonly kind: 'pass';
      readonly task: 'retention' | 'compaction';
      readonly phase: 'started' | 'done' | 'stopped';
      readonly partitions: number;
      readonly opened: number;
    }
  | {
      readonly kind: 'failed';
      readonly task: 'retention' | 'compaction';
      readonly topic: string;
      readonly partition: number;
      readonly error: unknown;
    };

/** What opening one partition found (`LogManager.checkLogs`). */
export interface PartitionFindings {
  readonly topic: string;
  readonly partition: number;
  readonly recovery: RecoveryReport | undefined;
  readonly gaps: readonly OffsetGap[];
}

/** Start-up's check of every log (`LogManager.checkLogs`): what loading found, and how far it got. */
export interface LoadCheck {
  /** Partitions whose loading found something, in topic and partition order. */
  readonly findings: readonly PartitionFindings[];
  /** Partitions that could not be opened, with why: each is answered with its error when asked for. */
  readonly failed: readonly { readonly topic: string; readonly partition: number; readonly error: unknown }[];
  /** Partitions whose directory held segments, so were opened (by the check, or by a request first). */
  readonly opened: number;
  /** Partitions whose directory held no segment: nothing to load, so not opened. */
  readonly empty: number;
  /** False when `close` stopped the check before it was through. */
  readonly complete: boolean;
}

/** An entry of the data directory that is no partition: hidden, so not refused, but never skipped silently. */
export interface UnmappedEntry {
  readonly path: string;
  readonly reason: string;
}

/**
 * How many partitions a background pass or the start-up check looks at per slice of the event loop (each
 * a directory listing at most, cached); a partition opened for work ends its slice.
 */
const LISTINGS_PER_SLICE = 64;

/** Gives the event loop back: the requests waiting are served before the pass goes on. */
const nextSlice = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A segment of a partition that is not open, from its directory's listing: its size is read (stat) and its
 * newest timestamp (the time index's last entry, as Kafka's `TimeIndex.lastEntry`) only when asked.
 */
class ListedSegment implements SegmentSummary {
  #size: number | undefined;
  constructor(
    readonly path: string,
    readonly baseOffset: number,
  ) {}

  get size(): number {
    this.#size ??= io('stat segment', this.path, () => statSync(this.path).size);
    return this.#size;
  }

  maxTimestamp(): number | undefined {
    const path = indexPathsOf(this.path).times;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    try {
      const size = fstatSync(fd).size;
      // An empty time index over records, or a torn one: the opened log decides (it rebuilds the index).
      if (size === 0) return this.size === 0 ? -1 : undefined;
      if (size % 12 !== 0) return undefined;
      const entry = Buffer.alloc(12);
      if (readSync(fd, entry, 0, 12, size - 12) !== 12) return undefined;
      return Number(entry.readBigInt64BE(0));
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/** A deleted topic's partition directories are renamed to this, hidden, before they are removed. */
const DELETED = /^\..+-\d+\.deleted$/;

/** `<topic>-<partition>` back to its parts: the last `-` splits them (a topic may hold `-`). */
function parsePartitionDirName(name: string): { topic: string; partition: number } | undefined {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return undefined;
  const digits = name.slice(dash + 1);
  if (!/^(0|[1-9]\d*)$/.test(digits)) return undefined;
  const topic = name.slice(0, dash);
  const partition = Number(digits);
  try {
    return partitionDirName(topic, partition) === name ? { topic, partition } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A data directory of many partitions (Kafka's `LogManager`, one log directory): it
 * holds the directory's lock for as long as it is open (a second manager, or a
 * `Partition.open` on the same directory, is refused with `LOCKED`), finds every
 * `<topic>-<partition>` directory on open, creates topics, and opens a partition's log
 * on first use, all of them sharing one bounded cache of open segment files.
 */
export class LogManager {
  readonly #lock: DirectoryLock;
  readonly #topics = new Map<string, number>();
  /** topic → its id, and back (Kafka's `TopicsImage` keeps both maps): hex, as the wire codecs carry ids. */
  readonly #topicIds = new Map<string, string>();
  readonly #byId = new Map<string, string>();
  #topicsVersion = 0;
  readonly #open = new Map<string, Partition>();
  readonly #files: SegmentFileCache;
  readonly #unmapped: UnmappedEntry[] = [];
  readonly #maxOpen: number;
  readonly #time: () => number;
  #cleaner!: LogCleanerManager;
  /**
   * The segments of partitions not open, from their directory listings (an unopened partition cannot
   * change): the passes decide from them which partitions have work, without opening the others.
   */
  readonly #listed = new Map<string, readonly ListedSegment[]>();
  /** Until start-up's check is through: partitions opened once, whose findings are kept in `#found`. */
  #loaded: Set<string> | undefined = new Set();
  readonly #found = new Map<string, PartitionFindings>();
  readonly #timers: NodeJS.Timeout[] = [];
  /** The passes running now: a pass longer than its interval is not started twice. */
  readonly #running = new Set<'retention' | 'compaction'>();
  #closed = false;

  private constructor(
    readonly dataDir: string,
    readonly options: LogManagerOptions,
    lock: DirectoryLock,
  ) {
    this.#lock = lock;
    const limit = openFileLimit();
    this.#files = new SegmentFileCache(
      options.maxOpenSegmentFiles ?? Math.max(16, Math.min(256, Math.floor(limit / 4))),
    );
    this.#maxOpen = options.maxOpenPartitions ?? Math.max(16, Math.min(2000, Math.floor(limit / 8)));
    this.#time = options.time ?? Date.now;
  }

  /**
   * Open the data directory `dataDir` (created if missing) and find its topics. Every
   * entry must be a `<topic>-<partition>` directory (a topic's name may start with `.`, as
   * Kafka allows), the lock, or one of `ownEntries`: anything else is refused rather than
   * ignored, as is a topic whose partitions are not 0 … n-1 (a missing partition would be
   * data lost without a word); a hidden entry that maps to no topic is kept and reported
   * in `unmapped` (an editor's or a file system's own files should not stop a broker).
   */
  static open(dataDir: string, options: LogManagerOptions = {}): LogManager {
    io('create data directory', dataDir, () => mkdirSync(dataDir, { recursive: true }));
    const lock = DirectoryLock.acquire(dataDir, 'data directory');
    try {
      const manager = new LogManager(dataDir, options, lock);
      manager.#discover();
      manager.#cleaner = new LogCleanerManager(
        join(dataDir, CLEANER_CHECKPOINT_FILE),
        (topic, partition) => partition < (manager.#topics.get(topic) ?? 0),
      );
      return manager;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  #discover(): void {
    const found = new Map<string, number[]>();
    const entries = io('list data directory', this.dataDir, () =>
      readdirSync(this.dataDir, { withFileTypes: true }),
    );
    const checkpoint = CLEANER_CHECKPOINT_FILE;
    const own = new Set([
      LOCK_FILE_NAME,
      checkpoint,
      basename(temporaryPathOf(checkpoint)),
      ...(this.options.ownEntries ?? []),
    ]);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (own.has(entry.name)) continue;
      // A deletion a crash interrupted: the topic was already gone for clients; finish it.
      if (DELETED.test(entry.name)) {
        const path = join(this.dataDir, entry.name);
        io('remove deleted partition', path, () => rmSync(path, { recursive: true, force: true }));
        continue;
      }
      const parsed = entry.isDirectory() ? parsePartitionDirName(entry.name) : undefined;
      if (parsed === undefined && entry.name.startsWith('.')) {
        this.#unmapped.push({
          path: join(this.dataDir, entry.name),
          reason: entry.isDirectory()
            ? 'a directory whose name is no <topic>-<partition>'
            : 'not a directory: a data directory holds partitions only',
        });
        continue;
      }
      if (parsed === undefined) {
        throw new StorageError(
          'KAFKA_STORAGE_ERROR',
          `${join(this.dataDir, entry.name)} is not a <topic>-<partition> directory: a data directory holds partitions only`,
          { path: join(this.dataDir, entry.name) },
        );
      }
      const list = found.get(parsed.topic) ?? [];
      list.push(parsed.partition);
      found.set(parsed.topic, list);
    }
    for (const [topic, partitions] of [...found].sort(([a], [b]) => (a < b ? -1 : 1))) {
      partitions.sort((a, b) => a - b);
      const missing = partitions.findIndex((p, i) => p !== i);
      if (missing !== -1) {
        throw new StorageError(
          'KAFKA_STORAGE_ERROR',
          `topic ${topic} in ${this.dataDir} has partitions ${partitions.join(', ')}: partition ${missing} is missing`,
          { path: this.dataDir },
        );
      }
      this.#topics.set(topic, partitions.length);
      this.#setTopicId(topic, this.#discoverTopicId(topic, partitions.length));
    }
  }

  /**
   * The topic's id from its partitions' `partition.metadata` files: the one they all hold; one drawn now
   * when none holds any (a data directory from before topic ids gets them on its first start), written
   * where it is missing; two different ids are refused, as Kafka's `UnifiedLog` refuses a partition whose
   * file disagrees with the topic's id (`InconsistentTopicIdException`).
   */
  #discoverTopicId(topic: string, count: number): string {
    let found: { id: string; dir: string } | undefined;
    const missing: string[] = [];
    for (let p = 0; p < count; p++) {
      const dir = join(this.dataDir, partitionDirName(topic, p));
      const id = readPartitionMetadata(dir);
      if (id === undefined) missing.push(dir);
      else if (found === undefined) found = { id, dir };
      else if (found.id !== id) {
        const a = join(found.dir, PARTITION_METADATA_FILE);
        const b = join(dir, PARTITION_METADATA_FILE);
        throw new StorageError(
          'KAFKA_STORAGE_ERROR',
          `topic ${topic} has two topic ids: ${a} holds ${found.id}, ${b} holds ${id} (Kafka's INCONSISTENT_TOPIC_ID)`,
          { path: b },
        );
      }
    }
    const id = found?.id ?? newTopicId();
    for (const dir of missing) writePartitionMetadata(dir, id);
    return id;
  }

  #setTopicId(topic: string, id: string): void {
    this.#topicIds.set(topic, id);
    this.#byId.set(id, topic);
  }

  /** Hidden entries of the data directory that map to no topic, found on open: left alone, to be reported. */
  get unmapped(): readonly UnmappedEntry[] {
    return this.#unmapped;
  }

  /** topic → partition count, for every topic found on disk or created. */
  topics(): ReadonlyMap<string, number> {
    return this.#topics;
  }

  /** The topic's id (hex, 8-4-4-4-12), as its `partition.metadata` files keep it; undefined for no such topic. */
  topicId(topic: string): string | undefined {
    return this.#topicIds.get(topic);
  }

  /** The topic an id names; undefined when no topic has it (deleted, or never made here). */
  topicName(id: string): string | undefined {
    return this.#byId.get(id);
  }

  /**
   * One more on every change of the topics: a creation, more partitions, a deletion (the role of the offset
   * of Kafka's metadata image), so a reader can tell its view of them is stale.
   */
  get topicsVersion(): number {
    return this.#topicsVersion;
  }

  /**
   * Create `<topic>-0` … `<topic>-(n-1)`. StorageError `TOPIC_ALREADY_EXISTS`,
   * `INVALID_TOPIC_EXCEPTION` (a bad name, or one that collides with an existing topic
   * once `.` and `_` are taken as one, as Kafka refuses) or `INVALID_PARTITIONS`.
   */
  createTopic(topic: string, partitions: number): void {
    this.#checkOpen();
    validateTopicName(topic);
    if (!Number.isSafeInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
      throw new StorageError(
        'INVALID_PARTITIONS',
        `a topic needs 1..${MAX_PARTITIONS} partitions, got ${String(partitions)}`,
      );
    }
    if (this.#topics.has(topic)) {
      throw new StorageError('TOPIC_ALREADY_EXISTS', `topic ${topic} already exists`);
    }
    const folded = topic.replace(/\./g, '_');
    for (const existing of this.#topics.keys()) {
      if (existing.replace(/\./g, '_') === folded) {
        throw new StorageError(
          'INVALID_TOPIC_EXCEPTION',
          `topic ${topic} collides with existing topic ${existing} ('.' and '_' are the same in metric names)`,
        );
      }
    }
    // A new id each time, so a topic deleted and made again under its name is another topic to a client
    // (Kafka's `ReplicationControlManager.createTopic` draws `Uuid.randomUuid`).
    const id = newTopicId();
    for (let p = 0; p < partitions; p++) {
      const dir = join(this.dataDir, partitionDirName(topic, p));
      io('create partition directory', dir, () => mkdirSync(dir));
      writePartitionMetadata(dir, id);
    }
    fsyncDirectory(this.dataDir);
    this.#topics.set(topic, partitions);
    this.#setTopicId(topic, id);
    this.#topicsVersion++;
  }

  /** The partition, its log opened on first use; undefined when the topic or partition does not exist. */
  partition(topic: string, partition: number): Partition | undefined {
    this.#checkOpen();
    const count = this.#topics.get(topic);
    if (count === undefined || !Number.isSafeInteger(partition) || partition < 0 || partition >= count) {
      return undefined;
    }
    const key = `${topic}-${partition}`;
    let open = this.#open.get(key);
    if (open !== undefined) {
      // Most recently used last: the map's order is the order of eviction.
      this.#open.delete(key);
      this.#open.set(key, open);
    } else {
      this.#evictFor(1);
      open = this.#openPartition(topic, partition);
      this.#open.set(key, open);
    }
    return open;
  }

  /**
   * Opens a partition's log (outside the cache: the caller keeps or closes it). Its listing is dropped (an
   * open partition changes), and until start-up's check is through, what its first loading found is kept.
   */
  #openPartition(topic: string, partition: number): Partition {
    const key = `${topic}-${partition}`;
    this.#listed.delete(key);
    const options: PartitionOptions = {
      segmentFiles: this.#files,
      ...(this.options.producerSnapshots === undefined
        ? {}
        : { producerSnapshots: this.options.producerSnapshots }),
      ...(this.options.producerIdExpirationMs === undefined
        ? {}
        : { producerIdExpirationMs: this.options.producerIdExpirationMs }),
      time: this.#time,
    };
    const opened = Partition.openManaged(this.dataDir, topic, partition, this.#configOf(topic), options);
    if (this.#loaded !== undefined && !this.#loaded.has(key)) {
      this.#loaded.add(key);
      const { recovery, gaps } = opened.log;
      if (recovery !== undefined || gaps.length > 0)
        this.#found.set(key, { topic, partition, recovery, gaps });
    }
    return opened;
  }

  /** Runs `work` on the partition: the open one, or opened for it alone and closed again (no eviction). */
  #withPartition<T>(topic: string, partition: number, work: (p: Partition) => T): T {
    const open = this.#open.get(`${topic}-${partition}`);
    if (open !== undefined) return work(open);
    const p = this.#openPartition(topic, partition);
    let result: T;
    try {
      result = work(p);
    } catch (error) {
      closeQuietly(p);
      throw error;
    }
    closeQuietly(p);
    return result;
  }

  /**
   * The partition's segments, oldest first: the open log's own, or from its directory listing (cached until
   * it is opened). An empty list: no segment yet (a partition never written to).
   */
  #segmentsOf(topic: string, partition: number): readonly SegmentSummary[] {
    const key = `${topic}-${partition}`;
    const open = this.#open.get(key);
    if (open !== undefined) return open.log.segments;
    let listed = this.#listed.get(key);
    if (listed === undefined) {
      const dir = join(this.dataDir, partitionDirName(topic, partition));
      const names = io('list partition directory', dir, () => readdirSync(dir));
      const segments: ListedSegment[] = [];
      for (const name of names) {
        const base = parseSegmentFileName(name);
        if (base !== undefined) segments.push(new ListedSegment(join(dir, name), base));
      }
      listed = segments.sort((a, b) => a.baseOffset - b.baseOffset);
      this.#listed.set(key, listed);
    }
    return listed;
  }

  /**
   * fsync every open partition's active segment (Kafka's `log.flush.interval.ms` flusher); the first failure
   * is thrown once every partition was tried.
   */
  flush(): void {
    this.#checkOpen();
    let first: unknown;
    for (const partition of this.#open.values()) {
      try {
        partition.flush();
      } catch (error) {
        first ??= error;
      }
    }
    if (first !== undefined) throw first;
  }

  /**
   * Start-up's check (Kafka's `LogManager.loadLogs`, which loads every log before the broker serves): what
   * loading each log finds, what recovery cut from its active segment and the offsets no segment holds. Run
   * while requests are served, in slices of the event loop: a partition whose directory holds no segment has
   * nothing to load and is not opened; the others are opened one per slice (outside the open-partition
   * cache, then closed), unless a request opened one first, whose findings were kept then. Stops early when
   * the manager is closed.
   */
  async checkLogs(): Promise<LoadCheck> {
    const failed: { topic: string; partition: number; error: unknown }[] = [];
    let empty = 0;
    let listings = 0;
    let complete = true;
    const loaded = this.#loaded ?? new Set<string>();
    check: for (const [topic, count] of [...this.#topics]) {
      for (let p = 0; p < count; p++) {
        if (++listings % LISTINGS_PER_SLICE === 0) await nextSlice();
        if (this.#closed) {
          complete = false;
          break check;
        }
        if (p >= (this.#topics.get(topic) ?? 0) || loaded.has(`${topic}-${p}`)) continue;
        try {
          if (this.#segmentsOf(topic, p).length === 0) {
            empty++;
            continue;
          }
          this.#withPartition(topic, p, () => undefined);
        } catch (error) {
          failed.push({ topic, partition: p, error });
        }
        await nextSlice();
        listings = 0;
      }
    }
    const opened = loaded.size;
    const findings = [...this.#found.values()].sort((a, b) =>
      a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
    );
    // Checked: from now on an open is no start-up finding (a partition evicted and opened again).
    this.#loaded = undefined;
    this.#found.clear();
    return { findings, failed, opened, empty, complete };
  }

  /** Partitions open now (at most `maxOpenPartitions`). */
  get openPartitions(): number {
    return this.#open.size;
  }

  /** Close the least recently used partitions until `room` more can be opened (Kafka has no such bound: its files are mmapped). */
  #evictFor(room: number): void {
    for (const [key, partition] of this.#open) {
      if (this.#open.size + room <= this.#maxOpen) return;
      this.#open.delete(key);
      // Closed cleanly (snapshot, flush); a failure to do so is the next open's recovery to mend.
      try {
        partition.close();
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
      }
    }
  }

  /**
   * CreatePartitions: the topic grows to `count` partitions (new, empty directories). StorageError
   * `UNKNOWN_TOPIC_OR_PARTITION`, or `INVALID_PARTITIONS` for a count that is not more than it has.
   */
  addPartitions(topic: string, count: number): void {
    this.#checkOpen();
    const now = this.#topics.get(topic);
    if (now === undefined)
      throw new StorageError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${topic} does not exist`);
    if (!Number.isSafeInteger(count) || count <= now || count > MAX_PARTITIONS) {
      throw new StorageError(
        'INVALID_PARTITIONS',
        `topic ${topic} has ${now} partitions: a new count must be more, at most ${MAX_PARTITIONS}, got ${String(count)}`,
      );
    }
    const id = this.#topicIds.get(topic)!;
    for (let p = now; p < count; p++) {
      const dir = join(this.dataDir, partitionDirName(topic, p));
      io('create partition directory', dir, () => mkdirSync(dir));
      writePartitionMetadata(dir, id);
    }
    fsyncDirectory(this.dataDir);
    this.#topics.set(topic, count);
    this.#topicsVersion++;
  }

  /**
   * DeleteTopics: closes the topic's partitions, renames each directory to a hidden `.<dir>.deleted`
   * (one fsync of the data directory makes the topic gone), then removes them; `open` finishes a removal a
   * crash interrupted. StorageError `UNKNOWN_TOPIC_OR_PARTITION`.
   */
  deleteTopic(topic: string): void {
    this.#checkOpen();
    const count = this.#topics.get(topic);
    if (count === undefined)
      throw new StorageError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${topic} does not exist`);
    const doomed: string[] = [];
    for (let p = 0; p < count; p++) {
      const key = `${topic}-${p}`;
      this.#open.get(key)?.close();
      this.#open.delete(key);
      const dir = join(this.dataDir, partitionDirName(topic, p));
      const hidden = join(this.dataDir, `.${partitionDirName(topic, p)}.deleted`);
      io('rename deleted partition', dir, () => renameSync(dir, hidden));
      doomed.push(hidden);
    }
    this.#topics.delete(topic);
    const id = this.#topicIds.get(topic);
    this.#topicIds.delete(topic);
    if (id !== undefined) this.#byId.delete(id);
    this.#topicsVersion++;
    for (let p = 0; p < count; p++) {
      this.#listed.delete(`${topic}-${p}`);
      this.#loaded?.delete(`${topic}-${p}`);
      this.#found.delete(`${topic}-${p}`);
    }
    this.#cleaner.forget(topic);
    this.#writeCheckpoint();
    fsyncDirectory(this.dataDir);
    for (const path of doomed)
      io('remove deleted partition', path, () => rmSync(path, { recursive: true, force: true }));
  }

  /** The topic's log config: its own over the manager's (Kafka's `LogConfig.fromProps` over the defaults). */
  #configOf(topic: string): Partial<LogConfig> {
    return { ...this.options.config, ...this.options.topicConfig?.(topic) };
  }

  /**
   * Starts the background passes over every log, `__consumer_offsets` as any other (Kafka's
   * `LogManager.startup`: the retention task every `log.retention.check.interval.ms`, the cleaner every
   * `log.cleaner.backoff.ms`). `close` stops them. The passes run on the event loop, one partition at a
   * time, and yield to it between partitions.
   */
  startup(schedule: LogSchedule): void {
    this.#checkOpen();
    if (this.#timers.length > 0)
      throw new StorageError('INVALID_REQUEST', 'the log manager is started already');
    const every = (ms: number, pass: () => Promise<unknown>) => {
      const timer = setInterval(() => void pass(), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(schedule.retentionCheckIntervalMs, () => this.cleanupLogs(schedule.onEvent));
    every(schedule.cleanerBackoffMs, () => this.cleanLogs(schedule.onEvent));
  }

  /**
   * One retention pass (Kafka's `LogManager.cleanupLogs`): for every partition of every topic whose
   * `cleanup.policy` has `delete` and which has a `retention.ms` or `retention.bytes`, the log's own
   * `deleteRetentionBreachedSegments`. A partition is opened only when its oldest inactive segment breaches
   * a limit (the active segment is never deleted, and deletion stops at the first segment kept, as in
   * `Log.deleteOldSegments`). Returns what it did; a partition that failed is reported and the others go on.
   */
  cleanupLogs(onEvent?: (event: LogEvent) => void): Promise<LogEvent[]> {
    return this.#pass(
      'retention',
      onEvent,
      (config) => config.delete && (config.retentionMs >= 0 || config.retentionBytes >= 0),
      (_topic, _partition, config, segments) => retentionBreached(config, segments, this.#time()),
      (p) => {
        const deleted = p.deleteRetentionBreachedSegments();
        return deleted.length === 0
          ? undefined
          : {
              kind: 'retention',
              topic: p.topic,
              partition: p.partition,
              deleted,
              logStartOffset: p.logStartOffset,
            };
      },
    );
  }

  /**
   * One cleaner pass (Kafka's `LogCleaner` threads, one pass through `LogCleanerManager`): every partition
   * of every compacted topic is compacted once dirty enough (see `LogCleanerManager.needsCleaning`, decided
   * from the segment list, so a partition with nothing to clean is not opened). Where each log is cleaned up
   * to is written to `cleaner-offset-checkpoint` at the end of the pass.
   */
  async cleanLogs(onEvent?: (event: LogEvent) => void): Promise<LogEvent[]> {
    const events = await this.#pass(
      'compaction',
      onEvent,
      (config) => config.compact,
      (topic, partition, config, segments) =>
        this.#cleaner.needsCleaning(topic, partition, config, segments, this.#time()),
      (p) => {
        const cleaned = this.#cleaner.cleanIfDirty(p, this.#time());
        return cleaned === undefined
          ? undefined
          : { kind: 'compaction', topic: p.topic, partition: p.partition, ...cleaned };
      },
    );
    if (!this.#closed) this.#writeCheckpoint(onEvent);
    return events;
  }

  /** The cleaner's checkpoint written if it changed; a failure is told as a failed compaction, not thrown. */
  #writeCheckpoint(onEvent?: (event: LogEvent) => void): void {
    try {
      this.#cleaner.writeCheckpoint();
    } catch (error) {
      try {
        onEvent?.({
          kind: 'failed',
          task: 'compaction',
          topic: CLEANER_CHECKPOINT_FILE,
          partition: -1,
          error,
        });
      } catch {
        // The listener's failure is not the log's.
      }
    }
  }

  /**
   * A pass over every partition of the topics `applies` to, in slices of the event loop: each partition's
   * segment list is looked at (the open log's, or its directory's listing, cached), and only one that
   * `hasWork` says has work is opened and `run` (one such partition per slice). `close` stops it between
   * slices, so shutting down never waits behind a pass.
   */
  async #pass(
    task: 'retention' | 'compaction',
    onEvent: ((event: LogEvent) => void) | undefined,
    applies: (config: LogConfig) => boolean,
    hasWork: (
      topic: string,
      partition: number,
      config: LogConfig,
      segments: readonly SegmentSummary[],
    ) => boolean,
    run: (partition: Partition) => LogEvent | undefined,
  ): Promise<LogEvent[]> {
    const events: LogEvent[] = [];
    if (this.#closed || this.#running.has(task)) return events;
    this.#running.add(task);
    let opened = 0;
    let partitions = 0;
    const tell = (event: LogEvent) => {
      try {
        onEvent?.(event);
      } catch {
        // The listener's failure (a logger's) is not the log's: the pass goes on.
      }
    };
    const phase = (phase: 'started' | 'done' | 'stopped') =>
      tell({ kind: 'pass', task, phase, partitions, opened });
    phase('started');
    try {
      let listings = 0;
      // The topics as they are now; one deleted meanwhile has no partition to visit any more.
      for (const topic of [...this.#topics.keys()]) {
        const config = { ...DEFAULT_LOG_CONFIG, ...this.#configOf(topic) };
        if (!applies(config)) continue;
        for (let index = 0; index < (this.#topics.get(topic) ?? 0); index++) {
          if (++listings % LISTINGS_PER_SLICE === 0) await nextSlice();
          if (this.#closed) {
            phase('stopped');
            return events;
          }
          partitions++;
          let event: LogEvent | undefined;
          try {
            if (!hasWork(topic, index, config, this.#segmentsOf(topic, index))) continue;
            opened++;
            event = this.#withPartition(topic, index, run);
          } catch (error) {
            // A full disk, a damaged segment: said, and the other partitions go on; the next pass tries again.
            event = { kind: 'failed', task, topic, partition: index, error };
          }
          if (event !== undefined) {
            events.push(event);
            tell(event);
          }
          // A partition worked on: its slice is over, the requests waiting are served.
          await nextSlice();
          listings = 0;
        }
      }
      phase(this.#closed ? 'stopped' : 'done');
      return events;
    } finally {
      this.#running.delete(task);
    }
  }

  /** A topic's config changed: its open partitions' logs take the new values (see `Log.reconfigure`). */
  reconfigureTopic(topic: string): void {
    this.#checkOpen();
    const config = this.#configOf(topic);
    for (const [key, partition] of this.#open) {
      if (partition.topic === topic && key === `${topic}-${partition.partition}`)
        partition.reconfigure(config);
    }
  }

  /** Flush and close every open partition (writing their producer snapshots) and release the lock. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    let first: unknown;
    try {
      this.#cleaner.writeCheckpoint();
    } catch (error) {
      first = error;
    }
    for (const partition of this.#open.values()) {
      try {
        partition.close();
      } catch (error) {
        first ??= error;
      }
    }
    this.#open.clear();
    this.#files.closeAll();
    this.#lock.release();
    if (first !== undefined) throw first;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('CLOSED', `log manager of ${this.dataDir} is closed`);
  }
}

/**
 * Whether retention would delete anything from a log with these segments (Kafka's
 * `UnifiedLog.deleteRetentionMsBreachedSegments` and `deleteRetentionSizeBreachedSegments`): the oldest
 * inactive segment must breach a limit, since deletion stops at the first segment kept. A timestamp that
 * cannot be read cheaply says yes: the opened log decides.
 */
function retentionBreached(config: LogConfig, segments: readonly SegmentSummary[], now: number): boolean {
  const oldest = segments.length > 1 ? segments[0]! : undefined;
  if (oldest === undefined) return false;
  if (config.retentionBytes >= 0) {
    let bytes = 0;
    for (const segment of segments) bytes += segment.size;
    if (bytes - oldest.size >= config.retentionBytes) return true;
  }
  if (config.retentionMs >= 0) {
    const newest = oldest.maxTimestamp();
    if (newest === undefined || (newest >= 0 && now - newest > config.retentionMs)) return true;
  }
  return false;
}

/** Closes a partition a pass opened; closed uncleanly, the next open's recovery mends it, as after an eviction. */
function closeQuietly(p: Partition): void {
  try {
    p.close();
  } catch (error) {
    if (!(error instanceof StorageError)) throw error;
  }
}

/** The process's soft limit on open files, from /proc/self/limits (Linux); 1024 where it cannot be read. */
function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m === null ? 1024 : Number(m[1]);
  } catch {
    return 1024;
  }
}
