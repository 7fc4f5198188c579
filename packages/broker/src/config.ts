import { DEFAULT_MAX_REQUEST_BYTES } from '@klog/protocol';
import { TOPIC_CONFIGS } from './configs/topic-config.js';
import { LOG_SETTINGS } from './log-port.js';

/** What `klog serve` can be told; every number checked at the boundary (`resolveConfig`). */
export interface BrokerConfig {
  readonly dataDir: string;
  /** The address to bind: loopback unless told otherwise. */
  readonly host: string;
  /** 0 picks a free port (tests); `port` then tells which. */
  readonly port: number;
  /** The host clients are told to connect to (Metadata). Defaults to `host`. */
  readonly advertisedHost: string;
  /** The port clients are told; defaults to the port bound. */
  readonly advertisedPort: number | undefined;
  readonly nodeId: number;
  /**
   * Kafka's `auto.create.topics.enable` (true by default, as in Kafka): a Metadata request for an unknown
   * topic that allows it creates the topic with `numPartitions` partitions.
   */
  readonly autoCreateTopics: boolean;
  /** Kafka's `num.partitions`: partitions of an auto-created topic, or of a CreateTopics asking for −1. */
  readonly numPartitions: number;
  /** Kafka's `socket.request.max.bytes`: a larger frame closes its connection. */
  readonly socketRequestMaxBytes: number;
  /** Kafka's `connections.max.idle.ms`: a connection silent this long is closed. */
  readonly connectionsMaxIdleMs: number;
  /**
   * Bytes of responses a connection may have waiting to be sent before the broker stops reading that
   * connection's requests (a client that stops reading gets no more than this and one response buffered).
   */
  readonly maxBufferedResponseBytes: number;
  /** Kafka's `fetch.max.bytes`: the most a Fetch response carries, whatever the client asks. */
  readonly fetchMaxBytes: number;
  /** Kafka's `message.max.bytes`: the largest batch a Produce may append. */
  readonly messageMaxBytes: number;
  /** Kafka's `log.segment.bytes`. */
  readonly segmentBytes: number;
  /**
   * Kafka's `log.flush.interval.messages`: fsync a partition once this many records were appended since its
   * last fsync (1: before every append is acknowledged). undefined: never on a count (Kafka's Long.MAX_VALUE).
   */
  readonly logFlushIntervalMessages: number | undefined;
  /** Kafka's `log.flush.interval.ms`: fsync every partition with unflushed records this often. undefined: never. */
  readonly logFlushIntervalMs: number | undefined;
  /** Kafka's `max.connections`: connections beyond this many are closed as they are accepted. */
  readonly maxConnections: number;
  /** Kafka's `max.connections.per.ip`: the same, per client address. */
  readonly maxConnectionsPerIp: number;
  /**
   * Kafka's `queued.max.request.bytes`: bytes of requests being read or handled, over all connections (each
   * frame reserved whole once its size is read); past it, no socket is read until some are released
   * (back-pressure). The same budget bounds responses not yet taken by the kernel: a Fetch is cut to what is
   * left of it (but gets at least one batch).
   */
  readonly queuedMaxRequestBytes: number;
  /**
   * The broker-level defaults of topic configs the user set (Kafka's names: `log.retention.ms`,
   * `log.cleanup.policy`, `message.max.bytes`…), checked and normalised; what is not here is Kafka's default.
   * DescribeConfigs reports these as STATIC_BROKER_CONFIG.
   */
  readonly logSettings: ReadonlyMap<string, string>;
  /** Kafka's `log.retention.check.interval.ms`: how often retention looks for segments to delete. */
  readonly logRetentionCheckIntervalMs: number;
  /** Kafka's `log.cleaner.backoff.ms`: how often the cleaner looks for compacted topics to clean. */
  readonly logCleanerBackoffMs: number;
  /** The Kafka names of the settings given rather than defaulted (DescribeConfigs' STATIC_BROKER_CONFIG). */
  readonly explicit: ReadonlySet<string>;
  /**
   * Teaching faults (`faults.ts`): the responses of the first `dropAcks` Produce requests that write records
   * are dropped (the connection stays open)…
   */
  readonly dropAcks: number;
  /** …and the next `closeAfterAppend` such requests get their connection closed instead of an answer. */
  readonly closeAfterAppend: number;
  /** Kafka's `offsets.topic.num.partitions`: partitions of `__consumer_offsets`, fixed once it exists. */
  readonly offsetsTopicNumPartitions: number;
  /** Kafka's `group.initial.rebalance.delay.ms`: an empty group's first rebalance waits this long for more members. */
  readonly groupInitialRebalanceDelayMs: number;
  /** Kafka's `group.min.session.timeout.ms` and `group.max.session.timeout.ms`: the session timeouts a member may ask for. */
  readonly groupMinSessionTimeoutMs: number;
  readonly groupMaxSessionTimeoutMs: number;
  /** Kafka's `group.max.size` (unbounded there): members of one group, pending ones included. */
  readonly groupMaxSize: number;
  /** Kafka's `offsets.retention.minutes`: how long an empty group's committed offsets are kept. */
  readonly offsetsRetentionMinutes: number;
  /** Kafka's `offsets.retention.check.interval.ms`. */
  readonly offsetsRetentionCheckIntervalMs: number;
}

export const DEFAULT_CONFIG = {
  host: '127.0.0.1',
  port: 9092,
  nodeId: 0,
  autoCreateTopics: true,
  numPartitions: 1,
  socketRequestMaxBytes: DEFAULT_MAX_REQUEST_BYTES,
  connectionsMaxIdleMs: 600_000,
  maxBufferedResponseBytes: 1024 * 1024,
  fetchMaxBytes: 55 * 1024 * 1024,
  messageMaxBytes: LOG_SETTINGS.messageMaxBytes.default,
  segmentBytes: LOG_SETTINGS.segmentBytes.default,
  logFlushIntervalMessages: undefined,
  logFlushIntervalMs: undefined,
  // Kafka's defaults are Integer.MAX_VALUE: refusing at a count, with a log line, beats EMFILE with none.
  maxConnections: 10_000,
  maxConnectionsPerIp: 2 ** 31 - 1,
  // Kafka's default is -1 (unbounded); 256 MiB holds two 100 MiB requests at once (and as much of responses).
  queuedMaxRequestBytes: 256 * 1024 * 1024,
  logRetentionCheckIntervalMs: 300_000,
  logCleanerBackoffMs: 15_000,
  dropAcks: 0,
  closeAfterAppend: 0,
  offsetsTopicNumPartitions: 50,
  groupInitialRebalanceDelayMs: 3000,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupMaxSize: 1000,
  offsetsRetentionMinutes: 10_080,
  offsetsRetentionCheckIntervalMs: 600_000,
} as const;

/** A line of the same kind (a refused connection, a storage error) is logged at most once per this many ms. */
export const LOG_LINE_INTERVAL_MS = 10_000;

/** Each number setting's bounds, by its name here (Kafka's, camel-cased), in one place. */
export const BOUNDS = {
  port: [0, 65535],
  advertisedPort: [1, 65535],
  nodeId: [0, 2 ** 31 - 1],
  numPartitions: [1, 100_000],
  socketRequestMaxBytes: [64, 2 ** 31 - 1],
  connectionsMaxIdleMs: [1, 2 ** 31 - 1],
  maxBufferedResponseBytes: [0, 2 ** 31 - 1],
  fetchMaxBytes: [1, 2 ** 31 - 1],
  messageMaxBytes: [LOG_SETTINGS.messageMaxBytes.min, LOG_SETTINGS.messageMaxBytes.max],
  segmentBytes: [LOG_SETTINGS.segmentBytes.min, LOG_SETTINGS.segmentBytes.max],
  logFlushIntervalMessages: [1, Number.MAX_SAFE_INTEGER],
  logFlushIntervalMs: [1, 2 ** 31 - 1],
  maxConnections: [1, 2 ** 31 - 1],
  maxConnectionsPerIp: [1, 2 ** 31 - 1],
  // A frame larger than the budget is still read, alone: the budget bounds what is held at once, not a frame.
  queuedMaxRequestBytes: [1024, Number.MAX_SAFE_INTEGER],
  dropAcks: [0, 2 ** 31 - 1],
  closeAfterAppend: [0, 2 ** 31 - 1],
  offsetsTopicNumPartitions: [1, 1000],
  groupInitialRebalanceDelayMs: [0, 2 ** 31 - 1],
  groupMinSessionTimeoutMs: [1, 2 ** 31 - 1],
  // At least group.min.session.timeout.ms, checked in resolveConfig.
  groupMaxSessionTimeoutMs: [1, 2 ** 31 - 1],
  groupMaxSize: [1, 2 ** 31 - 1],
  offsetsRetentionMinutes: [1, 2 ** 31 - 1],
  offsetsRetentionCheckIntervalMs: [1, 2 ** 31 - 1],
  logCleanerBackoffMs: [1, 2 ** 31 - 1],
  logRetentionCheckIntervalMs: [1, 2 ** 31 - 1],
} as const satisfies Record<string, readonly [number, number]>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function integer(name: keyof typeof BOUNDS, value: number, atLeast?: number): number {
  const [boundMin, max] = BOUNDS[name];
  const min = Math.max(boundMin, atLeast ?? boundMin);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}

export type BrokerOptions = Partial<Omit<BrokerConfig, 'logSettings' | 'explicit'>> & {
  readonly dataDir: string;
  /** Broker-level topic defaults by Kafka's name (`log.retention.ms`, or `log.retention.hours`…), as text. */
  readonly logSettings?: Readonly<Record<string, string>>;
};

/** Each option's Kafka name, for DescribeConfigs of the broker. */
export const KAFKA_NAMES: Readonly<Record<string, string>> = {
  dataDir: 'log.dirs',
  nodeId: 'node.id',
  autoCreateTopics: 'auto.create.topics.enable',
  numPartitions: 'num.partitions',
  socketRequestMaxBytes: 'socket.request.max.bytes',
  connectionsMaxIdleMs: 'connections.max.idle.ms',
  fetchMaxBytes: 'fetch.max.bytes',
  messageMaxBytes: 'message.max.bytes',
  segmentBytes: 'log.segment.bytes',
  logRetentionCheckIntervalMs: 'log.retention.check.interval.ms',
  logCleanerBackoffMs: 'log.cleaner.backoff.ms',
};

/** Kafka's coarser spellings of two time settings, and the factor to milliseconds (`ms` wins over them). */
const IN_MS: Readonly<Record<string, { readonly name: string; readonly factor: number }>> = {
  'log.retention.hours': { name: 'log.retention.ms', factor: 3_600_000 },
  'log.retention.minutes': { name: 'log.retention.ms', factor: 60_000 },
  'log.roll.hours': { name: 'log.roll.ms', factor: 3_600_000 },
};

/** Broker-level topic defaults, checked by the topic configs' own rules and named as Kafka names them. */
function resolveLogSettings(given: Readonly<Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  const coarse = Object.entries(given)
    .filter(([name]) => IN_MS[name] !== undefined)
    // Hours first, then minutes, then ms: the finer spelling wins, as in Kafka.
    .sort(([a], [b]) => (a.endsWith('hours') ? -1 : 0) - (b.endsWith('hours') ? -1 : 0));
  for (const [name, raw] of coarse) {
    const { name: target, factor } = IN_MS[name]!;
    const n = Number(raw.trim());
    if (!Number.isSafeInteger(n) || n < (target === 'log.retention.ms' ? -1 : 1)) {
      throw new ConfigError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
    }
    out.set(target, String(n === -1 ? -1 : n * factor));
  }
  for (const [name, raw] of Object.entries(given)) {
    if (IN_MS[name] !== undefined) continue;
    const def = TOPIC_CONFIGS.find((d) => d.brokerName === name);
    if (def === undefined) throw new ConfigError(`${name} is not a broker log setting klog knows`);
    const parsed = def.parse(raw);
    if (!parsed.ok) throw new ConfigError(`${name}: ${parsed.reason}`);
    out.set(name, parsed.value);
  }
  return out;
}

export function resolveConfig(options: BrokerOptions): BrokerConfig {
  const given = Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  ) as BrokerOptions;
  const c = { ...DEFAULT_CONFIG, advertisedPort: undefined, ...given };
  const logSettings = resolveLogSettings(options.logSettings ?? {});
  // message.max.bytes and log.segment.bytes have options of their own too: those win, and are the same values.
  if (given.messageMaxBytes !== undefined)
    logSettings.set('message.max.bytes', String(given.messageMaxBytes));
  if (given.segmentBytes !== undefined) logSettings.set('log.segment.bytes', String(given.segmentBytes));
  const messageMaxBytes = Number(logSettings.get('message.max.bytes') ?? c.messageMaxBytes);
  const segmentBytes = Number(logSettings.get('log.segment.bytes') ?? c.segmentBytes);
  const explicit = new Set([
    ...Object.keys(given).flatMap((k) => (KAFKA_NAMES[k] === undefined ? [] : [KAFKA_NAMES[k]!])),
    ...logSettings.keys(),
  ]);
  if (c.dataDir === '') throw new ConfigError('dataDir must not be empty');
  if (c.host === '') throw new ConfigError('host must not be empty');
  const advertisedHost = c.advertisedHost ?? c.host;
  if (advertisedHost === '0.0.0.0' || advertisedHost === '::') {
    throw new ConfigError(
      `clients cannot connect to ${advertisedHost}: give the address they should use (--advertised-host)`,
    );
  }
  return {
    dataDir: c.dataDir,
    host: c.host,
    port: integer('port', c.port),
    advertisedHost,
    advertisedPort: c.advertisedPort === undefined ? undefined : integer('advertisedPort', c.advertisedPort),
    nodeId: integer('nodeId', c.nodeId),
    autoCreateTopics: c.autoCreateTopics,
    numPartitions: integer('numPartitions', c.numPartitions),
    socketRequestMaxBytes: integer('socketRequestMaxBytes', c.socketRequestMaxBytes),
    connectionsMaxIdleMs: integer('connectionsMaxIdleMs', c.connectionsMaxIdleMs),
    maxBufferedResponseBytes: integer('maxBufferedResponseBytes', c.maxBufferedResponseBytes),
    fetchMaxBytes: integer('fetchMaxBytes', c.fetchMaxBytes),
    messageMaxBytes: integer('messageMaxBytes', messageMaxBytes),
    segmentBytes: integer('segmentBytes', segmentBytes),
    logSettings,
    logRetentionCheckIntervalMs: integer('logRetentionCheckIntervalMs', c.logRetentionCheckIntervalMs),
    explicit,
    dropAcks: integer('dropAcks', c.dropAcks),
    closeAfterAppend: integer('closeAfterAppend', c.closeAfterAppend),
    logFlushIntervalMessages:
      c.logFlushIntervalMessages === undefined
        ? undefined
        : integer('logFlushIntervalMessages', c.logFlushIntervalMessages),
    logFlushIntervalMs:
      c.logFlushIntervalMs === undefined ? undefined : integer('logFlushIntervalMs', c.logFlushIntervalMs),
    maxConnections: integer('maxConnections', c.maxConnections),
    maxConnectionsPerIp: integer('maxConnectionsPerIp', c.maxConnectionsPerIp),
    queuedMaxRequestBytes: integer('queuedMaxRequestBytes', c.queuedMaxRequestBytes),
    offsetsTopicNumPartitions: integer('offsetsTopicNumPartitions', c.offsetsTopicNumPartitions),
    groupInitialRebalanceDelayMs: integer('groupInitialRebalanceDelayMs', c.groupInitialRebalanceDelayMs),
    groupMinSessionTimeoutMs: integer('groupMinSessionTimeoutMs', c.groupMinSessionTimeoutMs),
    groupMaxSessionTimeoutMs: integer(
      'groupMaxSessionTimeoutMs',
      c.groupMaxSessionTimeoutMs,
      c.groupMinSessionTimeoutMs,
    ),
    groupMaxSize: integer('groupMaxSize', c.groupMaxSize),
    offsetsRetentionMinutes: integer('offsetsRetentionMinutes', c.offsetsRetentionMinutes),
    offsetsRetentionCheckIntervalMs: integer(
      'offsetsRetentionCheckIntervalMs',
      c.offsetsRetentionCheckIntervalMs,
    ),
    logCleanerBackoffMs: integer('logCleanerBackoffMs', c.logCleanerBackoffMs),
  };
}
