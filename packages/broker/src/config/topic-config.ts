import { BROKER_COMPRESSION_TYPES, type BrokerCompressionType, LOG_SETTINGS } from '../log/log-port.js';
import {
  type ConfigTypeName,
  flagOfName,
  INT_MAX,
  JAVA_LONG_MAX,
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

/** The doc of a config klog only stores, as DescribeConfigs' documentation says it. */
const storedOnly = (doc: string) => `${doc} (klog stores this config but does not act on it)`;

/**
 * The rest of Kafka 4.1.0's topic configs (`LogConfig`'s definitions), which klog does not act on: accepted
 * by CreateTopics and AlterConfigs with Kafka's type and bounds, stored and described, so that a client that
 * sets them (librdkafka's tests, kafka-topics scripts) gets what Kafka answers; their docs say klog ignores
 * them. They have no `klog serve` flag: a broker default that does nothing would mislead. Where Kafka has no
 * broker-level synonym (`ServerTopicConfigSynonyms`), `brokerName` is the topic config's own name.
 */
export const STORED_TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  {
    name: 'compression.gzip.level',
    brokerName: 'compression.gzip.level',
    type: 'INT',
    defaultValue: '-1',
    // Kafka's GzipCompression level validator: Deflater's default (-1) or 1 to 9.
    validator: { kind: 'rangeOr', min: 1, max: 9, or: -1 },
    doc: storedOnly('the gzip level batches are stored at when compression.type is gzip'),
  },
  {
    name: 'compression.lz4.level',
    brokerName: 'compression.lz4.level',
    type: 'INT',
    defaultValue: '9',
    validator: { kind: 'range', min: 1, max: 17 },
    doc: storedOnly('the lz4 level batches are stored at when compression.type is lz4'),
  },
  {
    name: 'compression.zstd.level',
    brokerName: 'compression.zstd.level',
    type: 'INT',
    defaultValue: '3',
    // zstd's own bounds (ZSTD_minCLevel is -131072), as Kafka's ZstdCompression checks them.
    validator: { kind: 'range', min: -131_072, max: 22 },
    doc: storedOnly('the zstd level batches are stored at when compression.type is zstd'),
  },
  {
    name: 'file.delete.delay.ms',
    brokerName: 'log.segment.delete.delay.ms',
    type: 'LONG',
    defaultValue: '60000',
    validator: { kind: 'long', min: 0 },
    doc: storedOnly('how long a deleted segment waits before its files are removed'),
  },
  {
    name: 'flush.messages',
    brokerName: 'log.flush.interval.messages',
    type: 'LONG',
    defaultValue: JAVA_LONG_MAX,
    validator: { kind: 'long', min: 1 },
    doc: storedOnly(
      "fsync after this many records (klog fsyncs by the broker's log.flush.interval.messages)",
    ),
  },
  {
    name: 'flush.ms',
    brokerName: 'log.flush.interval.ms',
    type: 'LONG',
    defaultValue: JAVA_LONG_MAX,
    validator: { kind: 'long', min: 0 },
    doc: storedOnly(
      "fsync once records have waited this long (klog fsyncs by the broker's log.flush.interval.ms)",
    ),
  },
  {
    name: 'follower.replication.throttled.replicas',
    brokerName: 'follower.replication.throttled.replicas',
    type: 'LIST',
    defaultValue: '',
    validator: { kind: 'throttledReplicas' },
    doc: storedOnly('the replicas whose follower-side replication is throttled (partition:broker, or *)'),
  },
  {
    name: 'index.interval.bytes',
    brokerName: 'log.index.interval.bytes',
    type: 'INT',
    defaultValue: '4096',
    validator: { kind: 'range', min: 0, max: INT_MAX },
    doc: storedOnly('bytes of records between two offset index entries'),
  },
  {
    name: 'leader.replication.throttled.replicas',
    brokerName: 'leader.replication.throttled.replicas',
    type: 'LIST',
    defaultValue: '',
    validator: { kind: 'throttledReplicas' },
    doc: storedOnly('the replicas whose leader-side replication is throttled (partition:broker, or *)'),
  },
  {
    name: 'local.retention.bytes',
    brokerName: 'log.local.retention.bytes',
    type: 'LONG',
    defaultValue: '-2',
    validator: { kind: 'long', min: -2 },
    doc: storedOnly('with tiered storage, the bytes kept on local disk (-2: retention.bytes)'),
  },
  {
    name: 'local.retention.ms',
    brokerName: 'log.local.retention.ms',
    type: 'LONG',
    defaultValue: '-2',
    validator: { kind: 'long', min: -2 },
    doc: storedOnly('with tiered storage, how long segments stay on local disk (-2: retention.ms)'),
  },
  {
    name: 'max.compaction.lag.ms',
    brokerName: 'log.cleaner.max.compaction.lag.ms',
    type: 'LONG',
    defaultValue: JAVA_LONG_MAX,
    validator: { kind: 'long', min: 1 },
    doc: storedOnly('the longest a record may stay uncompacted'),
  },
  {
    // Deprecated in Kafka 4.0 (no down-conversion is left to enable) but still defined.
    name: 'message.downconversion.enable',
    brokerName: 'log.message.downconversion.enable',
    type: 'BOOLEAN',
    defaultValue: 'true',
    validator: { kind: 'boolean' },
    doc: storedOnly('whether old fetch versions may have records down-converted (a no-op in Kafka 4)'),
  },
  {
    name: 'message.timestamp.after.max.ms',
    brokerName: 'log.message.timestamp.after.max.ms',
    type: 'LONG',
    defaultValue: '3600000',
    validator: { kind: 'long', min: 0 },
    doc: storedOnly("how far past the broker's clock a CreateTime timestamp may be"),
  },
  {
    name: 'message.timestamp.before.max.ms',
    brokerName: 'log.message.timestamp.before.max.ms',
    type: 'LONG',
    defaultValue: JAVA_LONG_MAX,
    validator: { kind: 'long', min: 0 },
    doc: storedOnly("how far behind the broker's clock a CreateTime timestamp may be"),
  },
  {
    name: 'min.insync.replicas',
    brokerName: 'min.insync.replicas',
    type: 'INT',
    defaultValue: '1',
    validator: { kind: 'range', min: 1, max: INT_MAX },
    doc: storedOnly('replicas that must hold a write acks=all waits for'),
  },
  {
    name: 'preallocate',
    brokerName: 'log.preallocate',
    type: 'BOOLEAN',
    defaultValue: 'false',
    validator: { kind: 'boolean' },
    doc: storedOnly("allocate a new segment's file at its full size"),
  },
  {
    name: 'remote.log.copy.disable',
    brokerName: 'remote.log.copy.disable',
    type: 'BOOLEAN',
    defaultValue: 'false',
    validator: { kind: 'boolean' },
    doc: storedOnly('with tiered storage, stop copying segments to remote storage'),
  },
  {
    name: 'remote.log.delete.on.disable',
    brokerName: 'remote.log.delete.on.disable',
    type: 'BOOLEAN',
    defaultValue: 'false',
    validator: { kind: 'boolean' },
    doc: storedOnly('with tiered storage, delete remote segments when it is turned off'),
  },
  {
    name: 'remote.storage.enable',
    brokerName: 'remote.storage.enable',
    type: 'BOOLEAN',
    defaultValue: 'false',
    validator: { kind: 'boolean' },
    doc: storedOnly('keep older segments in tiered (remote) storage'),
  },
  {
    name: 'segment.index.bytes',
    brokerName: 'log.index.size.max.bytes',
    type: 'INT',
    defaultValue: '10485760',
    validator: { kind: 'range', min: 4, max: INT_MAX },
    doc: storedOnly("the largest a segment's offset index may grow"),
  },
  {
    name: 'segment.jitter.ms',
    brokerName: 'log.roll.jitter.ms',
    type: 'LONG',
    defaultValue: '0',
    validator: { kind: 'long', min: 0 },
    doc: storedOnly('a random amount up to this taken off segment.ms, so segments do not all roll at once'),
  },
  {
    name: 'unclean.leader.election.enable',
    brokerName: 'unclean.leader.election.enable',
    type: 'BOOLEAN',
    defaultValue: 'false',
    validator: { kind: 'boolean' },
    doc: storedOnly('let a replica outside the ISR become leader, losing records'),
  },
];

/** Every topic config Kafka 4.1.0 defines, acted on or only stored, by name (DescribeConfigs' order). */
export const ALL_TOPIC_CONFIGS: readonly TopicConfigDef[] = [...TOPIC_CONFIGS, ...STORED_TOPIC_CONFIGS].sort(
  (a, b) => (a.name < b.name ? -1 : 1),
);

const bad = (reason: string): Parsed => ({ ok: false, reason });

const BY_NAME = new Map(ALL_TOPIC_CONFIGS.map((d) => [d.name, d]));

export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return BY_NAME.get(name);
}

/** A topic's config set, checked: each name Kafka defines with a value it accepts, or why not (one line). */
export function checkTopicConfig(name: string, value: string | null): Parsed {
  const def = BY_NAME.get(name);
  if (def === undefined) return bad(`Unknown topic config name: ${name}`);
  if (value === null) return bad(`Null value not supported for topic config ${name}`);
  const parsed = parseTopicConfig(def, value);
  if (!parsed.ok) return bad(`Invalid value ${value} for configuration ${name}: ${parsed.reason}`);
  // Kafka's LogConfig.validate: a broker without tiered storage refuses a topic that asks for it.
  if (name === 'remote.storage.enable' && parsed.value === 'true')
    return bad(
      'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.',
    );
  return parsed;
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
