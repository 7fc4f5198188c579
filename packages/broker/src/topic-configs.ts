import { effectiveTopicConfig, type TopicLogConfig } from './configs/topic-config.js';
import { OFFSETS_TOPIC } from './group/offsets-topic.js';
import type { TopicConfigStore } from './topic-config-store.js';

/**
 * The broker's view of topic configs (Kafka's `ConfigRepository` + `LogConfig`): each topic's own values
 * (the store), the broker-level defaults (`klog serve` flags and `--config`), and what a log runs with.
 */
export class TopicConfigs {
  readonly #cache = new Map<string, TopicLogConfig>();

  constructor(
    readonly store: TopicConfigStore,
    /** Broker-level defaults by Kafka's broker names (log.retention.ms…). */
    readonly brokerDefaults: ReadonlyMap<string, string>,
    /** Called after a topic's own configs change (its open logs reconfigure). */
    private readonly changed: (topic: string) => void,
  ) {}

  /**
   * The topic's own configs: what CreateTopics and AlterConfigs set. `__consumer_offsets` is compacted
   * unless told otherwise, as Kafka's group coordinator creates it (`cleanup.policy=compact`): retention
   * never deletes committed offsets, and its own cleaner (group/offsets-topic.ts) compacts it.
   */
  own(topic: string): ReadonlyMap<string, string> {
    const own = this.store.get(topic);
    if (topic !== OFFSETS_TOPIC || own.has('cleanup.policy')) return own;
    return new Map([...own, ['cleanup.policy', 'compact']]);
  }

  /** What the topic's logs run with. */
  effective(topic: string): TopicLogConfig {
    let config = this.#cache.get(topic);
    if (config === undefined) {
      config = effectiveTopicConfig(this.own(topic), this.brokerDefaults);
      this.#cache.set(topic, config);
    }
    return config;
  }

  /** Replaces the topic's own configs (durably) and applies them. */
  set(topic: string, configs: ReadonlyMap<string, string>): void {
    this.store.set(topic, configs);
    this.#cache.delete(topic);
    this.changed(topic);
  }

  /** The topic is gone: so are its configs. */
  delete(topic: string): void {
    this.store.delete(topic);
    this.#cache.delete(topic);
  }
}
