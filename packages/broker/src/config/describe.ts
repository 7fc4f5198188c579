import type { DescribeConfigsResponse } from '@klog/protocol';
import { type BrokerConfig, CONFIG_TABLES, type ConfigTables } from './config.js';
import { CONFIG_TYPE, type ConfigTypeName } from './config-def.js';
import { DYNAMIC_BROKER_CONFIGS } from './dynamic-broker-config.js';
import { GROUP_CONFIGS } from './group-config.js';
import { STORED_TOPIC_CONFIGS, TOPIC_CONFIGS, type TopicConfigDef } from './topic-config.js';

type Entry = DescribeConfigsResponse.DescribeConfigsResourceResult;

/** Kafka's `ConfigResource.Type`. */
export const RESOURCE_TYPE = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, GROUP: 32 } as const;

/** Kafka's `DescribeConfigsResponse.ConfigSource`: where a value comes from. */
export const CONFIG_SOURCE = {
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  GROUP_CONFIG: 8,
} as const;

interface Layer {
  readonly name: string;
  readonly value: string | null;
  readonly source: number;
}

/** How DescribeConfigs shows one config from its layers, most specific first (Kafka's ConfigHelper). */
function entry(
  version: number,
  layers: readonly Layer[],
  type: ConfigTypeName,
  readOnly: boolean,
  synonyms: boolean,
  documentation: string | null,
): Entry {
  const top = layers[0]!;
  return {
    name: top.name,
    value: top.value,
    readOnly,
    // Version 0 has no ConfigSource: it says only whether the value is the default.
    isDefault: version === 0 && top.source === CONFIG_SOURCE.DEFAULT_CONFIG,
    configSource: top.source,
    isSensitive: false,
    synonyms: synonyms ? layers.map((l) => ({ name: l.name, value: l.value, source: l.source })) : [],
    configType: CONFIG_TYPE[type],
    documentation,
  };
}

/**
 * A topic's configs as Kafka's broker describes them: the topic's own value (TOPIC_CONFIG), else the broker
 * setting it defaults to (STATIC_BROKER_CONFIG when `klog serve` was given it), else Kafka's default
 * (DEFAULT_CONFIG, named by the broker setting); synonyms list those layers, most specific first. The configs
 * klog only stores (`STORED_TOPIC_CONFIGS`) are listed among them by name, as Kafka lists all of LogConfig's.
 */
export function describeTopicConfigs(
  version: number,
  own: ReadonlyMap<string, string>,
  brokerDefaults: ReadonlyMap<string, string>,
  keys: readonly string[] | null,
  synonyms: boolean,
  topicConfigs: readonly TopicConfigDef[] = TOPIC_CONFIGS,
  documentation = false,
): Entry[] {
  return [...topicConfigs, ...STORED_TOPIC_CONFIGS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .filter((d) => keys === null || keys.includes(d.name))
    .map((d) => {
      const layers: Layer[] = [];
      const mine = own.get(d.name);
      if (mine !== undefined) layers.push({ name: d.name, value: mine, source: CONFIG_SOURCE.TOPIC_CONFIG });
      const broker = brokerDefaults.get(d.brokerName);
      if (broker !== undefined)
        layers.push({ name: d.brokerName, value: broker, source: CONFIG_SOURCE.STATIC_BROKER_CONFIG });
      layers.push({ name: d.brokerName, value: d.defaultValue, source: CONFIG_SOURCE.DEFAULT_CONFIG });
      const shown = entry(version, layers, d.type, false, synonyms, documentation ? d.doc : null);
      return { ...shown, name: d.name };
    });
}

/**
 * The broker's configs: read-only (klog takes them at start, from flags or `--config`), each
 * STATIC_BROKER_CONFIG when given, DEFAULT_CONFIG otherwise; and the dynamic ones klog only stores
 * (`DYNAMIC_BROKER_CONFIGS`), writable, DYNAMIC_BROKER_CONFIG once set.
 */
export function describeBrokerConfigs(
  version: number,
  config: BrokerConfig,
  keys: readonly string[] | null,
  synonyms: boolean,
  tables: ConfigTables = CONFIG_TABLES,
  documentation = false,
  dynamic: ReadonlyMap<string, string> = new Map(),
): Entry[] {
  const text = (v: unknown) => (v === undefined ? null : String(v));
  const values = config as unknown as Readonly<Record<string, unknown>>;
  const all: {
    name: string;
    type: ConfigTypeName;
    value: string | null;
    defaultValue: string | null;
    doc: string;
    dynamic?: true;
  }[] = [
    // The dynamic configs klog stores (DYNAMIC_BROKER_CONFIGS): writable, their value set at run time or Kafka's.
    ...DYNAMIC_BROKER_CONFIGS.map((d) => ({
      name: d.name,
      type: d.type,
      value: dynamic.get(d.name) ?? d.defaultValue,
      defaultValue: d.defaultValue,
      doc: d.doc,
      dynamic: true as const,
    })),
    // The topic configs' broker-level defaults, from their rows…
    ...tables.topic.map((d) => ({
      name: d.brokerName,
      type: d.type,
      value: config.logSettings.get(d.brokerName) ?? d.defaultValue,
      defaultValue: d.defaultValue,
      doc: d.doc,
    })),
    // …and every broker setting with a Kafka name (klog's own, such as the teaching faults, are not Kafka's).
    ...tables.broker.flatMap((d) =>
      d.name === null
        ? []
        : [
            {
              name: d.name,
              type: d.type,
              value: text(values[d.key]),
              defaultValue: text(d.defaultValue),
              doc: d.doc,
            },
          ],
    ),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return all
    .filter((s) => keys === null || keys.includes(s.name))
    .map((s) => {
      if (s.dynamic) {
        const set = dynamic.has(s.name);
        const layers: Layer[] = [
          ...(set ? [{ name: s.name, value: s.value, source: CONFIG_SOURCE.DYNAMIC_BROKER_CONFIG }] : []),
          { name: s.name, value: s.defaultValue, source: CONFIG_SOURCE.DEFAULT_CONFIG },
        ];
        return entry(version, layers, s.type, false, synonyms, documentation ? s.doc : null);
      }
      const given = config.explicit.has(s.name);
      const layers: Layer[] = given
        ? [
            { name: s.name, value: s.value, source: CONFIG_SOURCE.STATIC_BROKER_CONFIG },
            { name: s.name, value: s.defaultValue, source: CONFIG_SOURCE.DEFAULT_CONFIG },
          ]
        : [{ name: s.name, value: s.value, source: CONFIG_SOURCE.DEFAULT_CONFIG }];
      return entry(version, layers, s.type, true, synonyms, documentation ? s.doc : null);
    });
}

/**
 * A group's configs as Kafka's `ConfigHelper.createGroupConfigEntry` describes them: the group's own value
 * (GROUP_CONFIG, its one synonym), else the broker's `group.consumer.*` default or Kafka's (DEFAULT_CONFIG,
 * no synonyms: no broker setting has the group config's name). Writable, so not read-only.
 */
export function describeGroupConfigs(
  version: number,
  own: ReadonlyMap<string, string>,
  brokerDefaults: ReadonlyMap<string, string>,
  keys: readonly string[] | null,
  synonyms: boolean,
  documentation = false,
): Entry[] {
  return GROUP_CONFIGS.filter((d) => keys === null || keys.includes(d.name)).map((d) => {
    const mine = own.get(d.name);
    const shown =
      mine !== undefined
        ? entry(
            version,
            [{ name: d.name, value: mine, source: CONFIG_SOURCE.GROUP_CONFIG }],
            d.type,
            false,
            synonyms,
            documentation ? d.doc : null,
          )
        : entry(
            version,
            [
              {
                name: d.name,
                value:
                  (d.brokerName === undefined ? undefined : brokerDefaults.get(d.brokerName)) ??
                  d.defaultValue,
                source: CONFIG_SOURCE.DEFAULT_CONFIG,
              },
            ],
            d.type,
            false,
            false,
            documentation ? d.doc : null,
          );
    return shown;
  });
}
