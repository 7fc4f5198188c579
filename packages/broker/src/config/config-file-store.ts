import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../state/broker-dir.js';
import type { Parsed } from './config-def.js';

/**
 * Configs set at run time on resources other than topics (`TopicConfigStore` has those): a group's (GROUP
 * config resources, read by Kafka's `GroupConfigManager`) and the broker's dynamic ones (Kafka's
 * `DynamicBrokerConfig`), kept across restarts as Kafka keeps them (ConfigRecords in its cluster metadata):
 * one broker-level file per kind under `.broker/`, written whole (temporary file, fsync, rename) like
 * `TopicConfigStore`'s. A group need not exist to have configs (Kafka allows it), so no entry is dropped at
 * start and deleting a group leaves its configs, as in Kafka.
 */
export class ConfigFileStore {
  readonly #path: string;
  readonly #resources = new Map<string, ReadonlyMap<string, string>>();

  private constructor(
    dir: string,
    file: string,
    private readonly fsyncDir: (dir: string) => void,
  ) {
    this.#path = join(dir, file);
  }

  /** Loads `file` in `dir`, if there is one, each value checked by `check` (a row's validator). */
  static open(
    dir: string,
    file: string,
    check: (name: string, value: string | null) => Parsed,
    fsyncDir: (dir: string) => void,
  ): ConfigFileStore {
    const store = new ConfigFileStore(dir, file, fsyncDir);
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
      throw new Error(`${store.#path} holds no object of resources`);
    }
    for (const [resource, configs] of Object.entries(data as Record<string, unknown>)) {
      const map = new Map<string, string>();
      for (const [name, value] of Object.entries((configs ?? {}) as Record<string, unknown>)) {
        const checked = check(name, typeof value === 'string' ? value : null);
        if (!checked.ok) throw new Error(`${store.#path}: ${resource}: ${checked.reason}`);
        map.set(name, checked.value);
      }
      store.#resources.set(resource, map);
    }
    return store;
  }

  /** The resource's own configs (empty when it has none). */
  get(resource: string): ReadonlyMap<string, string> {
    return this.#resources.get(resource) ?? new Map();
  }

  /** Replaces the resource's own configs, durably; an empty map removes the entry. */
  set(resource: string, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.#resources.delete(resource);
    else this.#resources.set(resource, new Map(configs));
    const data = Object.fromEntries(
      [...this.#resources].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, c]) => [g, Object.fromEntries(c)]),
    );
    writeFileDurably(this.#path, `${JSON.stringify(data, null, 2)}\n`, this.fsyncDir);
  }
}

/** Each group's own configs: `.broker/group-configs.json`. */
export const GROUP_CONFIGS_FILE = 'group-configs.json';
/** The broker's dynamic configs, by broker id: `.broker/broker-configs.json`. */
export const BROKER_CONFIGS_FILE = 'broker-configs.json';
