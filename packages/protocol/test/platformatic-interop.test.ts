import { describe, expect, it } from 'vitest';
import {
  ApiVersions,
  type ApiVersionsRequest,
  CreateTopics,
  type CreateTopicsRequest,
  Fetch,
  type FetchRequest,
  InitProducerId,
  type InitProducerIdRequest,
  ListOffsets,
  type ListOffsetsRequest,
  Metadata,
  type MetadataRequest,
  Produce,
  type ProduceRequest,
} from '../src/index.js';
import { decodeFrame, platformaticFrame, platformaticParse, respond } from './clients.js';

/**
 * @platformatic/kafka 1.35 as a client: its request encoders (the versions it picks against klog: the
 * highest it has at or below what klog advertises) read by klog, and klog's responses read by its
 * parsers. Its flexible versions exercise compact strings and arrays and tagged fields.
 */

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
/** A topic id as klog draws them (random, version 4). */
const TOPIC_ID = '0b6e8a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b';

describe('@platformatic/kafka 1.35 → klog: requests', () => {
  it('ApiVersions v3: header v2 (tag buffer) with an INT16 client id, the client software in compact strings', () => {
    const { frame } = platformaticFrame('apiVersionsV3', ['@platformatic/kafka', '1.35.0'], true);
    const d = decodeFrame<ApiVersionsRequest>(frame);
    expect(d.header).toEqual({
      apiKey: 18,
      apiVersion: 3,
      correlationId: 9,
      clientId: 'plt-test',
      headerVersion: 2,
    });
    expect(d.body).toEqual({ clientSoftwareName: '@platformatic/kafka', clientSoftwareVersion: '1.35.0' });
    expect(d.trailing).toBe(0);
  });

  it('Metadata v9: topics, auto-creation and the authorized-operations flags', () => {
    const { frame } = platformaticFrame('metadataV9', [['orders', 'payments'], true, false], true);
    const d = decodeFrame<MetadataRequest>(frame);
    expect(d.header.headerVersion).toBe(2);
    expect(d.body).toEqual({
      // Version 9 has no topic ids: the decoder fills in the zero id.
      topics: [
        { name: 'orders', topicId: ZERO_UUID },
        { name: 'payments', topicId: ZERO_UUID },
      ],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(d.trailing).toBe(0);
  });

  it('Metadata v12: topics by name, each with a null topic id', () => {
    const { frame } = platformaticFrame('metadataV12', [['orders'], true, false], true);
    const d = decodeFrame<MetadataRequest>(frame);
    expect(d.body).toEqual({
      topics: [{ topicId: ZERO_UUID, name: 'orders' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(d.trailing).toBe(0);
  });

  it('Fetch v17: each topic by its id (no name), the follower fields at their defaults', () => {
    const { frame } = platformaticFrame(
      'fetchV17',
      [
        500,
        1,
        10_485_760,
        0,
        0,
        -1,
        [
          {
            topicId: TOPIC_ID,
            partitions: [
              {
                partition: 2,
                currentLeaderEpoch: -1,
                fetchOffset: 17n,
                lastFetchedEpoch: -1,
                partitionMaxBytes: 1_048_576,
              },
            ],
          },
        ],
        [],
        '',
      ],
      true,
    );
    const d = decodeFrame<FetchRequest>(frame);
    expect(d.header).toMatchObject({ apiKey: 1, apiVersion: 17, headerVersion: 2 });
    expect(d.body.topics).toEqual([
      {
        topic: '',
        topicId: TOPIC_ID,
        partitions: [
          {
            partition: 2,
            currentLeaderEpoch: -1,
            fetchOffset: 17,
            lastFetchedEpoch: -1,
            logStartOffset: -1,
            partitionMaxBytes: 1_048_576,
            replicaDirectoryId: ZERO_UUID,
          },
        ],
      },
    ]);
    expect(d.body.replicaState).toEqual({ replicaId: -1, replicaEpoch: -1 });
    expect(d.trailing).toBe(0);
  });

  it('InitProducerId v3 and v4: a null transactional id with producer id 0 / epoch 0', () => {
    for (const name of ['initProducerIdV3', 'initProducerIdV4'] as const) {
      const { frame } = platformaticFrame(name, [null, 60000, 0n, 0], true);
      const d = decodeFrame<InitProducerIdRequest>(frame);
      expect(d.body).toEqual({
        transactionalId: null,
        transactionTimeoutMs: 60000,
        producerId: 0,
        producerEpoch: 0,
      });
      expect(d.trailing).toBe(0);
    }
  });

  it('Produce v7 and v8: one idempotent batch per partition, its producer fields in the bytes', () => {
    for (const name of ['produceV7', 'produceV8'] as const) {
      const messages = [0, 1, 2].map((i) => ({
        topic: 'orders',
        partition: 1,
        key: Buffer.from(`k${i}`),
        value: Buffer.from(`v${i}`),
        headers: new Map([[Buffer.from('h'), Buffer.from(String(i))]]),
        timestamp: 1_700_000_000_000n + BigInt(i),
      }));
      const { frame } = platformaticFrame(
        name,
        [-1, 30000, messages, { producerId: 321n, producerEpoch: 0 }],
        false,
      );
      const d = decodeFrame<ProduceRequest>(frame);
      expect(d.body.acks).toBe(-1);
      expect(d.body.topicData.map((t) => [t.name, t.partitionData.map((p) => p.index)])).toEqual([
        ['orders', [1]],
      ]);
      const batch = Buffer.from(d.body.topicData[0]!.partitionData[0]!.records!);
      expect(batch.readInt32BE(8) + 12).toBe(batch.length);
      expect(batch.readInt8(16)).toBe(2);
      expect(batch.readInt32BE(23)).toBe(2); // lastOffsetDelta: three records
      expect(batch.readBigInt64BE(43)).toBe(321n);
      expect(batch.readInt32BE(57)).toBe(3); // records count
      expect(d.trailing).toBe(0);
    }
  });

  it('Fetch v12: compact arrays and strings, tag buffers per topic and partition', () => {
    const { frame } = platformaticFrame(
      'fetchV12',
      [
        500,
        1,
        10_485_760,
        1,
        0,
        -1,
        [
          {
            topicId: 'orders',
            partitions: [
              {
                partition: 2,
                currentLeaderEpoch: -1,
                fetchOffset: 17n,
                lastFetchedEpoch: -1,
                partitionMaxBytes: 1_048_576,
              },
            ],
          },
        ],
        [],
        '',
      ],
      true,
    );
    const d = decodeFrame<FetchRequest>(frame);
    expect(d.header.headerVersion).toBe(2);
    expect(d.body).toEqual({
      clusterId: null,
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 10_485_760,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      // Fields of later versions (the follower's, the topic id) at their defaults.
      replicaState: { replicaId: -1, replicaEpoch: -1 },
      topics: [
        {
          topic: 'orders',
          topicId: ZERO_UUID,
          partitions: [
            {
              partition: 2,
              currentLeaderEpoch: -1,
              fetchOffset: 17,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: 1_048_576,
              replicaDirectoryId: ZERO_UUID,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    expect(d.trailing).toBe(0);
  });

  it('ListOffsets v5: the current leader epoch and a timestamp per partition', () => {
    const { frame } = platformaticFrame(
      'listOffsetsV5',
      [
        -1,
        0,
        [
          {
            name: 'orders',
            partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 1_700_000_000_000n }],
          },
        ],
      ],
      false,
    );
    const d = decodeFrame<ListOffsetsRequest>(frame);
    expect(d.body).toEqual({
      replicaId: -1,
      isolationLevel: 0,
      // v10's field, absent before it: its default.
      timeoutMs: 0,
      topics: [
        {
          name: 'orders',
          partitions: [
            { partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 1_700_000_000_000, maxNumOffsets: 1 },
          ],
        },
      ],
    });
  });

  it('CreateTopics v7: topics with assignments and configs, timeout, validateOnly', () => {
    const { frame } = platformaticFrame(
      'createTopicsV7',
      [
        [
          {
            name: 'payments',
            numPartitions: 3,
            replicationFactor: 1,
            assignments: [{ partitionIndex: 0, brokerIds: [0] }],
            configs: [{ name: 'segment.bytes', value: '1048576' }],
          },
        ],
        5000,
        false,
      ],
      true,
    );
    const d = decodeFrame<CreateTopicsRequest>(frame);
    expect(d.body).toEqual({
      topics: [
        {
          name: 'payments',
          numPartitions: 3,
          replicationFactor: 1,
          assignments: [{ partitionIndex: 0, brokerIds: [0] }],
          configs: [{ name: 'segment.bytes', value: '1048576' }],
        },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
  });
});

describe('klog → @platformatic/kafka 1.35: responses', () => {
  it('ApiVersions v3: header v0 although the version is flexible', () => {
    const { mod } = platformaticFrame('apiVersionsV3', ['x', 'y'], true);
    const chunks = respond(ApiVersions, 3, 9, {
      errorCode: 0,
      apiKeys: [
        { apiKey: 3, minVersion: 0, maxVersion: 9 },
        { apiKey: 1, minVersion: 4, maxVersion: 12 },
      ],
      throttleTimeMs: 0,
    });
    const parsed = platformaticParse(mod, chunks, false) as {
      apiKeys: { apiKey: number; name: string; maxVersion: number }[];
    };
    expect(parsed.apiKeys.map((k) => [k.apiKey, k.name, k.maxVersion])).toEqual([
      [3, 'Metadata', 9],
      [1, 'Fetch', 12],
    ]);
  });

  it('Metadata v12: broker, cluster id, controller and the topic id (which platformatic then fetches by)', () => {
    const { mod } = platformaticFrame('metadataV12', [[]], true);
    const chunks = respond(Metadata, 12, 9, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 19092, rack: null }],
      clusterId: 'klog',
      controllerId: 0,
      topics: [
        {
          errorCode: 0,
          name: 'orders',
          topicId: TOPIC_ID,
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 0,
              leaderEpoch: 0,
              replicaNodes: [0],
              isrNodes: [0],
              offlineReplicas: [],
            },
          ],
          topicAuthorizedOperations: -2147483648,
        },
        {
          errorCode: 100,
          name: null,
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: -2147483648,
        },
      ],
      clusterAuthorizedOperations: -2147483648,
      errorCode: 0,
    });
    let parsed: {
      brokers: unknown[];
      controllerId: number;
      topics: { name: string | null; topicId: string; partitions: { leaderId: number }[] }[];
    };
    try {
      parsed = platformaticParse(mod, chunks, true) as typeof parsed;
    } catch (error) {
      // platformatic throws a ResponseError for any topic with an error, carrying what it read.
      parsed = (error as { response: typeof parsed }).response;
    }
    expect(parsed.brokers).toEqual([{ nodeId: 0, host: '127.0.0.1', port: 19092, rack: null }]);
    expect(parsed.controllerId).toBe(0);
    expect(parsed.topics[0]).toMatchObject({ name: 'orders', topicId: TOPIC_ID });
    expect(parsed.topics[0]!.partitions[0]!.leaderId).toBe(0);
    expect(parsed.topics[1]).toMatchObject({ name: null, topicId: ZERO_UUID });
  });

  it('InitProducerId v4: the allocated id', () => {
    const { mod } = platformaticFrame('initProducerIdV4', [null, 1, 0n, 0], true);
    const chunks = respond(InitProducerId, 4, 9, {
      throttleTimeMs: 0,
      errorCode: 0,
      producerId: 2 ** 45 + 3,
      producerEpoch: 0,
    });
    expect(platformaticParse(mod, chunks, true)).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      producerId: 2n ** 45n + 3n,
      producerEpoch: 0,
    });
  });

  it('Produce v8: base offset and log start offset, and no record errors', () => {
    const { mod } = platformaticFrame(
      'produceV8',
      [-1, 1, [{ topic: 't', partition: 0, value: Buffer.from('x') }], {}],
      false,
    );
    const chunks = respond(Produce, 8, 9, {
      responses: [
        {
          name: 'orders',
          partitionResponses: [
            {
              index: 0,
              errorCode: 0,
              baseOffset: 1234,
              logAppendTimeMs: -1,
              logStartOffset: 0,
              recordErrors: [],
              errorMessage: null,
            },
          ],
        },
      ],
      throttleTimeMs: 0,
    });
    const parsed = platformaticParse(mod, chunks, false) as {
      responses: { name: string; partitionResponses: { baseOffset: bigint }[] }[];
    };
    expect(parsed.responses[0]!.name).toBe('orders');
    expect(parsed.responses[0]!.partitionResponses[0]!.baseOffset).toBe(1234n);
  });

  it('Fetch v12: records as a compact byte string, tagged fields that platformatic skips', () => {
    const messages = [0, 1].map((i) => ({
      topic: 'orders',
      partition: 0,
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`v${i}`),
    }));
    const produced = decodeFrame<ProduceRequest>(
      platformaticFrame('produceV8', [-1, 1, messages, {}], false).frame,
    );
    const records = produced.body.topicData[0]!.partitionData[0]!.records!;
    const { mod } = platformaticFrame('fetchV12', [1, 1, 1, 0, 0, -1, [], [], ''], true);
    const chunks = respond(Fetch, 12, 9, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 'orders',
          topicId: ZERO_UUID,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 2,
              lastStableOffset: 2,
              logStartOffset: 0,
              currentLeader: { leaderId: 0, leaderEpoch: 0 },
              abortedTransactions: null,
              preferredReadReplica: -1,
              records,
            },
          ],
        },
      ],
    });
    const parsed = platformaticParse(mod, chunks, true) as {
      responses: {
        topicId: string;
        partitions: {
          highWatermark: bigint;
          records: { records: { key: Buffer; value: Buffer; offsetDelta: number }[] }[];
        }[];
      }[];
    };
    const p = parsed.responses[0]!.partitions[0]!;
    // Up to v12 platformatic keeps the topic's name where it keeps an id.
    expect(parsed.responses[0]!.topicId).toBe('orders');
    expect(p.highWatermark).toBe(2n);
    expect(p.records[0]!.records.map((r) => [r.offsetDelta, r.key.toString(), r.value.toString()])).toEqual([
      [0, 'k0', 'v0'],
      [1, 'k1', 'v1'],
    ]);
  });

  it('Fetch v17: the topic by its id, records and high watermark as platformatic reads them', () => {
    const messages = [0, 1].map((i) => ({
      topic: 'orders',
      partition: 0,
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`v${i}`),
    }));
    const produced = decodeFrame<ProduceRequest>(
      platformaticFrame('produceV8', [-1, 1, messages, {}], false).frame,
    );
    const records = produced.body.topicData[0]!.partitionData[0]!.records!;
    const { mod } = platformaticFrame('fetchV17', [1, 1, 1, 0, 0, -1, [], [], ''], true);
    const chunks = respond(Fetch, 17, 9, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 'orders',
          topicId: TOPIC_ID,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 2,
              lastStableOffset: 2,
              logStartOffset: 0,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records,
            },
          ],
        },
      ],
    });
    const parsed = platformaticParse(mod, chunks, true) as {
      responses: {
        topicId: string;
        partitions: {
          highWatermark: bigint;
          records: { records: { key: Buffer; value: Buffer; offsetDelta: number }[] }[];
        }[];
      }[];
    };
    const p = parsed.responses[0]!.partitions[0]!;
    expect(parsed.responses[0]!.topicId).toBe(TOPIC_ID);
    expect(p.highWatermark).toBe(2n);
    expect(p.records[0]!.records.map((r) => [r.offsetDelta, r.key.toString(), r.value.toString()])).toEqual([
      [0, 'k0', 'v0'],
      [1, 'k1', 'v1'],
    ]);
  });

  it('ListOffsets v5: offset, timestamp and leader epoch', () => {
    const { mod } = platformaticFrame('listOffsetsV5', [-1, 0, []], false);
    const chunks = respond(ListOffsets, 5, 9, {
      throttleTimeMs: 0,
      topics: [
        {
          name: 'orders',
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              oldStyleOffsets: [],
              timestamp: -1,
              offset: 99,
              leaderEpoch: 0,
            },
          ],
        },
      ],
    });
    const parsed = platformaticParse(mod, chunks, false) as {
      topics: { partitions: { offset: bigint; timestamp: bigint }[] }[];
    };
    expect(parsed.topics[0]!.partitions[0]).toMatchObject({ offset: 99n, timestamp: -1n });
  });

  it('CreateTopics v7: topic id, partitions, replication factor, null configs', () => {
    const { mod } = platformaticFrame('createTopicsV7', [[], 1, false], true);
    const chunks = respond(CreateTopics, 7, 9, {
      throttleTimeMs: 0,
      topics: [
        {
          name: 'payments',
          topicId: ZERO_UUID,
          errorCode: 0,
          errorMessage: null,
          numPartitions: 3,
          replicationFactor: 1,
          configs: [],
        },
      ],
    });
    const parsed = platformaticParse(mod, chunks, true) as {
      topics: { name: string; numPartitions: number; topicId: string }[];
    };
    expect(parsed.topics[0]).toMatchObject({ name: 'payments', numPartitions: 3, topicId: ZERO_UUID });
  });
});
