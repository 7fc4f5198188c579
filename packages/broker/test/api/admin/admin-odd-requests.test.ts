import {
  AlterConfigs,
  CreatePartitions,
  DeleteRecords,
  DeleteTopics,
  DescribeConfigs,
  DescribeProducers,
  decodeResponse,
  encodeRequest,
  IncrementalAlterConfigs,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

/** Admin requests that parse but ask for what cannot be: each answered with Kafka's error, nothing changed. */
let b: TestBroker;
let c: RawClient;
let correlation = 0;
beforeAll(async () => {
  b = await startBroker({});
  c = await RawClient.connect(b.port);
  const create = await kafkajs(
    'createTopics',
    0,
    { topics: [{ topic: 'odd', numPartitions: 1, replicationFactor: 1 }], timeout: 1000 },
    999,
  );
  c.send(create.frame);
  await c.next();
});
afterAll(async () => {
  c.close();
  await b.stop();
});

async function ask<Req, Res>(
  codec: Parameters<typeof encodeRequest<Req>>[0],
  version: number,
  body: Req,
): Promise<Res> {
  c.send(encodeRequest(codec, version, ++correlation, 'odd-admin', body));
  return decodeResponse(codec as never, version, await c.next()).body as Res;
}

describe('admin requests klog refuses, as Kafka does', () => {
  it('CreatePartitions: fewer, the same, an assignment elsewhere, an unknown topic, a duplicate', async () => {
    const res = await ask<
      unknown,
      { results: { name: string; errorCode: number; errorMessage: string | null }[] }
    >(CreatePartitions, 3, {
      topics: [
        { name: 'odd', count: 1, assignments: null },
        { name: 'nope', count: 3, assignments: null },
        { name: 'dup', count: 2, assignments: null },
        { name: 'dup', count: 2, assignments: null },
      ],
      timeoutMs: 1000,
      validateOnly: false,
    });
    expect(res.results.map((r) => [r.name, r.errorCode])).toEqual([
      ['odd', 37], // INVALID_PARTITIONS
      ['nope', 3],
      ['dup', 42], // INVALID_REQUEST
      ['dup', 42],
    ]);
    const elsewhere = await ask<unknown, { results: { errorCode: number; errorMessage: string }[] }>(
      CreatePartitions,
      1,
      {
        topics: [{ name: 'odd', count: 2, assignments: [{ brokerIds: [7] }] }],
        timeoutMs: 1000,
        validateOnly: false,
      },
    );
    expect(elsewhere.results[0]).toMatchObject({ errorCode: 39 }); // INVALID_REPLICA_ASSIGNMENT
    // validateOnly: checked, not done.
    const dry = await ask<unknown, { results: { errorCode: number }[] }>(CreatePartitions, 0, {
      topics: [{ name: 'odd', count: 5, assignments: null }],
      timeoutMs: 1000,
      validateOnly: true,
    });
    expect(dry.results[0]!.errorCode).toBe(0);
    expect(b.broker.requestStats.get('CreatePartitions')?.requests).toBe(3);
    expect(
      (
        await ask<unknown, { topics: { partitions: unknown[] }[] }>(DescribeProducers, 0, {
          topics: [{ name: 'odd', partitionIndexes: [4] }],
        })
      ).topics[0]!.partitions,
    ).toMatchObject([{ errorCode: 3 }]);
  });

  it('configs: a broker’s cannot change at run time, an unknown resource type, APPEND to a number, duplicates', async () => {
    const broker = await ask<unknown, { responses: { errorCode: number; errorMessage: string }[] }>(
      AlterConfigs,
      2,
      {
        resources: [
          { resourceType: 4, resourceName: '0', configs: [{ name: 'log.retention.ms', value: '1' }] },
        ],
        validateOnly: false,
      },
    );
    expect(broker.responses[0]).toMatchObject({
      errorCode: 40,
      errorMessage: expect.stringMatching(/at start only/),
    });
    const described = await ask<unknown, { results: { errorCode: number }[] }>(DescribeConfigs, 4, {
      resources: [
        { resourceType: 99, resourceName: 'x', configurationKeys: null },
        { resourceType: 2, resourceName: 'nope', configurationKeys: null },
        { resourceType: 4, resourceName: '5', configurationKeys: null },
        { resourceType: 4, resourceName: '0', configurationKeys: ['num.partitions', 'not.a.config'] },
      ],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    expect(described.results.map((r) => r.errorCode)).toEqual([42, 3, 42, 0]);
    expect(
      (described.results[3] as unknown as { configs: { name: string; readOnly: boolean }[] }).configs,
    ).toEqual([expect.objectContaining({ name: 'num.partitions', readOnly: true })]);
    const incremental = await ask<unknown, { responses: { errorCode: number; errorMessage: string }[] }>(
      IncrementalAlterConfigs,
      1,
      {
        resources: [
          {
            resourceType: 2,
            resourceName: 'odd',
            configs: [{ name: 'retention.ms', configOperation: 2, value: '5' }],
          },
          {
            resourceType: 2,
            resourceName: 'odd',
            configs: [
              { name: 'retention.ms', configOperation: 0, value: '5' },
              { name: 'retention.ms', configOperation: 0, value: '6' },
            ],
          },
          {
            resourceType: 2,
            resourceName: 'odd',
            configs: [{ name: 'retention.ms', configOperation: 9, value: '5' }],
          },
        ],
        validateOnly: false,
      },
    );
    expect(incremental.responses.map((r) => [r.errorCode, r.errorMessage])).toEqual([
      [40, 'Config value append is not allowed for config key: retention.ms'],
      [42, 'Error due to duplicate config keys: retention.ms'],
      [42, 'Unknown config operation 9 for retention.ms'],
    ]);
    // None of them changed anything: the topic has no config of its own.
    expect(b.lines.some((l) => l.includes('topic odd: configs now'))).toBe(false);
  });

  it('DeleteRecords past the high watermark or on a partition that does not exist; DeleteTopics of an unknown name or id', async () => {
    const res = await ask<
      unknown,
      { topics: { partitions: { partitionIndex: number; errorCode: number; lowWatermark: number }[] }[] }
    >(DeleteRecords, 2, {
      topics: [
        {
          name: 'odd',
          partitions: [
            { partitionIndex: 0, offset: 10 },
            { partitionIndex: 3, offset: 0 },
          ],
        },
      ],
      timeoutMs: 1000,
    });
    expect(res.topics[0]!.partitions).toEqual([
      { partitionIndex: 0, errorCode: 1, lowWatermark: -1 },
      { partitionIndex: 3, errorCode: 3, lowWatermark: -1 },
    ]);
    const deleted = await ask<unknown, { responses: { name: string | null; errorCode: number }[] }>(
      DeleteTopics,
      6,
      {
        topics: [
          { name: 'nope', topicId: '00000000-0000-0000-0000-000000000000' },
          { name: null, topicId: '11111111-2222-4333-8444-555555555555' },
        ],
        topicNames: [],
        timeoutMs: 1000,
      },
    );
    expect(deleted.responses.map((r) => [r.name, r.errorCode])).toEqual([
      ['nope', 3],
      [null, 100], // UNKNOWN_TOPIC_ID
    ]);
  });

  it('a topic deleted while a fetch waits on it: the fetch is answered, the broker goes on', async () => {
    const reader = await RawClient.connect(b.port);
    const create = await kafkajs(
      'createTopics',
      0,
      { topics: [{ topic: 'doomed', numPartitions: 1, replicationFactor: 1 }], timeout: 1000 },
      1,
    );
    reader.send(create.frame);
    await reader.next();
    const fetch = await kafkajs(
      'fetch',
      11,
      {
        replicaId: -1,
        maxWaitTime: 2000,
        minBytes: 1,
        maxBytes: 1024,
        topics: [{ topic: 'doomed', partitions: [{ partition: 0, fetchOffset: '0', maxBytes: 1024 }] }],
      },
      2,
    );
    reader.send(fetch.frame);
    while (b.broker.waitingFetches === 0) await new Promise((r) => setTimeout(r, 10));
    const gone = await ask<unknown, { responses: { errorCode: number }[] }>(DeleteTopics, 4, {
      topics: [],
      topicNames: ['doomed'],
      timeoutMs: 1000,
    });
    expect(gone.responses[0]!.errorCode).toBe(0);
    const answer = await fetch.decode(await reader.next());
    expect(answer.correlation).toBe(2);
    reader.close();
    expect(b.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
  });
});
