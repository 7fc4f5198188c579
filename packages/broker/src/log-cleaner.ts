import type { BrokerContext } from './context.js';
import { OFFSETS_TOPIC } from './group/offsets-topic.js';
import { LogError } from './log-port.js';

/**
 * The broker's background log work, as Kafka's LogManager schedules it: retention (every
 * `log.retention.check.interval.ms`: for topics whose cleanup.policy has `delete`, old segments past
 * `retention.ms` — by their newest record — or beyond `retention.bytes` are deleted and the log start
 * offset moves) and the cleaner (every `log.cleaner.backoff.ms`: topics whose policy has `compact` are
 * compacted by storage's `compact` once their dirty share reaches `min.cleanable.dirty.ratio`, their
 * newest inactive record is `min.compaction.lag.ms` old, and tombstones are dropped once that record is
 * `delete.retention.ms` old). Neither touches the active segment: a consumer reading at the end never
 * loses a record, and one reading below the new log start offset gets OFFSET_OUT_OF_RANGE and resets.
 *
 * klog keeps no cleaner checkpoint (Kafka's `cleaner-offset-checkpoint`): after a restart a compacted
 * topic's segments count as dirty once, and the first pass cleans them again (nothing changes but time).
 * Each pass runs on the event loop, between requests.
 */
export class LogCleaner {
  readonly #timers: NodeJS.Timeout[] = [];
  /** Per partition, the first base offset not yet cleaned: segments from there on are dirty. */
  readonly #cleanedUpTo = new Map<string, number>();

  constructor(private readonly ctx: BrokerContext) {}

  start(): void {
    const { logRetentionCheckIntervalMs, logCleanerBackoffMs } = this.ctx.config;
    this.#timers.push(
      setInterval(() => this.retentionPass(this.ctx.now()), logRetentionCheckIntervalMs).unref(),
    );
    this.#timers.push(setInterval(() => this.cleanerPass(this.ctx.now()), logCleanerBackoffMs).unref());
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers.length = 0;
  }

  #partitions(): { topic: string; index: number }[] {
    return [...this.ctx.log.topics()].flatMap(([topic, n]) =>
      Array.from({ length: n }, (_, index) => ({ topic, index })),
    );
  }

  /** One retention pass over every partition of every topic whose policy deletes. */
  retentionPass(now: number): void {
    for (const { topic, index } of this.#partitions()) {
      const c = this.ctx.topicConfigs.effective(topic);
      if (!c.delete || (c.retentionMs < 0 && c.retentionBytes < 0)) continue;
      this.#guard(topic, index, 'retention', () => {
        const p = this.ctx.log.partition(topic, index);
        if (p === undefined) return;
        const deleted = p.deleteOldSegments(
          (segment, bytes) =>
            (c.retentionMs >= 0 && segment.maxTimestamp >= 0 && now - segment.maxTimestamp > c.retentionMs) ||
            (c.retentionBytes >= 0 && bytes - segment.sizeBytes >= c.retentionBytes),
        );
        if (deleted.length > 0) {
          this.ctx.logger.info(
            `${topic}-${index}: retention deleted ${deleted.length} segment(s) from offset ${deleted[0]}; log start offset now ${p.logStartOffset}`,
          );
        }
      });
    }
  }

  /** One cleaner pass over every partition of every topic whose policy compacts. */
  cleanerPass(now: number): void {
    for (const { topic, index } of this.#partitions()) {
      const c = this.ctx.topicConfigs.effective(topic);
      // __consumer_offsets is the group coordinator's to compact (group/offsets-topic.ts).
      if (!c.compact || topic === OFFSETS_TOPIC) continue;
      this.#guard(topic, index, 'compaction', () => {
        const p = this.ctx.log.partition(topic, index);
        if (p === undefined) return;
        const inactive = p.inactiveSegments();
        const newest = inactive.at(-1);
        if (newest === undefined) return;
        const key = `${topic}-${index}`;
        const from = this.#cleanedUpTo.get(key) ?? 0;
        const total = inactive.reduce((n, s) => n + s.sizeBytes, 0);
        const dirty = inactive.filter((s) => s.baseOffset >= from).reduce((n, s) => n + s.sizeBytes, 0);
        if (total === 0 || dirty === 0 || dirty / total < c.minCleanableDirtyRatio) return;
        if (now - newest.maxTimestamp < c.minCompactionLagMs) return;
        const removeTombstones = now - newest.maxTimestamp >= c.deleteRetentionMs;
        const report = p.compact(removeTombstones);
        this.#cleanedUpTo.set(key, newest.baseOffset + 1);
        this.ctx.logger.info(
          `${key}: compacted ${report.segmentsCleaned} segment(s): ${report.recordsBefore} → ${report.recordsAfter} records, ` +
            `${report.bytesBefore} → ${report.bytesAfter} bytes${removeTombstones ? ', tombstones removed' : ''}`,
        );
      });
    }
  }

  #guard(topic: string, index: number, what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      // A deleted topic, a full disk: say so and go on with the other partitions; the next pass tries again.
      const message =
        error instanceof LogError
          ? `${error.code}: ${error.message}`
          : error instanceof Error
            ? error.message
            : String(error);
      this.ctx.logger.warn(`${topic}-${index}: ${what} failed: ${message}`);
    }
  }
}
