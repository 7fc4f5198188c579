import { describe, expect, it } from 'vitest';
import { BROKER_CONFIGS, type BrokerConfigDef } from '../../src/config/broker-configs.js';
import { CONFIG_TABLES, ConfigError, type ConfigTables, resolveConfig } from '../../src/config/config.js';
import { parseConfigValue } from '../../src/config/config-def.js';
import { CONFIG_SOURCE, describeBrokerConfigs, describeTopicConfigs } from '../../src/config/describe.js';
import { DYNAMIC_BROKER_CONFIGS } from '../../src/config/dynamic-broker-config.js';
import {
  ALL_TOPIC_CONFIGS,
  STORED_TOPIC_CONFIGS,
  TOPIC_CONFIGS,
  type TopicConfigDef,
} from '../../src/config/topic-config.js';

/**
 * The settings tables (Kafka's ConfigDef shape: one row per setting) are the one place a setting is written:
 * resolveConfig's defaults and checks and DescribeConfigs come from the rows. The CLI's half (flags, help,
 * server.properties) is in packages/cli/test/serve/serve-settings.test.ts.
 */

const EXTRA_BROKER: BrokerConfigDef = {
  name: 'klog.test.extra.ms',
  key: 'extraMs',
  type: 'LONG',
  validator: { kind: 'range', min: 1, max: 1000 },
  defaultValue: 5,
  doc: 'a setting added for this test',
};
const EXTRA_TOPIC: TopicConfigDef = {
  name: 'extra.topic.ms',
  brokerName: 'log.extra.topic.ms',
  type: 'LONG',
  defaultValue: '11',
  validator: { kind: 'range', min: 0, max: 100 },
  doc: 'a topic config added for this test',
};
const EXTENDED: ConfigTables = {
  broker: [...BROKER_CONFIGS, EXTRA_BROKER],
  topic: [...TOPIC_CONFIGS, EXTRA_TOPIC],
};

describe('adding a setting is one row', () => {
  it('a broker row: resolveConfig defaults and checks it; DescribeConfigs of the broker lists it, given or not', () => {
    const defaulted = resolveConfig({ dataDir: '/x' }, EXTENDED) as unknown as Record<string, unknown>;
    expect(defaulted.extraMs).toBe(5);
    const given = resolveConfig(
      { dataDir: '/x', extraMs: 7, logSettings: { 'log.extra.topic.ms': '9' } } as never,
      EXTENDED,
    );
    expect((given as unknown as Record<string, unknown>).extraMs).toBe(7);
    // log.dirs is always given: the broker has no directory of its own.
    expect(given.explicit).toEqual(new Set(['log.dirs', 'klog.test.extra.ms', 'log.extra.topic.ms']));
    expect(() => resolveConfig({ dataDir: '/x', extraMs: 1001 } as never, EXTENDED)).toThrow(
      new ConfigError('extraMs must be a whole number from 1 to 1000, got 1001'),
    );
    expect(() =>
      resolveConfig({ dataDir: '/x', logSettings: { 'log.extra.topic.ms': '101' } }, EXTENDED),
    ).toThrow('log.extra.topic.ms: must be from 0 to 100, got 101');

    const described = describeBrokerConfigs(4, given, null, true, EXTENDED);
    expect(described.find((e) => e.name === 'klog.test.extra.ms')).toMatchObject({
      value: '7',
      readOnly: true,
      configSource: CONFIG_SOURCE.STATIC_BROKER_CONFIG,
      configType: 5,
      synonyms: [
        { name: 'klog.test.extra.ms', value: '7', source: CONFIG_SOURCE.STATIC_BROKER_CONFIG },
        { name: 'klog.test.extra.ms', value: '5', source: CONFIG_SOURCE.DEFAULT_CONFIG },
      ],
    });
    expect(described.find((e) => e.name === 'log.extra.topic.ms')).toMatchObject({
      value: '9',
      configSource: CONFIG_SOURCE.STATIC_BROKER_CONFIG,
    });
    const unset = describeBrokerConfigs(4, defaulted as never, ['klog.test.extra.ms'], false, EXTENDED);
    expect(unset).toEqual([
      expect.objectContaining({
        name: 'klog.test.extra.ms',
        value: '5',
        configSource: CONFIG_SOURCE.DEFAULT_CONFIG,
      }),
    ]);
    // Its doc is DescribeConfigs' documentation, when asked for (v3+).
    expect(
      describeBrokerConfigs(4, given, ['klog.test.extra.ms'], false, EXTENDED, true)[0]!.documentation,
    ).toBe('a setting added for this test');
    expect(described.find((e) => e.name === 'klog.test.extra.ms')!.documentation).toBeNull();
    // The real tables do not have it.
    expect(describeBrokerConfigs(4, resolveConfig({ dataDir: '/x' }), ['klog.test.extra.ms'], false)).toEqual(
      [],
    );
  });

  it("a topic row: DescribeConfigs of a topic lists it, over the broker's default, over Kafka's", () => {
    const [own, broker, kafka] = [
      describeTopicConfigs(
        4,
        new Map([['extra.topic.ms', '3']]),
        new Map(),
        ['extra.topic.ms'],
        true,
        EXTENDED.topic,
      ),
      describeTopicConfigs(
        4,
        new Map(),
        new Map([['log.extra.topic.ms', '9']]),
        ['extra.topic.ms'],
        true,
        EXTENDED.topic,
      ),
      describeTopicConfigs(4, new Map(), new Map(), ['extra.topic.ms'], true, EXTENDED.topic),
    ];
    expect(own[0]).toMatchObject({
      name: 'extra.topic.ms',
      value: '3',
      configSource: CONFIG_SOURCE.TOPIC_CONFIG,
    });
    expect(broker[0]).toMatchObject({
      name: 'extra.topic.ms',
      value: '9',
      configSource: CONFIG_SOURCE.STATIC_BROKER_CONFIG,
      synonyms: [
        { name: 'log.extra.topic.ms', value: '9', source: CONFIG_SOURCE.STATIC_BROKER_CONFIG },
        { name: 'log.extra.topic.ms', value: '11', source: CONFIG_SOURCE.DEFAULT_CONFIG },
      ],
    });
    expect(kafka[0]).toMatchObject({ value: '11', configSource: CONFIG_SOURCE.DEFAULT_CONFIG });
  });
});

describe('the rows themselves', () => {
  it("every default is a value its own validator takes; names, keys and flags are each one row's", () => {
    for (const def of CONFIG_TABLES.broker) {
      if (def.defaultValue === undefined) continue;
      expect(parseConfigValue(def.validator, String(def.defaultValue)), def.key).toMatchObject({ ok: true });
    }
    for (const def of CONFIG_TABLES.topic) {
      expect(parseConfigValue(def.validator, def.defaultValue), def.name).toMatchObject({ ok: true });
    }
    const names = [
      ...CONFIG_TABLES.broker.flatMap((d) => (d.name === null ? [] : [d.name, ...(d.synonyms ?? [])])),
      ...CONFIG_TABLES.topic.flatMap((d) => [d.brokerName, ...(d.brokerSynonyms ?? []).map((c) => c.name)]),
    ];
    expect(new Set(names).size).toBe(names.length);
    const keys = CONFIG_TABLES.broker.map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("Kafka's bounds: fetch.max.bytes is at least 1024; group.min.session.timeout.ms is an INT, as high as the max allows", () => {
    expect(() => resolveConfig({ dataDir: '/x', fetchMaxBytes: 1000 })).toThrow(
      'fetchMaxBytes must be a whole number from 1024 to 2147483647, got 1000',
    );
    expect(
      resolveConfig({
        dataDir: '/x',
        groupMinSessionTimeoutMs: 2_000_000,
        groupMaxSessionTimeoutMs: 2 ** 31 - 1,
      }),
    ).toMatchObject({ groupMinSessionTimeoutMs: 2_000_000, groupMaxSessionTimeoutMs: 2 ** 31 - 1 });
    // Kafka's GroupCoordinatorConfig requires max >= min.
    expect(() => resolveConfig({ dataDir: '/x', groupMinSessionTimeoutMs: 2_000_000 })).toThrow(
      'groupMaxSessionTimeoutMs must be a whole number from 2000000 to 2147483647, got 1800000',
    );
  });

  it("Kafka 4.1.0's other topic configs: each a row with a default its validator takes, described with a topic's, not the broker's", () => {
    for (const def of STORED_TOPIC_CONFIGS) {
      expect(parseConfigValue(def.validator, def.defaultValue), def.name).toMatchObject({ ok: true });
      expect(def.doc, def.name).toMatch(/klog stores this config but does not act on it/);
    }
    expect(STORED_TOPIC_CONFIGS.map((d) => d.name)).toEqual(
      expect.arrayContaining(['file.delete.delay.ms', 'flush.messages', 'flush.ms', 'max.compaction.lag.ms']),
    );
    const names = ALL_TOPIC_CONFIGS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    // A topic is described with all of them, by name; the broker only with the defaults klog applies.
    expect(describeTopicConfigs(4, new Map(), new Map(), null, false).map((e) => e.name)).toEqual(
      [...names].sort(),
    );
    const broker = describeBrokerConfigs(4, resolveConfig({ dataDir: '/x' }), null, false).map((e) => e.name);
    expect(broker).not.toContain('log.segment.delete.delay.ms');
  });

  it('DescribeConfigs of the broker: every row with a Kafka name, every topic default and every stored dynamic config, sorted by name', () => {
    const names = describeBrokerConfigs(4, resolveConfig({ dataDir: '/x' }), null, false).map((e) => e.name);
    const expected = [
      ...CONFIG_TABLES.broker.flatMap((d) => (d.name === null ? [] : [d.name])),
      ...CONFIG_TABLES.topic.map((d) => d.brokerName),
      ...DYNAMIC_BROKER_CONFIGS.map((d) => d.name),
    ].sort();
    expect(names).toEqual(expected);
    expect(names).toContain('group.min.session.timeout.ms');
    expect(names).not.toContain('host');
  });
});

describe('the consumer group protocol settings (Kafka 4.1 GroupCoordinatorConfig)', () => {
  it("Kafka's defaults; an assignor not built in, a default outside its bounds, a heartbeat not under the session: refused", () => {
    const c = resolveConfig({ dataDir: '/x' });
    expect([c.groupConsumerAssignors, c.groupConsumerMaxSize, c.groupConsumerMigrationPolicy]).toEqual([
      'uniform,range',
      1000,
      'bidirectional',
    ]);
    expect(() => resolveConfig({ dataDir: '/x', groupConsumerAssignors: 'sticky' })).toThrow(ConfigError);
    expect(() => resolveConfig({ dataDir: '/x', groupConsumerMigrationPolicy: 'sideways' })).toThrow(
      ConfigError,
    );
    expect(() => resolveConfig({ dataDir: '/x', groupConsumerSessionTimeoutMs: 30_000 })).toThrow(
      /group.consumer.session.timeout.ms must be from group.consumer.min.session.timeout.ms \(45000\)/,
    );
    expect(() =>
      resolveConfig({
        dataDir: '/x',
        groupConsumerMinSessionTimeoutMs: 5000,
        groupConsumerSessionTimeoutMs: 5000,
      }),
    ).toThrow(/group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms/);
  });
});
