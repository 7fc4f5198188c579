import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../state/broker-dir.js';
import { checkGroupConfig } from './group-config.js';

/** The file, in the broker's own directory, beside `topic-configs.json`. */
export const GROUP_CONFIGS_FILE = 'group-configs.json';

/**
 * Each group's own configs (GROUP config resources, set by AlterConfigs and IncrementalAlterConfigs), kept
 * across restarts as Kafka keeps them (ConfigRecords of type GROUP in its cluster metadata, read by
 * `GroupConfigManager`): one broker-level file, `.broker/group-configs.json`, written whole (temporary file,
 * fsync, rename) like `TopicConfigStore`'s. A group need not exist to have configs (Kafka allows it), so no
 * entry is dropped at start and deleting a group leaves its configs, as in Kafka.
 */
export class GroupConfigStore {
  readonly #path: string;
  readonly #groups = new Map<string, ReadonlyMap<string, string>>();

  private constructor(
    dir: string,
    private readonly fsyncDir: (dir: string) => void,
  ) {
    this.#path = join(dir, GROUP_CONFIGS_FILE);
  }

  /** Loads the file in `dir`, if there is one. */
  static open(dir: string, fsyncDir: (dir: string) => void): GroupConfigStore {
    const store = new GroupConfigStore(dir, fsyncDir);
    if (!existsSync(store.#path)) return store;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(store.#path, 'utf8'));
    } catch (error) {
      throw new Error(
        `${store.#path} is not JSON (${(error as Error).message}): klog wrote it, so it was damaged`,
      );
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new Error(`${store.#path} holds no object of groups`);
    }
    for (const [group, configs] of Object.entries(data as Record<string, unknown>)) {
      const map = new Map<string, string>();
      for (const [name, value] of Object.entries((configs ?? {}) as Record<string, unknown>)) {
        const checked = checkGroupConfig(name, typeof value === 'string' ? value : null);
        if (!checked.ok) throw new Error(`${store.#path}: group ${group}: ${checked.reason}`);
        map.set(name, checked.value);
      }
      store.#groups.set(group, map);
    }
    return store;
  }

  /** The group's own configs (empty when it has none). */
  get(group: string): ReadonlyMap<string, string> {
    return this.#groups.get(group) ?? new Map();
  }

  /** Replaces the group's own configs, durably; an empty map removes the entry. */
  set(group: string, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.#groups.delete(group);
    else this.#groups.set(group, new Map(configs));
    const data = Object.fromEntries(
      [...this.#groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, c]) => [g, Object.fromEntries(c)]),
    );
    writeFileDurably(this.#path, `${JSON.stringify(data, null, 2)}\n`, this.fsyncDir);
  }
}
