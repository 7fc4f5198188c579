import { join } from 'node:path';
import { Log, type LogConfig } from './log.js';
import { validatePartitionNumber, validateTopicName } from './topic.js';

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

  /** Open (or create) `<dataDir>/<topic>-<partition>`. */
  static open(dataDir: string, topic: string, partition: number, config: Partial<LogConfig> = {}): Partition {
    validateTopicName(topic);
    validatePartitionNumber(partition);
    const log = Log.open(join(dataDir, `${topic}-${partition}`), config);
    return new Partition(dataDir, topic, partition, log);
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
