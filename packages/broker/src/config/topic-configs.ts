import type { TopicLogSettings } from '../log/log-port.js';
import { effectiveTopicConfig, type TopicLogConfig } from './topic-config.js';
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
   * The topic's own configs: what topic creation (topic-creation.ts) and AlterConfigs set —
   * `__consumer_offsets`' too, created with the group coordinator's (`cleanup.policy=compact`…).
   */
  own(topic: string): ReadonlyMap<string, string> {
    return this.store.get(topic);
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

  /** The topic's log config, as storage's `LogConfig` names it: what its partitions' logs are opened with. */
  logConfig(topic: string): TopicLogSettings {
    const c = this.effective(topic);
    return {
      segmentBytes: c.segmentBytes,
      segmentMs: c.segmentMs,
      maxBatchBytes: c.maxMessageBytes,
      compression: c.compressionType,
      compact: c.compact,
      delete: c.delete,
      retentionMs: c.retentionMs,
      retentionBytes: c.retentionBytes,
      minCleanableDirtyRatio: c.minCleanableDirtyRatio,
      minCompactionLagMs: c.minCompactionLagMs,
      deleteRetentionMs: c.deleteRetentionMs,
    };
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
