import { type ConfigTypeName, INT_MAX, type Parsed, parseConfigValue, type Validator } from './config-def.js';

/**
 * A group's own configs (ConfigResource type GROUP, 32), as Kafka 4.1.0's `GroupConfig` defines them: the
 * settings of the consumer (KIP-848), share (KIP-932) and streams (KIP-1071) group protocols a group may
 * override. The two consumer rows set a consumer group's session timeout and heartbeat interval (Kafka's
 * `GroupConfigManager`, read by the coordinator's engine); the share and streams rows are checked, stored
 * and described, not acted on (klog has no share or streams groups).
 * Pure: the rows, the checks of `GroupConfig.validate` and the effective values; the broker stores them.
 */

/** The broker's bounds and defaults for a group's configs (Kafka's `GroupCoordinatorConfig`, `ShareGroupConfig`). */
export type GroupConfigBounds = Readonly<Record<string, { readonly min: number; readonly max: number }>>;

/** One group config (Kafka's `ConfigDef.ConfigKey` in `GroupConfig`). */
export interface GroupConfigDef {
  readonly name: string;
  readonly type: ConfigTypeName;
  /** Kafka's default, when the broker gives none of its own (`brokerDefaults`). */
  readonly defaultValue: string;
  readonly validator: Validator;
  /**
   * The broker setting whose value bounds this one from below and above (Kafka's `GroupConfig.validateValues`),
   * named as DescribeConfigs of the broker names them; their values come in `GroupConfigBounds`.
   */
  readonly bounds?: { readonly min: string; readonly max: string };
  /** The broker setting that is this config's default (`GroupCoordinatorConfig.extractGroupConfigMap`). */
  readonly brokerName?: string;
  readonly doc: string;
}

const storedOnly = (doc: string) =>
  `${doc} (klog stores this config but does not act on it: it has no share or streams groups)`;

const atLeast = (min: number): Validator => ({ kind: 'range', min, max: INT_MAX });

/** Kafka 4.1.0's group configs, by name. */
export const GROUP_CONFIGS: readonly GroupConfigDef[] = [
  {
    name: 'consumer.heartbeat.interval.ms',
    type: 'INT',
    defaultValue: '5000',
    validator: atLeast(1),
    bounds: {
      min: 'group.consumer.min.heartbeat.interval.ms',
      max: 'group.consumer.max.heartbeat.interval.ms',
    },
    brokerName: 'group.consumer.heartbeat.interval.ms',
    doc: 'how often members of a consumer-protocol group are told to heartbeat',
  },
  {
    name: 'consumer.session.timeout.ms',
    type: 'INT',
    defaultValue: '45000',
    validator: atLeast(1),
    bounds: {
      min: 'group.consumer.min.session.timeout.ms',
      max: 'group.consumer.max.session.timeout.ms',
    },
    brokerName: 'group.consumer.session.timeout.ms',
    doc: 'how long a consumer-protocol member may go without a heartbeat before it is removed',
  },
  {
    name: 'share.auto.offset.reset',
    type: 'STRING',
    defaultValue: 'latest',
    validator: { kind: 'shareOffsetReset' },
    doc: storedOnly(
      'where a share group starts reading a partition: latest, earliest, or by_duration:<ISO-8601 duration> back',
    ),
  },
  {
    name: 'share.heartbeat.interval.ms',
    type: 'INT',
    defaultValue: '5000',
    validator: atLeast(1),
    bounds: { min: 'group.share.min.heartbeat.interval.ms', max: 'group.share.max.heartbeat.interval.ms' },
    doc: storedOnly('how often members of a share group are told to heartbeat'),
  },
  {
    name: 'share.isolation.level',
    type: 'STRING',
    defaultValue: 'read_uncommitted',
    validator: { kind: 'oneOf', values: ['read_committed', 'read_uncommitted'] },
    doc: storedOnly('whether a share group delivers transactional records before they are committed'),
  },
  {
    name: 'share.record.lock.duration.ms',
    type: 'INT',
    defaultValue: '30000',
    validator: atLeast(1000),
    bounds: {
      min: 'group.share.min.record.lock.duration.ms',
      max: 'group.share.max.record.lock.duration.ms',
    },
    doc: storedOnly('how long a share group member holds a record it was given before it is offered again'),
  },
  {
    name: 'share.session.timeout.ms',
    type: 'INT',
    defaultValue: '45000',
    validator: atLeast(1),
    bounds: { min: 'group.share.min.session.timeout.ms', max: 'group.share.max.session.timeout.ms' },
    doc: storedOnly('how long a share group member may go without a heartbeat before it is removed'),
  },
  {
    name: 'streams.heartbeat.interval.ms',
    type: 'INT',
    defaultValue: '5000',
    validator: atLeast(1),
    bounds: {
      min: 'group.streams.min.heartbeat.interval.ms',
      max: 'group.streams.max.heartbeat.interval.ms',
    },
    doc: storedOnly('how often members of a streams group are told to heartbeat'),
  },
  {
    name: 'streams.num.standby.replicas',
    type: 'INT',
    defaultValue: '0',
    validator: atLeast(0),
    bounds: { min: 'group.streams.min.standby.replicas', max: 'group.streams.max.standby.replicas' },
    doc: storedOnly('standby copies of each stateful task a streams group keeps'),
  },
  {
    name: 'streams.session.timeout.ms',
    type: 'INT',
    defaultValue: '45000',
    validator: atLeast(1),
    bounds: { min: 'group.streams.min.session.timeout.ms', max: 'group.streams.max.session.timeout.ms' },
    doc: storedOnly('how long a streams group member may go without a heartbeat before it is removed'),
  },
];

/**
 * The bounds of the share and streams protocols' group configs: Kafka's defaults for its broker settings
 * (`GroupCoordinatorConfig`, `ShareGroupConfig`). klog has neither protocol, so it has no settings for them;
 * the consumer protocol's bounds are broker settings (`group.consumer.*`) and come from `BrokerConfig`.
 */
export const FIXED_GROUP_BOUNDS: Readonly<Record<string, number>> = {
  'group.share.min.heartbeat.interval.ms': 5000,
  'group.share.max.heartbeat.interval.ms': 15_000,
  'group.share.min.session.timeout.ms': 45_000,
  'group.share.max.session.timeout.ms': 60_000,
  'group.share.min.record.lock.duration.ms': 15_000,
  'group.share.max.record.lock.duration.ms': 60_000,
  'group.streams.min.heartbeat.interval.ms': 5000,
  'group.streams.max.heartbeat.interval.ms': 15_000,
  'group.streams.min.session.timeout.ms': 45_000,
  'group.streams.max.session.timeout.ms': 60_000,
  // Kafka has only a maximum (group.streams.max.standby.replicas); none is fewer than 0.
  'group.streams.min.standby.replicas': 0,
  'group.streams.max.standby.replicas': 2,
};

const BY_NAME = new Map(GROUP_CONFIGS.map((d) => [d.name, d]));

export function groupConfigDef(name: string): GroupConfigDef | undefined {
  return BY_NAME.get(name);
}

const bad = (reason: string): Parsed => ({ ok: false, reason });

/** One group config's value, checked by its row (`ConfigDef.parse`): normalised, or why not. */
export function checkGroupConfig(name: string, value: string | null): Parsed {
  const def = BY_NAME.get(name);
  if (def === undefined) return bad(`Unknown group config name: ${name}`);
  if (value === null) return bad(`Null value not supported for group configs: ${name}`);
  const parsed = parseConfigValue(def.validator, value);
  if (!parsed.ok) return bad(`Invalid value ${value} for configuration ${name}: ${parsed.reason}`);
  return parsed;
}

/**
 * A group's whole set of own configs checked as Kafka's `GroupConfig.validate` checks it: each name and value,
 * then each value (its own, else Kafka's default) within the broker's bounds, and each session timeout above
 * its heartbeat interval. Returns the normalised set, or why it is refused (INVALID_CONFIG).
 */
export function validateGroupConfigs(
  own: ReadonlyMap<string, string | null>,
  bounds: Readonly<Record<string, number>>,
):
  | { readonly ok: true; readonly value: Map<string, string> }
  | { readonly ok: false; readonly reason: string } {
  const checked = new Map<string, string>();
  for (const [name, value] of own) {
    const c = checkGroupConfig(name, value);
    if (!c.ok) return c;
    checked.set(name, c.value);
  }
  const numberOf = (d: GroupConfigDef) => Number(checked.get(d.name) ?? d.defaultValue);
  for (const d of GROUP_CONFIGS) {
    if (d.bounds === undefined) continue;
    const v = numberOf(d);
    const min = bounds[d.bounds.min];
    const max = bounds[d.bounds.max];
    if (min !== undefined && v < min)
      return { ok: false, reason: `${d.name} must be greater than or equal to ${d.bounds.min}` };
    if (max !== undefined && v > max)
      return { ok: false, reason: `${d.name} must be less than or equal to ${d.bounds.max}` };
  }
  for (const kind of ['consumer', 'share', 'streams']) {
    const session = numberOf(BY_NAME.get(`${kind}.session.timeout.ms`)!);
    const heartbeat = numberOf(BY_NAME.get(`${kind}.heartbeat.interval.ms`)!);
    if (session <= heartbeat)
      return {
        ok: false,
        reason: `${kind}.session.timeout.ms must be greater than ${kind}.heartbeat.interval.ms`,
      };
  }
  return { ok: true, value: checked };
}

/** The broker settings a group's configs read: its `group.consumer.*` values, by Kafka's names. */
export interface GroupBrokerSettings {
  readonly groupConsumerSessionTimeoutMs: number;
  readonly groupConsumerMinSessionTimeoutMs: number;
  readonly groupConsumerMaxSessionTimeoutMs: number;
  readonly groupConsumerHeartbeatIntervalMs: number;
  readonly groupConsumerMinHeartbeatIntervalMs: number;
  readonly groupConsumerMaxHeartbeatIntervalMs: number;
}

/** The bounds `validateGroupConfigs` checks against: the broker's `group.consumer.*`, Kafka's for the rest. */
export function groupConfigBounds(settings: GroupBrokerSettings): Readonly<Record<string, number>> {
  return {
    ...FIXED_GROUP_BOUNDS,
    'group.consumer.min.session.timeout.ms': settings.groupConsumerMinSessionTimeoutMs,
    'group.consumer.max.session.timeout.ms': settings.groupConsumerMaxSessionTimeoutMs,
    'group.consumer.min.heartbeat.interval.ms': settings.groupConsumerMinHeartbeatIntervalMs,
    'group.consumer.max.heartbeat.interval.ms': settings.groupConsumerMaxHeartbeatIntervalMs,
  };
}

/** The broker's defaults for group configs, by the broker setting's name (`brokerName` of a row). */
export function groupConfigDefaults(settings: GroupBrokerSettings): ReadonlyMap<string, string> {
  return new Map([
    ['group.consumer.session.timeout.ms', String(settings.groupConsumerSessionTimeoutMs)],
    ['group.consumer.heartbeat.interval.ms', String(settings.groupConsumerHeartbeatIntervalMs)],
  ]);
}

/**
 * A group's own `consumer.session.timeout.ms` and `consumer.heartbeat.interval.ms`, where it set them (Kafka's
 * `GroupConfigManager.groupConfig`, read by `GroupMetadataManager.consumerGroupSessionTimeoutMs` and its
 * sibling): the coordinator falls back to the broker's `group.consumer.*` for the others.
 */
export function consumerGroupOverrides(stored: ReadonlyMap<string, string>): {
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
} {
  const session = stored.get('consumer.session.timeout.ms');
  const heartbeat = stored.get('consumer.heartbeat.interval.ms');
  return {
    ...(session === undefined ? {} : { sessionTimeoutMs: Number(session) }),
    ...(heartbeat === undefined ? {} : { heartbeatIntervalMs: Number(heartbeat) }),
  };
}
