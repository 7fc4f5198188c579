import { BROKER_COMPRESSION_TYPES, type BrokerCompressionType } from '../log-port.js';

/**
 * The topic configs klog implements, as Kafka's `TopicConfig` / `LogConfig` name and bound them: each one's
 * topic-level name, the broker-level default it falls back to (its synonym, Kafka's `ServerLogConfigs`),
 * its type and Kafka's default. Pure: parsing and the effective values; the broker stores and applies them.
 */

/** Kafka's `ConfigDef.Type`, as DescribeConfigs v3+ numbers it (`DescribeConfigsResponse.ConfigType`). */
export const CONFIG_TYPE = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7 } as const;
export type ConfigTypeName = keyof typeof CONFIG_TYPE;

/** A value read, normalised as Kafka prints it back, or why it cannot be. */
export type Parsed =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly reason: string };

export interface ConfigDef {
  readonly name: string;
  readonly type: ConfigTypeName;
  /** Kafka's default, as DescribeConfigs prints it. */
  readonly defaultValue: string;
  readonly parse: (raw: string) => Parsed;
}

export interface TopicConfigDef extends ConfigDef {
  /** The broker config that is this one's default (DescribeConfigs' synonym). */
  readonly brokerName: string;
}

const ok = (value: string): Parsed => ({ ok: true, value });
const bad = (reason: string): Parsed => ({ ok: false, reason });

export function wholeNumber(min: number, max: number): (raw: string) => Parsed {
  return (raw) => {
    const text = raw.trim();
    const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(n)) return bad(`expected a whole number, got ${JSON.stringify(raw)}`);
    if (n < min || n > max) return bad(`must be from ${min} to ${max}, got ${n}`);
    return ok(String(n));
  };
}

function fraction(raw: string): Parsed {
  const n = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(n)) return bad(`expected a number, got ${JSON.stringify(raw)}`);
  if (n < 0 || n > 1) return bad(`must be from 0 to 1, got ${n}`);
  return ok(String(n));
}

function oneOf(...values: string[]): (raw: string) => Parsed {
  return (raw) => {
    const text = raw.trim();
    return values.includes(text)
      ? ok(text)
      : bad(`must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  };
}

export function bool(raw: string): Parsed {
  const text = raw.trim().toLowerCase();
  return text === 'true' || text === 'false'
    ? ok(text)
    : bad(`expected true or false, got ${JSON.stringify(raw)}`);
}

/** `cleanup.policy`: a list of delete and compact, printed as Kafka prints a list (comma, no spaces). */
function cleanupPolicy(raw: string): Parsed {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) return bad('needs delete, compact, or both');
  const wrong = items.find((s) => s !== 'delete' && s !== 'compact');
  if (wrong !== undefined) return bad(`must be a list of delete and compact, got ${JSON.stringify(wrong)}`);
  return ok([...new Set(items)].join(','));
}

const LONG_MAX = Number.MAX_SAFE_INTEGER;
const INT_MAX = 2 ** 31 - 1;
/** What klog's log can read back (storage's DEFAULT_MAX_BATCH_BYTES). */
export const MAX_BATCH_BYTES_LIMIT = 64 * 1024 * 1024;
/** A segment must hold at least one batch header (storage's minimum; Kafka's is 14 bytes). */
export const MIN_SEGMENT_BYTES = 61;

/** Every topic config klog applies, in the order DescribeConfigs lists them. */
export const TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  {
    name: 'cleanup.policy',
    brokerName: 'log.cleanup.policy',
    type: 'LIST',
    defaultValue: 'delete',
    parse: cleanupPolicy,
  },
  {
    // Kafka's broker setting has the topic's name (ServerTopicConfigSynonyms.sameName).
    name: 'compression.type',
    brokerName: 'compression.type',
    type: 'STRING',
    defaultValue: 'producer',
    parse: oneOf(...BROKER_COMPRESSION_TYPES),
  },
  {
    name: 'delete.retention.ms',
    brokerName: 'log.cleaner.delete.retention.ms',
    type: 'LONG',
    defaultValue: '86400000',
    parse: wholeNumber(0, LONG_MAX),
  },
  {
    name: 'max.message.bytes',
    brokerName: 'message.max.bytes',
    type: 'INT',
    defaultValue: '1048588',
    parse: wholeNumber(61, MAX_BATCH_BYTES_LIMIT),
  },
  {
    name: 'message.timestamp.type',
    brokerName: 'log.message.timestamp.type',
    type: 'STRING',
    defaultValue: 'CreateTime',
    parse: oneOf('CreateTime', 'LogAppendTime'),
  },
  {
    name: 'min.cleanable.dirty.ratio',
    brokerName: 'log.cleaner.min.cleanable.ratio',
    type: 'DOUBLE',
    defaultValue: '0.5',
    parse: fraction,
  },
  {
    name: 'min.compaction.lag.ms',
    brokerName: 'log.cleaner.min.compaction.lag.ms',
    type: 'LONG',
    defaultValue: '0',
    parse: wholeNumber(0, LONG_MAX),
  },
  {
    name: 'retention.bytes',
    brokerName: 'log.retention.bytes',
    type: 'LONG',
    defaultValue: '-1',
    parse: wholeNumber(-1, LONG_MAX),
  },
  {
    name: 'retention.ms',
    brokerName: 'log.retention.ms',
    type: 'LONG',
    defaultValue: '604800000',
    parse: wholeNumber(-1, LONG_MAX),
  },
  {
    name: 'segment.bytes',
    brokerName: 'log.segment.bytes',
    type: 'INT',
    defaultValue: '1073741824',
    parse: wholeNumber(MIN_SEGMENT_BYTES, INT_MAX),
  },
  {
    name: 'segment.ms',
    brokerName: 'log.roll.ms',
    type: 'LONG',
    defaultValue: '604800000',
    parse: wholeNumber(1, LONG_MAX),
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
  const parsed = def.parse(value);
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
