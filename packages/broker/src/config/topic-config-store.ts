import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../state/broker-dir.js';
import { checkTopicConfig } from './topic-config.js';

/** The file, in the broker's own directory. */
export const TOPIC_CONFIGS_FILE = 'topic-configs.json';

/**
 * Each topic's own configs (those set at CreateTopics or by AlterConfigs), kept across restarts in one
 * broker-level file, `.broker/topic-configs.json`, as Kafka keeps topic configs in its cluster metadata
 * (ConfigRecords in the KRaft log), not in the log directories: one file written whole (temporary file,
 * fsync, rename), so a change of several configs at once is all there or not at all, and a topic's
 * partition directories stay exactly Kafka's. The configs are written before a topic's directories are
 * created and dropped after they are removed, so a crash in between leaves at worst an entry for a topic
 * that does not exist, which `open` drops: never a compacted topic that comes back as `delete`.
 */
export class TopicConfigStore {
  readonly #path: string;
  readonly #topics = new Map<string, ReadonlyMap<string, string>>();

  private constructor(
    dir: string,
    private readonly fsyncDir: (dir: string) => void,
  ) {
    this.#path = join(dir, TOPIC_CONFIGS_FILE);
  }

  /** Loads the file in `dir`; entries of topics not in `existing` are dropped (a deletion a crash cut short). */
  static open(dir: string, existing: ReadonlySet<string>, fsyncDir: (dir: string) => void): TopicConfigStore {
    const store = new TopicConfigStore(dir, fsyncDir);
    if (!existsSync(store.#path)) return store;
    const text = readFileSync(store.#path, 'utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new Error(
        `${store.#path} is not JSON (${(error as Error).message}): klog wrote it, so it was damaged`,
      );
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new Error(`${store.#path} holds no object of topics`);
    }
    let dropped = false;
    for (const [topic, configs] of Object.entries(data as Record<string, unknown>)) {
      if (!existing.has(topic)) {
        dropped = true;
        continue;
      }
      const map = new Map<string, string>();
      for (const [name, value] of Object.entries((configs ?? {}) as Record<string, unknown>)) {
        const checked = checkTopicConfig(name, typeof value === 'string' ? value : null);
        if (!checked.ok) throw new Error(`${store.#path}: topic ${topic}: ${checked.reason}`);
        map.set(name, checked.value);
      }
      store.#topics.set(topic, map);
    }
    if (dropped) store.#write();
    return store;
  }

  /** The topic's own configs (empty when it has none). */
  get(topic: string): ReadonlyMap<string, string> {
    return this.#topics.get(topic) ?? new Map();
  }

  /** Replaces the topic's own configs, durably; an empty map removes the entry. */
  set(topic: string, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.#topics.delete(topic);
    else this.#topics.set(topic, new Map(configs));
    this.#write();
  }

  /** A deleted topic's entry goes (after its directories). */
  delete(topic: string): void {
    if (this.#topics.delete(topic)) this.#write();
  }

  #write(): void {
    const data = Object.fromEntries(
      [...this.#topics].sort(([a], [b]) => (a < b ? -1 : 1)).map(([t, c]) => [t, Object.fromEntries(c)]),
    );
    writeFileDurably(this.#path, `${JSON.stringify(data, null, 2)}\n`, this.fsyncDir);
  }
}
