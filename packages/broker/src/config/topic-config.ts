import { BROKER_COMPRESSION_TYPES, type BrokerCompressionType, LOG_SETTINGS } from '../log/log-port.js';
import {
  type ConfigTypeName,
  flagOfName,
  LONG_MAX,
  type Parsed,
  parseConfigValue,
  type Validator,
} from './config-def.js';

/**
 * The topic configs klog implements, as Kafka's `TopicConfig` / `LogConfig` name and bound them: one row per
 * setting, holding its topic-level name, the broker-level default it falls back to (its synonym, Kafka's
 * `ServerLogConfigs` and `ServerTopicConfigSynonyms`), its type, Kafka's default, its validator and its doc.
 * Everything else is derived from these rows: `klog serve`'s `--log-*` flags and their help, the names a
 * server.properties may give, CreateTopics/AlterConfigs checks, DescribeConfigs of a topic and of the broker.
 * Pure: parsing and the effective values; the broker stores and applies them.
 */

export type { ConfigTypeName, Parsed } from './config-def.js';

/** A broker-level name in a coarser unit (`log.retention.hours`): Kafka converts it, the `ms` name wins. */
export interface CoarseSynonym {
  readonly name: string;
  /** Milliseconds per unit. */
  readonly factor: number;
  readonly validator: Validator;
}

/** One topic config (Kafka's `ConfigDef.ConfigKey` in `LogConfig`), with its broker-level default linked. */
export interface TopicConfigDef {
  /** The topic-level name (`retention.ms`). */
  readonly name: string;
  readonly type: ConfigTypeName;
  /** Kafka's default, as DescribeConfigs prints it. */
  readonly defaultValue: string;
  readonly validator: Validator;
  /** The broker config that is this one's default (DescribeConfigs' synonym, `log.retention.ms`). */
  readonly brokerName: string;
  /** Coarser broker-level spellings of the same default (`log.retention.hours`), finest last. */
  readonly brokerSynonyms?: readonly CoarseSynonym[];
  /** `klog serve`'s flag for the broker default, when not `brokerName` kebab-cased (`--log-retention-ms`). */
  readonly brokerFlag?: string;
  /** One line for `klog serve --help`: what the broker default does (the row adds name, bounds, default). */
  readonly doc: string;
}

/** `klog serve`'s flag for a topic config's broker-level default. */
export function brokerFlagOf(def: TopicConfigDef): string {
  return def.brokerFlag ?? flagOfName(def.brokerName);
}

/** A value for a topic config, checked by its row: normalised as Kafka prints it, or why not. */
export function parseTopicConfig(def: TopicConfigDef, raw: string): Parsed {
  return parseConfigValue(def.validator, raw);
}

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** Every topic config klog applies, in the order DescribeConfigs lists them. */
export const TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  {
    name: 'cleanup.policy',
    brokerName: 'log.cleanup.policy',
    type: 'LIST',
    defaultValue: 'delete',
    validator: { kind: 'listOf', values: ['delete', 'compact'] },
    doc: 'what happens to old segments: delete them, compact the log, or both',
  },
  {
    // Kafka's broker setting has the topic's name (ServerTopicConfigSynonyms.sameName).
    name: 'compression.type',
    brokerName: 'compression.type',
    type: 'STRING',
    defaultValue: 'producer',
    validator: { kind: 'oneOf', values: BROKER_COMPRESSION_TYPES },
    doc: "the codec batches are stored in (producer: keep the producer's)",
  },
  {
    name: 'delete.retention.ms',
    brokerName: 'log.cleaner.delete.retention.ms',
    type: 'LONG',
    defaultValue: String(DAY_MS),
    validator: { kind: 'range', min: 0, max: LONG_MAX },
    doc: 'how long a tombstone is kept once a compacted log is cleaned',
  },
  {
    // Storage's bounds (what its log can read back): klog's maximum is below Kafka's Integer.MAX_VALUE.
    name: 'max.message.bytes',
    brokerName: 'message.max.bytes',
    type: 'INT',
    defaultValue: String(LOG_SETTINGS.messageMaxBytes.default),
    validator: {
      kind: 'range',
      min: LOG_SETTINGS.messageMaxBytes.min,
      max: LOG_SETTINGS.messageMaxBytes.max,
    },
    doc: 'largest batch a producer may send',
  },
  {
    name: 'message.timestamp.type',
    brokerName: 'log.message.timestamp.type',
    type: 'STRING',
    defaultValue: 'CreateTime',
    validator: { kind: 'oneOf', values: ['CreateTime', 'LogAppendTime'] },
    doc: "the records' timestamps: the producer's, or the broker's at append",
  },
  {
    name: 'min.cleanable.dirty.ratio',
    brokerName: 'log.cleaner.min.cleanable.ratio',
    type: 'DOUBLE',
    defaultValue: '0.5',
    validator: { kind: 'fraction', min: 0, max: 1 },
    doc: 'share of a compacted log not yet cleaned before the cleaner cleans it',
  },
  {
    name: 'min.compaction.lag.ms',
    brokerName: 'log.cleaner.min.compaction.lag.ms',
    type: 'LONG',
    defaultValue: '0',
    validator: { kind: 'range', min: 0, max: LONG_MAX },
    doc: 'how old a record must be before compaction may remove it',
  },
  {
    name: 'retention.bytes',
    brokerName: 'log.retention.bytes',
    type: 'LONG',
    defaultValue: '-1',
    validator: { kind: 'range', min: -1, max: LONG_MAX },
    doc: 'a partition keeps at most this many bytes (-1: no limit)',
  },
  {
    name: 'retention.ms',
    brokerName: 'log.retention.ms',
    brokerSynonyms: [
      {
        name: 'log.retention.hours',
        factor: 3_600_000,
        validator: { kind: 'range', min: -1, max: LONG_MAX },
      },
      { name: 'log.retention.minutes', factor: 60_000, validator: { kind: 'range', min: -1, max: LONG_MAX } },
    ],
    type: 'LONG',
    defaultValue: String(WEEK_MS),
    validator: { kind: 'range', min: -1, max: LONG_MAX },
    doc: 'a segment is deleted once its records are this old (-1: kept forever)',
  },
  {
    // Storage's bounds: a segment holds at least one batch header (Kafka's minimum is 14 bytes).
    name: 'segment.bytes',
    brokerName: 'log.segment.bytes',
    brokerFlag: '--segment-bytes',
    type: 'INT',
    defaultValue: String(LOG_SETTINGS.segmentBytes.default),
    validator: { kind: 'range', min: LOG_SETTINGS.segmentBytes.min, max: LOG_SETTINGS.segmentBytes.max },
    doc: 'roll a segment at this size',
  },
  {
    name: 'segment.ms',
    brokerName: 'log.roll.ms',
    brokerSynonyms: [
      { name: 'log.roll.hours', factor: 3_600_000, validator: { kind: 'range', min: 1, max: LONG_MAX } },
    ],
    type: 'LONG',
    defaultValue: String(WEEK_MS),
    validator: { kind: 'range', min: 1, max: LONG_MAX },
    doc: 'roll a segment once its first batch is this old',
  },
];

/**
 * Topic configs Kafka has and klog does not apply: named as such in INVALID_CONFIG, rather than "unknown",
 * so the user knows the setting is real and that klog would ignore it.
 */
const KAFKA_ONLY = new Set([
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.zstd.level',
  'file.delete.delay.ms',
  'flush.messages',
  'flush.ms',
  'follower.replication.throttled.replicas',
  'index.interval.bytes',
  'leader.replication.throttled.replicas',
  'local.retention.bytes',
  'local.retention.ms',
  'max.compaction.lag.ms',
  'message.downconversion.enable',
  'message.timestamp.after.max.ms',
  'message.timestamp.before.max.ms',
  'message.timestamp.difference.max.ms',
  'min.insync.replicas',
  'preallocate',
  'remote.storage.enable',
  'segment.index.bytes',
  'segment.jitter.ms',
  'unclean.leader.election.enable',
  'remote.log.copy.disable',
  'remote.log.delete.on.disable',
]);

const bad = (reason: string): Parsed => ({ ok: false, reason });

const BY_NAME = new Map(TOPIC_CONFIGS.map((d) => [d.name, d]));

export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return BY_NAME.get(name);
}

/** A topic's config set, checked: each name klog applies with a value it can use, or why not (one line). */
export function checkTopicConfig(name: string, value: string | null): Parsed {
  const def = BY_NAME.get(name);
  if (def === undefined) {
    return bad(
      KAFKA_ONLY.has(name)
        ? `klog does not implement topic config ${name} (it applies ${TOPIC_CONFIGS.map((d) => d.name).join(', ')})`
        : `Unknown topic config name: ${name}`,
    );
  }
  if (value === null) return bad(`Null value not supported for topic config ${name}`);
  const parsed = parseTopicConfig(def, value);
  return parsed.ok ? parsed : bad(`Invalid value ${value} for configuration ${name}: ${parsed.reason}`);
}

/** The values a log runs with, typed. */
export interface TopicLogConfig {
  readonly compact: boolean;
  /** `compression.type`: the codec batches are stored in (`producer`: the producer's). */
  readonly compressionType: BrokerCompressionType;
  readonly delete: boolean;
  readonly deleteRetentionMs: number;
  readonly maxMessageBytes: number;
  readonly logAppendTime: boolean;
  readonly minCleanableDirtyRatio: number;
  readonly minCompactionLagMs: number;
  readonly retentionBytes: number;
  readonly retentionMs: number;
  readonly segmentBytes: number;
  readonly segmentMs: number;
}

/**
 * The effective config of a topic: its own values over the broker's defaults (by broker name) over Kafka's
 * defaults, as `LogConfig.fromProps` layers them. Values are the normalised strings `checkTopicConfig` made.
 */
export function effectiveTopicConfig(
  own: ReadonlyMap<string, string>,
  brokerDefaults: ReadonlyMap<string, string>,
): TopicLogConfig {
  const get = (name: string) => {
    const def = BY_NAME.get(name)!;
    return own.get(name) ?? brokerDefaults.get(def.brokerName) ?? def.defaultValue;
  };
  const policy = get('cleanup.policy').split(',');
  return {
    compact: policy.includes('compact'),
    delete: policy.includes('delete'),
    compressionType: get('compression.type') as BrokerCompressionType,
    deleteRetentionMs: Number(get('delete.retention.ms')),
    maxMessageBytes: Number(get('max.message.bytes')),
    logAppendTime: get('message.timestamp.type') === 'LogAppendTime',
    minCleanableDirtyRatio: Number(get('min.cleanable.dirty.ratio')),
    minCompactionLagMs: Number(get('min.compaction.lag.ms')),
    retentionBytes: Number(get('retention.bytes')),
    retentionMs: Number(get('retention.ms')),
    segmentBytes: Number(get('segment.bytes')),
    segmentMs: Number(get('segment.ms')),
  };
}
