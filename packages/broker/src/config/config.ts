import {
  BROKER_CONFIGS,
  type BrokerConfigDef,
  type BrokerSettings,
  type SettingValue,
} from './broker-configs.js';
import { parseConfigValue } from './config-def.js';
import { parseTopicConfig, TOPIC_CONFIGS, type TopicConfigDef } from './topic-config.js';

/**
 * What `klog serve` can be told, typed: one field per row of `BROKER_CONFIGS` (`config/broker-configs.ts`
 * says each one's Kafka name, default, bounds and meaning), checked by `resolveConfig`, and these few more.
 */
export type BrokerConfig = Omit<BrokerSettings, 'advertisedHost'> & {
  /** The host clients are told to connect to (Metadata): `host` unless given. */
  readonly advertisedHost: string;
  /** Kafka's `message.max.bytes`: the largest batch a Produce may append (`max.message.bytes`' default). */
  readonly messageMaxBytes: number;
  /** Kafka's `log.segment.bytes` (`segment.bytes`' default). */
  readonly segmentBytes: number;
  /**
   * The broker-level defaults of topic configs the user set (Kafka's names: `log.retention.ms`,
   * `log.cleanup.policy`, `message.max.bytes`…), checked and normalised; what is not here is Kafka's default.
   * DescribeConfigs reports these as STATIC_BROKER_CONFIG.
   */
  readonly logSettings: ReadonlyMap<string, string>;
  /** The Kafka names of the settings given rather than defaulted (DescribeConfigs' STATIC_BROKER_CONFIG). */
  readonly explicit: ReadonlySet<string>;
};

/** A line of the same kind (a refused connection, a storage error) is logged at most once per this many ms. */
export const LOG_LINE_INTERVAL_MS = 10_000;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The tables a broker's settings come from: its own rows and the topic configs' (their broker defaults). */
export interface ConfigTables {
  readonly broker: readonly BrokerConfigDef[];
  readonly topic: readonly TopicConfigDef[];
}

export const CONFIG_TABLES: ConfigTables = { broker: BROKER_CONFIGS, topic: TOPIC_CONFIGS };

export type BrokerOptions = Partial<Omit<BrokerConfig, 'logSettings' | 'explicit'>> & {
  readonly dataDir: string;
  /**
   * Broker-level topic defaults by Kafka's name (`log.retention.ms`, or `log.retention.hours`…), as text.
   * `messageMaxBytes` and `segmentBytes`, given as numbers, are the same as `message.max.bytes` and
   * `log.segment.bytes` here (and win).
   */
  readonly logSettings?: Readonly<Record<string, string>>;
};

/**
 * Broker-level topic defaults, checked by their topic config's row and named as Kafka names them: a coarser
 * spelling (`log.retention.hours`) is turned into the row's own (`log.retention.ms`), the finer winning.
 */
function resolveLogSettings(
  given: Readonly<Record<string, string>>,
  topicConfigs: readonly TopicConfigDef[],
): Map<string, string> {
  const out = new Map<string, string>();
  const known = new Set(
    topicConfigs.flatMap((d) => [d.brokerName, ...(d.brokerSynonyms ?? []).map((c) => c.name)]),
  );
  for (const name of Object.keys(given)) {
    if (!known.has(name)) throw new ConfigError(`${name} is not a broker log setting klog knows`);
  }
  for (const def of topicConfigs) {
    // Coarsest first, then the row's own name: the finer spelling wins, as in Kafka's LogConfig.
    const coarse = [...(def.brokerSynonyms ?? [])].sort((a, b) => b.factor - a.factor);
    for (const c of coarse) {
      const raw = given[c.name];
      if (raw === undefined) continue;
      const parsed = parseConfigValue(c.validator, raw);
      if (!parsed.ok) throw new ConfigError(`${c.name}: ${parsed.reason}`);
      const n = Number(parsed.value);
      out.set(def.brokerName, String(n === -1 ? -1 : n * c.factor));
    }
    const raw = given[def.brokerName];
    if (raw === undefined) continue;
    const parsed = parseTopicConfig(def, raw);
    if (!parsed.ok) throw new ConfigError(`${def.brokerName}: ${parsed.reason}`);
    out.set(def.brokerName, parsed.value);
  }
  return out;
}

/** A value a library caller gave (typed), checked against its row's validator. */
function checked(def: BrokerConfigDef, value: unknown, atLeast: number | undefined): SettingValue {
  const v = def.validator;
  switch (v.kind) {
    case 'range': {
      const min = Math.max(v.min, atLeast ?? v.min);
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > v.max) {
        throw new ConfigError(
          `${def.key} must be a whole number from ${min} to ${v.max}, got ${String(value)}`,
        );
      }
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean')
        throw new ConfigError(`${def.key} must be true or false, got ${String(value)}`);
      return value;
    default: {
      if (typeof value !== 'string') throw new ConfigError(`${def.key} must be text, got ${String(value)}`);
      const parsed = parseConfigValue(v, value);
      if (!parsed.ok) throw new ConfigError(`${def.key}: ${parsed.reason}`);
      return value;
    }
  }
}

/**
 * The broker's config from what it was told: every row's value given or its default, checked by the row
 * (Kafka's `AbstractConfig` parsing `KafkaConfig`'s ConfigDef), and the broker-level topic defaults.
 */
export function resolveConfig(options: BrokerOptions, tables: ConfigTables = CONFIG_TABLES): BrokerConfig {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Record<
    string,
    unknown
  >;
  const logSettings = resolveLogSettings(options.logSettings ?? {}, tables.topic);
  // message.max.bytes and log.segment.bytes have typed options of their own too: those win.
  const typedLog = [
    ['messageMaxBytes', 'message.max.bytes'],
    ['segmentBytes', 'log.segment.bytes'],
  ] as const;
  for (const [key, name] of typedLog) {
    const value = given[key];
    if (value === undefined) continue;
    const def = tables.topic.find((d) => d.brokerName === name)!;
    const v = def.validator as Extract<typeof def.validator, { kind: 'range' }>;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < v.min || value > v.max) {
      throw new ConfigError(`${key} must be a whole number from ${v.min} to ${v.max}, got ${String(value)}`);
    }
    logSettings.set(name, String(value));
  }
  const values: Record<string, unknown> = {};
  const explicit = new Set(logSettings.keys());
  for (const def of tables.broker) {
    const value = given[def.key] ?? def.defaultValue;
    if (given[def.key] !== undefined && def.name !== null) explicit.add(def.name);
    if (value === undefined) {
      values[def.key] = undefined;
      continue;
    }
    const atLeast = def.atLeastKey === undefined ? undefined : (values[def.atLeastKey] as number | undefined);
    values[def.key] = checked(def, value, atLeast);
  }
  checkConsumerGroupSettings(values);
  const topicDefault = (name: string) =>
    Number(logSettings.get(name) ?? tables.topic.find((d) => d.brokerName === name)!.defaultValue);
  const host = values.host as string;
  const advertisedHost = (values.advertisedHost as string | undefined) ?? host;
  if (advertisedHost === '0.0.0.0' || advertisedHost === '::') {
    throw new ConfigError(
      `clients cannot connect to ${advertisedHost}: give the address they should use (--advertised-host)`,
    );
  }
  return {
    ...values,
    dataDir: options.dataDir,
    advertisedHost,
    messageMaxBytes: topicDefault('message.max.bytes'),
    segmentBytes: topicDefault('log.segment.bytes'),
    logSettings,
    explicit,
  } as unknown as BrokerConfig;
}

/**
 * Kafka's `GroupCoordinatorConfig` requires of the consumer group protocol's settings: each default within
 * its bounds, and a heartbeat interval shorter than the session timeout.
 */
function checkConsumerGroupSettings(values: Record<string, unknown>): void {
  const n = (key: string) => values[key] as number;
  for (const [what, key] of [
    ['session.timeout.ms', 'SessionTimeoutMs'],
    ['heartbeat.interval.ms', 'HeartbeatIntervalMs'],
  ] as const) {
    const value = n(`groupConsumer${key}`);
    const min = n(`groupConsumerMin${key}`);
    const max = n(`groupConsumerMax${key}`);
    if (value < min || value > max)
      throw new ConfigError(
        `group.consumer.${what} must be from group.consumer.min.${what} (${min}) to group.consumer.max.${what} (${max}), got ${value}`,
      );
  }
  if (n('groupConsumerHeartbeatIntervalMs') >= n('groupConsumerSessionTimeoutMs'))
    throw new ConfigError(
      'group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms',
    );
}
