import { DEFAULT_MAX_REQUEST_BYTES } from '@klog/protocol';
import { type ConfigTypeName, flagOfKey, INT_MAX, LONG_MAX, type Validator } from './config-def.js';

/**
 * Every broker setting `klog serve` takes, one row each, as Kafka's `KafkaConfig` defines its own with
 * `ConfigDef.define(name, type, default, validator, importance, doc)`. From these rows come `klog serve`'s
 * options and their help (defaults included), the keys `--config server.properties` reads, `resolveConfig`'s
 * checks and defaults, and DescribeConfigs of the broker. A setting is added by adding a row (and using it).
 *
 * The broker-level defaults of topic configs (`log.retention.ms`, `message.max.bytes`, `log.segment.bytes`…)
 * are not here: each lives on its topic config's row in `topic-config.ts`.
 */

/** A value a broker setting holds once checked. */
export type SettingValue = number | boolean | string;

export interface BrokerConfigDef {
  /**
   * Kafka's name (`num.partitions`), or null for a setting of klog's own (the address to bind, the teaching
   * faults): those have a flag only, and DescribeConfigs does not list them.
   */
  readonly name: string | null;
  /** Other Kafka names a server.properties may give it by (`broker.id` for `node.id`, `log.dir` for `log.dirs`). */
  readonly synonyms?: readonly string[];
  /** The `BrokerConfig` field (`numPartitions`); the flag is its kebab case (`--num-partitions`). */
  readonly key: string;
  /** `klog serve`'s flag when not the key's kebab case; null: no flag of its own (`--flush` sets it). */
  readonly flag?: string | null;
  /** Kafka's `ConfigDef.Type`, for DescribeConfigs. */
  readonly type: ConfigTypeName;
  readonly validator: Validator;
  /** The value when not given; undefined: none (`defaultDoc` says what happens then). */
  readonly defaultValue: SettingValue | undefined;
  /** How help says the default when it is not a value (`the port bound`). */
  readonly defaultDoc?: string;
  /** The value is a size in bytes: help prints its default as one (`1 MiB`). */
  readonly bytes?: boolean;
  /** The smallest value is another setting's value (Kafka's `require(max >= min)`), by key. */
  readonly atLeastKey?: string;
  /** One line for `klog serve --help` (the row adds the Kafka name, bounds and default). */
  readonly doc: string;
}

/** `klog serve`'s flag for a broker setting, or null when it has none of its own. */
export function brokerConfigFlag(def: BrokerConfigDef): string | null {
  return def.flag === undefined ? flagOfKey(def.key) : def.flag;
}

const range = (min: number, max: number) => ({ kind: 'range', min, max }) as const;

/**
 * The rows. Bounds are Kafka's (`atLeast(n)` up to the type's maximum: 2^31−1 for an INT, 2^53−1 for a LONG
 * here) unless a comment says why klog's are narrower.
 */
export const BROKER_CONFIGS = [
  {
    name: 'log.dirs',
    synonyms: ['log.dir'],
    key: 'dataDir',
    type: 'STRING',
    validator: { kind: 'path' },
    defaultValue: 'klog-data',
    doc: 'where topics are kept (Kafka segment files); klog keeps one directory',
  },
  {
    name: null,
    key: 'host',
    type: 'STRING',
    validator: { kind: 'host' },
    defaultValue: '127.0.0.1',
    doc: 'address to listen on',
  },
  {
    name: null,
    key: 'port',
    type: 'INT',
    validator: range(0, 65535),
    defaultValue: 9092,
    doc: 'port to listen on (0: any free port)',
  },
  {
    name: null,
    key: 'advertisedHost',
    type: 'STRING',
    validator: { kind: 'host' },
    defaultValue: undefined,
    defaultDoc: '--host',
    doc: 'host clients are told to connect to (Metadata)',
  },
  {
    name: null,
    key: 'advertisedPort',
    type: 'INT',
    validator: range(1, 65535),
    defaultValue: undefined,
    defaultDoc: 'the port bound',
    doc: 'port clients are told to connect to',
  },
  {
    // Kafka's node.id has no default (−1: unset); a one-node klog is node 0.
    name: 'node.id',
    synonyms: ['broker.id'],
    key: 'nodeId',
    type: 'INT',
    validator: range(0, INT_MAX),
    defaultValue: 0,
    doc: "this broker's node id",
  },
  {
    name: 'auto.create.topics.enable',
    key: 'autoCreateTopics',
    type: 'BOOLEAN',
    validator: { kind: 'boolean' },
    defaultValue: true,
    doc: 'create a topic a client asks Metadata for (--no-auto-create-topics: answer UNKNOWN_TOPIC_OR_PARTITION)',
  },
  {
    // klog's own ceiling: a topic's partitions are all opened at start.
    name: 'num.partitions',
    key: 'numPartitions',
    type: 'INT',
    validator: range(1, 100_000),
    defaultValue: 1,
    doc: 'partitions of an auto-created topic, or of a CreateTopics asking for -1',
  },
  {
    // At least a request header's worth (Kafka: atLeast(1)).
    name: 'socket.request.max.bytes',
    key: 'socketRequestMaxBytes',
    type: 'INT',
    validator: range(64, INT_MAX),
    defaultValue: DEFAULT_MAX_REQUEST_BYTES,
    bytes: true,
    doc: 'largest request accepted: a larger frame closes its connection',
  },
  {
    // Kafka has no bound; 0 would close every connection at once.
    name: 'connections.max.idle.ms',
    key: 'connectionsMaxIdleMs',
    type: 'LONG',
    validator: range(1, INT_MAX),
    defaultValue: 600_000,
    doc: 'close a connection idle this long',
  },
  {
    name: null,
    key: 'maxBufferedResponseBytes',
    type: 'INT',
    validator: range(0, INT_MAX),
    defaultValue: 1024 * 1024,
    bytes: true,
    doc: 'bytes of responses one connection may have unsent before its requests are no longer read',
  },
  {
    name: 'fetch.max.bytes',
    key: 'fetchMaxBytes',
    type: 'INT',
    validator: range(1024, INT_MAX),
    defaultValue: 55 * 1024 * 1024,
    bytes: true,
    doc: 'the most a Fetch response carries, whatever the client asks',
  },
  {
    name: 'log.flush.interval.messages',
    key: 'logFlushIntervalMessages',
    flag: null,
    type: 'LONG',
    validator: range(1, LONG_MAX),
    defaultValue: undefined,
    defaultDoc: 'never on a count',
    doc: 'fsync a partition once this many records were appended since its last fsync (--flush messages=N)',
  },
  {
    // Kafka has no bound; 0 would fsync without pause.
    name: 'log.flush.interval.ms',
    key: 'logFlushIntervalMs',
    flag: null,
    type: 'LONG',
    validator: range(1, INT_MAX),
    defaultValue: undefined,
    defaultDoc: 'never on a timer',
    doc: 'fsync every partition with unflushed records this often (--flush ms=N)',
  },
  {
    // Kafka's default is Integer.MAX_VALUE (and atLeast(0)): refusing at a count, with a log line, beats
    // EMFILE with none.
    name: 'max.connections',
    key: 'maxConnections',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 10_000,
    doc: 'connections at most: past it a connection is closed as it is accepted',
  },
  {
    name: 'max.connections.per.ip',
    key: 'maxConnectionsPerIp',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: INT_MAX,
    doc: 'connections at most from one client address',
  },
  {
    // Kafka's default is -1 (unbounded); 256 MiB holds two 100 MiB requests at once (and as much of
    // responses). A frame larger than the budget is still read, alone: it bounds what is held at once.
    name: 'queued.max.request.bytes',
    key: 'queuedMaxRequestBytes',
    type: 'LONG',
    validator: range(1024, LONG_MAX),
    defaultValue: 256 * 1024 * 1024,
    bytes: true,
    doc: 'bytes of requests and responses held at most over all connections; past it no socket is read',
  },
  {
    name: 'log.retention.check.interval.ms',
    key: 'logRetentionCheckIntervalMs',
    type: 'LONG',
    validator: range(1, INT_MAX),
    defaultValue: 300_000,
    doc: 'how often retention looks for segments to delete',
  },
  {
    // Kafka: atLeast(0); 0 would spin the cleaner's timer.
    name: 'log.cleaner.backoff.ms',
    key: 'logCleanerBackoffMs',
    type: 'LONG',
    validator: range(1, INT_MAX),
    defaultValue: 15_000,
    doc: 'how often the cleaner looks for compacted topics to clean',
  },
  {
    name: null,
    key: 'dropAcks',
    type: 'INT',
    validator: range(0, INT_MAX),
    defaultValue: 0,
    doc: 'teaching fault: drop the responses of the first N Produce requests that write records',
  },
  {
    name: null,
    key: 'closeAfterAppend',
    type: 'INT',
    validator: range(0, INT_MAX),
    defaultValue: 0,
    doc: 'teaching fault: then close the connection of the next N such requests instead of answering',
  },
  {
    // klog's own ceiling (Kafka: atLeast(1)): every partition of __consumer_offsets is opened at start.
    name: 'offsets.topic.num.partitions',
    key: 'offsetsTopicNumPartitions',
    type: 'INT',
    validator: range(1, 1000),
    defaultValue: 50,
    doc: 'partitions of __consumer_offsets when it is created (fixed once it exists)',
  },
  {
    // Kafka 4.1 has no setting: its controller bounds the records one operation writes to
    // QuorumController.MAX_RECORDS_PER_USER_OP (10,000), and a partition is one record; klog counts partitions.
    name: 'max.partitions.per.request',
    key: 'maxPartitionsPerRequest',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 10_000,
    doc: 'partitions one CreateTopics, CreatePartitions or auto-creation may add: past it POLICY_VIOLATION',
  },
  {
    // KIP-578's name (never in Kafka, whose default would be unbounded): a 2-core machine holds the
    // 100,000-partition topic the start-up tests make, with __consumer_offsets and room to spare.
    name: 'max.broker.partitions',
    key: 'maxBrokerPartitions',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 120_000,
    doc: 'partitions this broker holds at most, every topic counted: a creation past it is POLICY_VIOLATION',
  },
  {
    // Kafka defines it as an INT with no validator; a negative delay means none.
    name: 'group.initial.rebalance.delay.ms',
    key: 'groupInitialRebalanceDelayMs',
    type: 'INT',
    validator: range(0, INT_MAX),
    defaultValue: 3000,
    doc: "an empty group's first rebalance waits this long for more members",
  },
  {
    // An INT with no validator in Kafka's GroupCoordinatorConfig; a timeout of 0 or less means nothing.
    name: 'group.min.session.timeout.ms',
    key: 'groupMinSessionTimeoutMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 6000,
    doc: 'shortest session timeout a group member may ask for',
  },
  {
    name: 'group.max.session.timeout.ms',
    key: 'groupMaxSessionTimeoutMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    atLeastKey: 'groupMinSessionTimeoutMs',
    defaultValue: 1_800_000,
    doc: 'longest session timeout a group member may ask for (at least the shortest)',
  },
  {
    // Kafka's default is Integer.MAX_VALUE.
    name: 'group.max.size',
    key: 'groupMaxSize',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 1000,
    doc: 'members of one group at most, pending ones included',
  },
  // The consumer group protocol's (KIP-848) group settings, Kafka's GroupCoordinatorConfig: the defaults and
  // bounds of a group's own consumer.session.timeout.ms and consumer.heartbeat.interval.ms (GROUP config
  // resources), which drive the coordinator's session and heartbeat timers of consumer groups.
  {
    name: 'group.consumer.session.timeout.ms',
    key: 'groupConsumerSessionTimeoutMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 45_000,
    doc: "a consumer-protocol group's session timeout unless the group sets its own",
  },
  {
    name: 'group.consumer.min.session.timeout.ms',
    key: 'groupConsumerMinSessionTimeoutMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 45_000,
    doc: 'shortest consumer.session.timeout.ms a group may be given',
  },
  {
    name: 'group.consumer.max.session.timeout.ms',
    key: 'groupConsumerMaxSessionTimeoutMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    atLeastKey: 'groupConsumerMinSessionTimeoutMs',
    defaultValue: 60_000,
    doc: 'longest consumer.session.timeout.ms a group may be given (at least the shortest)',
  },
  {
    name: 'group.consumer.heartbeat.interval.ms',
    key: 'groupConsumerHeartbeatIntervalMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 5000,
    doc: "a consumer-protocol group's heartbeat interval unless the group sets its own",
  },
  {
    name: 'group.consumer.min.heartbeat.interval.ms',
    key: 'groupConsumerMinHeartbeatIntervalMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 5000,
    doc: 'shortest consumer.heartbeat.interval.ms a group may be given',
  },
  {
    name: 'group.consumer.max.heartbeat.interval.ms',
    key: 'groupConsumerMaxHeartbeatIntervalMs',
    type: 'INT',
    validator: range(1, INT_MAX),
    atLeastKey: 'groupConsumerMinHeartbeatIntervalMs',
    defaultValue: 15_000,
    doc: 'longest consumer.heartbeat.interval.ms a group may be given (at least the shortest)',
  },
  {
    // Kafka's GroupCoordinatorConfig.CONSUMER_GROUP_ASSIGNORS_CONFIG: class names or the built-in names; klog
    // has only the two built in, the first is the default.
    name: 'group.consumer.assignors',
    key: 'groupConsumerAssignors',
    type: 'LIST',
    validator: { kind: 'listOf', values: ['uniform', 'range'] },
    defaultValue: 'uniform,range',
    doc: 'server-side assignors a consumer-protocol group may use, the first the default',
  },
  {
    // Kafka's default is Integer.MAX_VALUE; klog bounds it as group.max.size.
    name: 'group.consumer.max.size',
    key: 'groupConsumerMaxSize',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 1000,
    doc: 'members of one consumer-protocol group at most',
  },
  {
    name: 'group.consumer.migration.policy',
    key: 'groupConsumerMigrationPolicy',
    type: 'STRING',
    validator: { kind: 'oneOf', values: ['disabled', 'downgrade', 'upgrade', 'bidirectional'] },
    defaultValue: 'bidirectional',
    // Kafka's GroupMetadataManager converts an empty group either way under any policy; the policy governs
    // non-empty groups: online upgrade (a consumer-protocol member joins a classic group) and downgrade
    // (the last consumer-protocol member leaves a group of classic members).
    doc: 'which way a non-empty group may change protocol online',
  },
  {
    name: 'offsets.retention.minutes',
    key: 'offsetsRetentionMinutes',
    type: 'INT',
    validator: range(1, INT_MAX),
    defaultValue: 10_080,
    doc: 'how long committed offsets are kept: from when a group became empty, else from each commit (topics it does not subscribe to)',
  },
  {
    name: 'offsets.retention.check.interval.ms',
    key: 'offsetsRetentionCheckIntervalMs',
    type: 'LONG',
    validator: range(1, INT_MAX),
    defaultValue: 600_000,
    doc: 'how often expired committed offsets are looked for',
  },
] as const satisfies readonly BrokerConfigDef[];

type Row = (typeof BROKER_CONFIGS)[number];
type ValueOf<D extends Row> = D['validator'] extends { kind: 'range' }
  ? number
  : D['validator'] extends { kind: 'boolean' }
    ? boolean
    : string;

/** The settings the rows define, typed by their validators (undefined where a row has no default). */
export type BrokerSettings = {
  readonly [D in Row as D['key']]: D['defaultValue'] extends undefined ? ValueOf<D> | undefined : ValueOf<D>;
};
