import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AlterConfigs,
  DescribeConfigs,
  decodeResponse,
  encodeRequest,
  IncrementalAlterConfigs,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { RawClient } from '../support/raw-client.js';

/** GROUP config resources (ConfigResource type 32), as Kafka 4.1.0 serves them (`GroupConfig`). */
const GROUP = 32;
const INVALID_CONFIG = 40;
const INVALID_REQUEST = 42;

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b?.stop());

/** One request on its own connection, its response body. */
async function ask<Req, Res>(
  codec: Parameters<typeof encodeRequest<Req>>[0],
  version: number,
  body: Req,
): Promise<Res> {
  const c = await RawClient.connect(b.port);
  try {
    c.send(encodeRequest(codec, version, 7, 'test', body));
    return decodeResponse(codec as never, version, await c.next()).body as Res;
  } finally {
    c.close();
  }
}

interface Described {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  configType: number;
  synonyms: { name: string; value: string | null; source: number }[];
  documentation: string | null;
}

async function describeGroup(
  group: string,
  keys: string[] | null = null,
): Promise<{ errorCode: number; errorMessage: string | null; configs: Described[] }> {
  const res = await ask<
    unknown,
    { results: { errorCode: number; errorMessage: string | null; configs: Described[] }[] }
  >(DescribeConfigs, 4, {
    resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: keys }],
    includeSynonyms: true,
    includeDocumentation: true,
  });
  return res.results[0]!;
}

async function incremental(
  group: string,
  configs: { name: string; configOperation: number; value: string | null }[],
  validateOnly = false,
): Promise<{ errorCode: number; errorMessage: string | null }> {
  const res = await ask<unknown, { responses: { errorCode: number; errorMessage: string | null }[] }>(
    IncrementalAlterConfigs,
    1,
    { resources: [{ resourceType: GROUP, resourceName: group, configs }], validateOnly },
  );
  return res.responses[0]!;
}

const configNamed = (configs: Described[], name: string) => configs.find((c) => c.name === name);

describe('GROUP config resources (type 32): described, altered, stored', () => {
  it("a group that does not exist is described with Kafka's 4.1.0 group configs and defaults", async () => {
    const r = await describeGroup('nobody-yet');
    expect(r.errorCode).toBe(0);
    expect(r.configs.map((c) => c.name)).toEqual([
      'consumer.heartbeat.interval.ms',
      'consumer.session.timeout.ms',
      'share.auto.offset.reset',
      'share.heartbeat.interval.ms',
      'share.isolation.level',
      'share.record.lock.duration.ms',
      'share.session.timeout.ms',
      'streams.heartbeat.interval.ms',
      'streams.num.standby.replicas',
      'streams.session.timeout.ms',
    ]);
    expect(configNamed(r.configs, 'consumer.session.timeout.ms')).toMatchObject({
      value: '45000',
      readOnly: false,
      configSource: 5, // DEFAULT_CONFIG
      configType: 3, // INT
      synonyms: [],
    });
    expect(configNamed(r.configs, 'share.auto.offset.reset')).toMatchObject({
      value: 'latest',
      configType: 2,
    });
    expect(configNamed(r.configs, 'consumer.heartbeat.interval.ms')!.documentation).not.toContain(
      'klog stores this config but does not act on it',
    );
    expect(configNamed(r.configs, 'share.auto.offset.reset')!.documentation).toContain(
      'klog stores this config but does not act on it',
    );
    // Only the keys asked for.
    const one = await describeGroup('nobody-yet', ['consumer.heartbeat.interval.ms']);
    expect(one.configs.map((c) => [c.name, c.value])).toEqual([['consumer.heartbeat.interval.ms', '5000']]);
  });

  it('IncrementalAlterConfigs SETs and DELETEs a group’s config; the set one is GROUP_CONFIG', async () => {
    expect(
      await incremental('g-inc', [
        { name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' },
      ]),
    ).toMatchObject({ errorCode: 0 });
    const set = configNamed((await describeGroup('g-inc')).configs, 'consumer.session.timeout.ms');
    expect(set).toMatchObject({
      value: '50000',
      configSource: 8, // GROUP_CONFIG
      synonyms: [{ name: 'consumer.session.timeout.ms', value: '50000', source: 8 }],
    });
    expect(
      await incremental('g-inc', [{ name: 'consumer.session.timeout.ms', configOperation: 1, value: null }]),
    ).toMatchObject({ errorCode: 0 });
    expect(configNamed((await describeGroup('g-inc')).configs, 'consumer.session.timeout.ms')).toMatchObject({
      value: '45000',
      configSource: 5,
    });
    // validateOnly checks and stores nothing.
    expect(
      await incremental(
        'g-inc',
        [{ name: 'share.isolation.level', configOperation: 0, value: 'read_committed' }],
        true,
      ),
    ).toMatchObject({ errorCode: 0 });
    expect(configNamed((await describeGroup('g-inc')).configs, 'share.isolation.level')!.value).toBe(
      'read_uncommitted',
    );
  });

  it('AlterConfigs replaces a group’s whole set', async () => {
    const alter = (configs: { name: string; value: string | null }[]) =>
      ask<unknown, { responses: { errorCode: number; errorMessage: string | null }[] }>(AlterConfigs, 2, {
        resources: [{ resourceType: GROUP, resourceName: 'g-alter', configs }],
        validateOnly: false,
      });
    expect(
      (
        await alter([
          { name: 'consumer.heartbeat.interval.ms', value: '6000' },
          { name: 'share.auto.offset.reset', value: 'by_duration:PT1H' },
        ])
      ).responses[0],
    ).toMatchObject({ errorCode: 0 });
    expect((await alter([{ name: 'streams.num.standby.replicas', value: '1' }])).responses[0]).toMatchObject({
      errorCode: 0,
    });
    const configs = (await describeGroup('g-alter')).configs;
    expect(configNamed(configs, 'consumer.heartbeat.interval.ms')).toMatchObject({
      value: '5000',
      configSource: 5,
    });
    expect(configNamed(configs, 'share.auto.offset.reset')).toMatchObject({
      value: 'latest',
      configSource: 5,
    });
    expect(configNamed(configs, 'streams.num.standby.replicas')).toMatchObject({
      value: '1',
      configSource: 8,
    });
  });

  it('a value outside the broker’s group.consumer bounds, an unknown name or a bad value is INVALID_CONFIG', async () => {
    const refusals: [string, string, string][] = [
      [
        'consumer.session.timeout.ms',
        '30000',
        'consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms',
      ],
      [
        'consumer.session.timeout.ms',
        '70000',
        'consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms',
      ],
      [
        'consumer.heartbeat.interval.ms',
        '16000',
        'consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms',
      ],
      [
        'consumer.heartbeat.interval.ms',
        '0',
        'Invalid value 0 for configuration consumer.heartbeat.interval.ms',
      ],
      [
        'streams.num.standby.replicas',
        '3',
        'streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas',
      ],
      [
        'share.isolation.level',
        'sometimes',
        'Invalid value sometimes for configuration share.isolation.level',
      ],
      ['share.auto.offset.reset', 'by_duration:-PT1H', 'Invalid value by_duration:-PT1H'],
      ['session.timeout.ms', '50000', 'Unknown group config name: session.timeout.ms'],
    ];
    for (const [name, value, message] of refusals) {
      const r = await incremental('g-bad', [{ name, configOperation: 0, value }]);
      expect(r.errorCode, `${name}=${value}`).toBe(INVALID_CONFIG);
      expect(r.errorMessage).toContain(message);
    }
    // Nothing of them was stored.
    expect((await describeGroup('g-bad')).configs.every((c) => c.configSource === 5)).toBe(true);
    // No group config is a list.
    expect(
      await incremental('g-bad', [{ name: 'share.isolation.level', configOperation: 2, value: 'x' }]),
    ).toMatchObject({ errorCode: INVALID_CONFIG });
    // The empty group name is refused, as Kafka refuses it.
    expect((await describeGroup('')).errorCode).toBe(INVALID_REQUEST);
    expect(
      await incremental('', [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }]),
    ).toMatchObject({ errorCode: INVALID_REQUEST });
  });

  it('the bounds are the broker’s settings: a wider group.consumer.max.session.timeout.ms allows more', async () => {
    b = await b.restart({ groupConsumerMaxSessionTimeoutMs: 90_000 });
    expect(
      await incremental('g-wide', [
        { name: 'consumer.session.timeout.ms', configOperation: 0, value: '80000' },
      ]),
    ).toMatchObject({ errorCode: 0 });
    b = await b.restart({ groupConsumerMaxSessionTimeoutMs: 60_000 });
  });

  it('a group’s configs survive a restart, stored beside the topic configs', async () => {
    expect(
      await incremental('g-kept', [
        { name: 'consumer.session.timeout.ms', configOperation: 0, value: '55000' },
        { name: 'share.record.lock.duration.ms', configOperation: 0, value: '20000' },
      ]),
    ).toMatchObject({ errorCode: 0 });
    b = await b.restart();
    const configs = (await describeGroup('g-kept')).configs;
    expect(configNamed(configs, 'consumer.session.timeout.ms')).toMatchObject({
      value: '55000',
      configSource: 8,
    });
    expect(configNamed(configs, 'share.record.lock.duration.ms')).toMatchObject({
      value: '20000',
      configSource: 8,
    });
    const file = JSON.parse(readFileSync(join(b.dataDir, '.broker', 'group-configs.json'), 'utf8'));
    expect(file['g-kept']).toEqual({
      'consumer.session.timeout.ms': '55000',
      'share.record.lock.duration.ms': '20000',
    });
  });
});
