import { join } from 'node:path';
import { Log, type LogConfig } from './log.js';
import type { RecoveryReport } from './recovery.js';
import { partitionDirName } from './topic.js';

/**
 * One partition of a topic: the directory `<topic>-<partition>` under a data
 * directory, and the log inside it (Kafka's `Partition`, minus replication).
 */
export class Partition {
  #log: Log;

  private constructor(
    readonly dataDir: string,
    readonly topic: string,
    readonly partition: number,
    log: Log,
  ) {
    this.#log = log;
  }

  /**
   * Open (or create) `<dataDir>/<topic>-<partition>`. The topic name and partition
   * number are validated before anything touches the disk; opening recovers the
   * active segment, and `recovery` says what that had to cut, if anything.
   */
  static open(dataDir: string, topic: string, partition: number, config: Partial<LogConfig> = {}): Partition {
    const name = partitionDirName(topic, partition);
    const log = Log.open(join(dataDir, name), config);
    return new Partition(dataDir, topic, partition, log);
  }

  /** What recovery cut from the active segment when the log was opened; undefined when it was whole. */
  get recovery(): RecoveryReport | undefined {
    return this.#log.recovery;
  }

  get dir(): string {
    return this.#log.dir;
  }

  get log(): Log {
    return this.#log;
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

  /** Close and open the log again from disk (used after a compaction swapped its directory). */
  reopen(): void {
    const config = this.#log.config;
    this.#log.close();
    this.#log = Log.open(this.#log.dir, config);
  }

  close(): void {
    this.#log.close();
  }
}
