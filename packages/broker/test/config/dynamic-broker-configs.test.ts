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

/**
 * Kafka's dynamic broker configs klog stores without acting on (`DYNAMIC_BROKER_CONFIGS`): librdkafka 0081's
 * AlterConfigs and IncrementalAlterConfigs set `sasl.kerberos.min.time.before.relogin` on broker 0 and expect
 * Kafka's NO_ERROR.
 */
const BROKER = 4;
const NAME = 'sasl.kerberos.min.time.before.relogin';

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b?.stop());

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

type Outcome = { errorCode: number; errorMessage: string | null };

async function alter(broker: string, configs: { name: string; value: string | null }[]): Promise<Outcome> {
  const res = await ask<unknown, { responses: Outcome[] }>(AlterConfigs, 2, {
    resources: [{ resourceType: BROKER, resourceName: broker, configs }],
    validateOnly: false,
  });
  return res.responses[0]!;
}

async function described(): Promise<{ value: string | null; configSource: number; readOnly: boolean }> {
  const res = await ask<
    unknown,
    { results: { configs: { value: string | null; configSource: number; readOnly: boolean }[] }[] }
  >(DescribeConfigs, 4, {
    resources: [{ resourceType: BROKER, resourceName: '0', configurationKeys: [NAME] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  return res.results[0]!.configs[0]!;
}

describe("dynamic broker configs klog stores (Kafka's DynamicBrokerConfig)", () => {
  it('AlterConfigs sets one on this broker: described as DYNAMIC_BROKER_CONFIG, kept across a restart', async () => {
    expect(await described()).toMatchObject({ value: '60000', configSource: 5, readOnly: false });
    expect(await alter('0', [{ name: NAME, value: '58000' }])).toMatchObject({ errorCode: 0 });
    expect(await described()).toMatchObject({ value: '58000', configSource: 2 });
    b = await b.restart();
    expect(await described()).toMatchObject({ value: '58000', configSource: 2 });
  });

  it('IncrementalAlterConfigs SETs and DELETEs it', async () => {
    const incremental = (configOperation: number, value: string | null) =>
      ask<unknown, { responses: Outcome[] }>(IncrementalAlterConfigs, 1, {
        resources: [
          { resourceType: BROKER, resourceName: '0', configs: [{ name: NAME, configOperation, value }] },
        ],
        validateOnly: false,
      });
    expect((await incremental(0, '59000')).responses[0]).toMatchObject({ errorCode: 0 });
    expect(await described()).toMatchObject({ value: '59000', configSource: 2 });
    expect((await incremental(1, null)).responses[0]).toMatchObject({ errorCode: 0 });
    expect(await described()).toMatchObject({ value: '60000', configSource: 5 });
  });

  it('refused: a bad value, the cluster-default level, another broker, and klog’s own settings with it', async () => {
    expect(await alter('0', [{ name: NAME, value: 'soon' }])).toMatchObject({ errorCode: 40 }); // INVALID_CONFIG
    expect(await alter('', [{ name: NAME, value: '58000' }])).toMatchObject({ errorCode: 42 }); // INVALID_REQUEST
    expect(await alter('3', [{ name: NAME, value: '58000' }])).toMatchObject({ errorCode: 42 });
    const mixed = await alter('0', [
      { name: NAME, value: '58000' },
      { name: 'log.retention.ms', value: '1' },
    ]);
    expect(mixed.errorCode).toBe(40);
    expect(mixed.errorMessage).toContain('klog takes broker configs at start only');
    expect(await described()).toMatchObject({ value: '60000', configSource: 5 });
  });
});
