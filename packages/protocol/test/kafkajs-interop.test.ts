import { describe, expect, it } from 'vitest';
import {
  ApiVersions,
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
import { decodeFrame, kafkajsFrame, kafkajsPayload, respond } from './clients.js';

/**
 * KafkaJS 2.2.4 as a client: each request its encoder writes, for every version it has of the APIs klog
 * serves, read by klog's decoder to the values KafkaJS was given; each response klog writes read by
 * KafkaJS's decoder to the values klog was given.
 */

const NO_OPS = -2147483648;
/** What a version without topic ids decodes a topic's id as. */
const ZERO_ID = '00000000-0000-0000-0000-000000000000';

/** A KafkaJS-encoded produce request, and the RecordBatch bytes klog reads out of it. */
async function kafkajsBatch(messages: number, producerId = 5, firstSequence = 3) {
  const { frame } = await kafkajsFrame('produce', 7, {
    acks: -1,
    timeout: 30000,
    transactionalId: null,
    producerId,
    producerEpoch: 0,
    compression: 0,
    topicData: [
      {
        topic: 'orders',
        partitions: [
          {
            partition: 1,
            firstSequence,
            messages: Array.from({ length: messages }, (_, i) => ({
              key: `k${i}`,
              value: `value ${i}`,
              headers: { h: `${i}` },
              timestamp: 1_700_000_000_000 + i,
            })),
          },
        ],
      },
    ],
  });
  return decodeFrame<ProduceRequest>(frame);
}

describe('KafkaJS 2.2.4 → klog: requests', () => {
  it('ApiVersions v0–v2: header v1 with the client id, an empty body', async () => {
    for (const version of [0, 1, 2]) {
      const { frame } = await kafkajsFrame('apiVersions', version, {}, 11);
      const d = decodeFrame(frame);
      expect(d.header).toEqual({
        apiKey: 18,
        apiVersion: version,
        correlationId: 11,
        clientId: 'kafkajs-test',
        headerVersion: 1,
      });
      expect(d.body).toEqual({ clientSoftwareName: '', clientSoftwareVersion: '' });
      expect(d.trailing).toBe(0);
    }
  });

  it('Metadata v0–v6: the topics asked for, and auto-creation from v4', async () => {
    for (const version of [0, 1, 2, 3, 4, 5, 6]) {
      const { frame } = await kafkajsFrame('metadata', version, {
        topics: ['orders', 'ไทย'],
        allowAutoTopicCreation: false,
      });
      const d = decodeFrame<MetadataRequest>(frame);
      expect(d.body.topics).toEqual([
        { name: 'orders', topicId: ZERO_ID },
        { name: 'ไทย', topicId: ZERO_ID },
      ]);
      expect(d.body.allowAutoTopicCreation).toBe(version < 4);
      expect(d.trailing).toBe(0);
    }
  });

  it('InitProducerId v0–v1: no transactional id', async () => {
    for (const version of [0, 1]) {
      const { frame } = await kafkajsFrame('initProducerId', version, {
        transactionalId: null,
        transactionTimeout: 30000,
      });
      const d = decodeFrame<InitProducerIdRequest>(frame);
      expect(d.body).toEqual({
        transactionalId: null,
        transactionTimeoutMs: 30000,
        producerId: -1,
        producerEpoch: -1,
      });
    }
  });

  it('Produce v3–v7: acks, timeout, topic, partition, and one RecordBatch v2 as opaque bytes', async () => {
    for (const version of [3, 4, 5, 6, 7]) {
      const { frame } = await kafkajsFrame('produce', version, {
        acks: -1,
        timeout: 30000,
        transactionalId: null,
        producerId: 77,
        producerEpoch: 2,
        compression: 0,
        topicData: [
          {
            topic: 'orders',
            partitions: [{ partition: 2, firstSequence: 9, messages: [{ key: 'k', value: 'v' }] }],
          },
        ],
      });
      const d = decodeFrame<ProduceRequest>(frame);
      expect(d.body.acks).toBe(-1);
      expect(d.body.timeoutMs).toBe(30000);
      expect(d.body.transactionalId).toBeNull();
      expect(d.body.topicData).toHaveLength(1);
      expect(d.body.topicData[0]!.name).toBe('orders');
      const partition = d.body.topicData[0]!.partitionData[0]!;
      expect(partition.index).toBe(2);
      const batch = Buffer.from(partition.records!);
      // RecordBatch v2, by its header's names: batchLength counts from the partitionLeaderEpoch on.
      expect(batch.readInt32BE(8) + 12).toBe(batch.length);
      expect(batch.readInt8(16)).toBe(2); // magic
      expect(batch.readBigInt64BE(43)).toBe(77n); // producerId
      expect(batch.readInt16BE(51)).toBe(2); // producerEpoch
      expect(batch.readInt32BE(53)).toBe(9); // baseSequence
      expect(d.trailing).toBe(0);
    }
  });

  it('Fetch v4–v11: offsets, limits, isolation, sessions and rack id as sent', async () => {
    for (const version of [4, 5, 6, 7, 8, 9, 10, 11]) {
      const { frame } = await kafkajsFrame('fetch', version, {
        replicaId: -1,
        isolationLevel: 1,
        maxWaitTime: 500,
        minBytes: 1,
        maxBytes: 10_485_760,
        topics: [
          {
            topic: 'orders',
            partitions: [{ partition: 0, fetchOffset: '1234567890123', maxBytes: 1_048_576 }],
          },
        ],
        rackId: 'rack-a',
      });
      const d = decodeFrame<FetchRequest>(frame);
      expect(d.body.maxWaitMs).toBe(500);
      expect(d.body.minBytes).toBe(1);
      expect(d.body.maxBytes).toBe(10_485_760);
      expect(d.body.isolationLevel).toBe(1);
      expect(d.body.replicaId).toBe(-1);
      expect(d.body.topics).toEqual([
        {
          topic: 'orders',
          topicId: ZERO_ID,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: -1,
              fetchOffset: 1234567890123,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: 1_048_576,
              replicaDirectoryId: ZERO_ID,
            },
          ],
        },
      ]);
      expect(d.body.sessionEpoch).toBe(-1);
      expect(d.body.rackId).toBe(version >= 11 ? 'rack-a' : '');
      expect(d.trailing).toBe(0);
    }
  });

  it('ListOffsets v0–v3: earliest (−2) and latest (−1), and MaxNumOffsets in v0', async () => {
    for (const version of [0, 1, 2, 3]) {
      const { frame } = await kafkajsFrame('listOffsets', version, {
        replicaId: -1,
        isolationLevel: 1,
        topics: [
          {
            topic: 'orders',
            partitions: [
              { partition: 0, timestamp: -2 },
              { partition: 1, timestamp: -1 },
            ],
          },
        ],
      });
      const d = decodeFrame<ListOffsetsRequest>(frame);
      expect(d.body.replicaId).toBe(-1);
      expect(d.body.isolationLevel).toBe(version >= 2 ? 1 : 0);
      expect(
        d.body.topics[0]!.partitions.map((p) => [p.partitionIndex, p.timestamp, p.maxNumOffsets]),
      ).toEqual([
        [0, -2, 1],
        [1, -1, 1],
      ]);
    }
  });

  it('CreateTopics v0–v3: name, partitions, replication factor, configs, validateOnly', async () => {
    for (const version of [0, 1, 2, 3]) {
      const { frame } = await kafkajsFrame('createTopics', version, {
        topics: [
          {
            topic: 'payments',
            numPartitions: 3,
            replicationFactor: 1,
            replicaAssignment: [],
            configEntries: [{ name: 'segment.bytes', value: '1048576' }],
          },
        ],
        validateOnly: true,
        timeout: 5000,
      });
      const d = decodeFrame<CreateTopicsRequest>(frame);
      expect(d.body).toEqual({
        topics: [
          {
            name: 'payments',
            numPartitions: 3,
            replicationFactor: 1,
            assignments: [],
            configs: [{ name: 'segment.bytes', value: '1048576' }],
          },
        ],
        timeoutMs: 5000,
        validateOnly: version >= 1,
      });
    }
  });
});

describe('klog → KafkaJS 2.2.4: responses', () => {
  it('ApiVersions v0–v2', async () => {
    for (const version of [0, 1, 2]) {
      const { response } = await kafkajsFrame('apiVersions', version, {});
      const chunks = respond(ApiVersions, version, 1, {
        errorCode: 0,
        apiKeys: [
          { apiKey: 0, minVersion: 0, maxVersion: 8 },
          { apiKey: 18, minVersion: 0, maxVersion: 3 },
        ],
        throttleTimeMs: 0,
      });
      const data = (await response.decode(kafkajsPayload(chunks))) as Record<string, unknown>;
      expect(data.errorCode).toBe(0);
      expect(data.apiVersions).toEqual([
        { apiKey: 0, minVersion: 0, maxVersion: 8 },
        { apiKey: 18, minVersion: 0, maxVersion: 3 },
      ]);
    }
  });

  it('Metadata v0–v6: brokers, controller, topics and partitions', async () => {
    for (const version of [0, 1, 2, 3, 4, 5, 6]) {
      const { response } = await kafkajsFrame('metadata', version, { topics: [] });
      const chunks = respond(Metadata, version, 1, {
        throttleTimeMs: 0,
        brokers: [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }],
        clusterId: 'klog-cluster',
        controllerId: 0,
        topics: [
          {
            errorCode: 0,
            name: 'orders',
            topicId: '00000000-0000-0000-0000-000000000000',
            isInternal: false,
            partitions: [0, 1].map((p) => ({
              errorCode: 0,
              partitionIndex: p,
              leaderId: 0,
              leaderEpoch: 0,
              replicaNodes: [0],
              isrNodes: [0],
              offlineReplicas: [],
            })),
            topicAuthorizedOperations: NO_OPS,
          },
        ],
        clusterAuthorizedOperations: NO_OPS,
        errorCode: 0,
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(chunks)))) as {
        brokers: { nodeId: number; host: string; port: number }[];
        controllerId?: number;
        topicMetadata: {
          topic: string;
          partitionMetadata: { partitionId: number; leader: number; isr: number[] }[];
        }[];
      };
      expect(data.brokers).toMatchObject([{ nodeId: 0, host: '127.0.0.1', port: 9092 }]);
      if (version >= 1) expect(data.controllerId).toBe(0);
      expect(data.topicMetadata[0]!.topic).toBe('orders');
      expect(data.topicMetadata[0]!.partitionMetadata.map((p) => [p.partitionId, p.leader, p.isr])).toEqual([
        [0, 0, [0]],
        [1, 0, [0]],
      ]);
    }
  });

  it('InitProducerId v0–v1: the producer id and epoch', async () => {
    for (const version of [0, 1]) {
      const { response } = await kafkajsFrame('initProducerId', version, { transactionalId: null });
      const chunks = respond(InitProducerId, version, 1, {
        throttleTimeMs: 0,
        errorCode: 0,
        producerId: 4_000_000_123,
        producerEpoch: 0,
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(chunks)))) as Record<
        string,
        unknown
      >;
      expect(String(data.producerId)).toBe('4000000123');
      expect(data.producerEpoch).toBe(0);
    }
  });

  it('Produce v3–v7: base offset, log append time, log start offset; an error code KafkaJS maps', async () => {
    for (const version of [3, 4, 5, 6, 7]) {
      const { response } = await kafkajsFrame('produce', version, { acks: -1, timeout: 1, topicData: [] });
      const partition = (index: number, errorCode: number, baseOffset: number) => ({
        index,
        errorCode,
        baseOffset,
        logAppendTimeMs: -1,
        logStartOffset: 0,
        recordErrors: [],
        errorMessage: null,
      });
      const ok = respond(Produce, version, 1, {
        responses: [{ name: 'orders', partitionResponses: [partition(0, 0, 2 ** 40)] }],
        throttleTimeMs: 0,
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(ok)))) as {
        topics: {
          topicName: string;
          partitions: { partition: number; errorCode: number; baseOffset: string; logStartOffset?: string }[];
        }[];
      };
      expect(data.topics[0]!.topicName).toBe('orders');
      expect(data.topics[0]!.partitions[0]).toMatchObject({
        partition: 0,
        errorCode: 0,
        baseOffset: String(2 ** 40),
      });
      if (version >= 5) expect(data.topics[0]!.partitions[0]!.logStartOffset).toBe('0');
      const bad = respond(Produce, version, 1, {
        responses: [{ name: 'orders', partitionResponses: [partition(0, 45, -1)] }],
        throttleTimeMs: 0,
      });
      await expect(response.parse(await response.decode(kafkajsPayload(bad)))).rejects.toMatchObject({
        type: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
      });
    }
  });

  it('Fetch v4–v11: a KafkaJS-encoded batch comes back as its messages, HW / LSO / log start as given', async () => {
    const produced = await kafkajsBatch(3);
    const records = produced.body.topicData[0]!.partitionData[0]!.records!;
    for (const version of [4, 5, 6, 7, 8, 9, 10, 11]) {
      const { response } = await kafkajsFrame('fetch', version, { topics: [] });
      const chunks = respond(Fetch, version, 1, {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: [
          {
            topic: 'orders',
            topicId: '00000000-0000-0000-0000-000000000000',
            partitions: [
              {
                partitionIndex: 1,
                errorCode: 0,
                highWatermark: 3,
                lastStableOffset: 3,
                logStartOffset: 0,
                abortedTransactions: version >= 4 ? [] : null,
                preferredReadReplica: -1,
                records,
              },
            ],
          },
        ],
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(chunks)))) as {
        responses: {
          topicName: string;
          partitions: {
            partition: number;
            highWatermark: string;
            lastStableOffset: string;
            messages: { key: Buffer; value: Buffer; offset: string; headers: Record<string, Buffer> }[];
          }[];
        }[];
      };
      const p = data.responses[0]!.partitions[0]!;
      expect(data.responses[0]!.topicName).toBe('orders');
      expect(p.partition).toBe(1);
      expect(p.highWatermark).toBe('3');
      expect(p.lastStableOffset).toBe('3');
      expect(
        p.messages.map((m) => [m.offset, m.key.toString(), m.value.toString(), m.headers.h!.toString()]),
      ).toEqual([
        ['0', 'k0', 'value 0', '0'],
        ['1', 'k1', 'value 1', '1'],
        ['2', 'k2', 'value 2', '2'],
      ]);
    }
  });

  it('Fetch at the end of the log: no records, no error, no trailing bytes', async () => {
    for (const version of [4, 11]) {
      const { response } = await kafkajsFrame('fetch', version, { topics: [] });
      const chunks = respond(Fetch, version, 1, {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: [
          {
            topic: 'orders',
            topicId: '00000000-0000-0000-0000-000000000000',
            partitions: [
              {
                partitionIndex: 0,
                errorCode: 0,
                highWatermark: 10,
                lastStableOffset: 10,
                logStartOffset: 0,
                abortedTransactions: null,
                preferredReadReplica: -1,
                records: new Uint8Array(0),
              },
            ],
          },
        ],
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(chunks)))) as {
        responses: { partitions: { messages: unknown[] }[] }[];
      };
      expect(data.responses[0]!.partitions[0]!.messages).toEqual([]);
    }
  });

  it('ListOffsets v0–v3: the offset (v0 as a one-element list) and its timestamp', async () => {
    for (const version of [0, 1, 2, 3]) {
      const { response } = await kafkajsFrame('listOffsets', version, { topics: [] });
      const chunks = respond(ListOffsets, version, 1, {
        throttleTimeMs: 0,
        topics: [
          {
            name: 'orders',
            partitions: [
              {
                partitionIndex: 0,
                errorCode: 0,
                oldStyleOffsets: version === 0 ? [42] : [],
                timestamp: version === 0 ? -1 : 1_700_000_000_000,
                offset: version === 0 ? -1 : 42,
                leaderEpoch: -1,
              },
            ],
          },
        ],
      });
      const data = (await response.parse(await response.decode(kafkajsPayload(chunks)))) as {
        responses: {
          topic: string;
          partitions: { partition: number; offset?: string; offsets?: string[]; timestamp?: string }[];
        }[];
      };
      const p = data.responses[0]!.partitions[0]!;
      if (version === 0) expect(p.offsets).toEqual(['42']);
      else expect([p.offset, p.timestamp]).toEqual(['42', '1700000000000']);
    }
  });

  it('CreateTopics v0–v3: per-topic errors and (from v1) messages', async () => {
    for (const version of [0, 1, 2, 3]) {
      const { response } = await kafkajsFrame('createTopics', version, { topics: [] });
      const chunks = respond(CreateTopics, version, 1, {
        throttleTimeMs: 0,
        topics: [
          {
            name: 'a',
            topicId: '00000000-0000-0000-0000-000000000000',
            errorCode: 0,
            errorMessage: null,
            numPartitions: -1,
            replicationFactor: -1,
            configs: null,
          },
          {
            name: 'b',
            topicId: '00000000-0000-0000-0000-000000000000',
            errorCode: 36,
            errorMessage: "Topic 'b' already exists.",
            numPartitions: -1,
            replicationFactor: -1,
            configs: null,
          },
        ],
      });
      const data = (await response.decode(kafkajsPayload(chunks))) as {
        topicErrors: { topic: string; errorCode: number; errorMessage?: string }[];
      };
      expect(data.topicErrors.map((t) => [t.topic, t.errorCode])).toEqual([
        ['a', 0],
        ['b', 36],
      ]);
      if (version >= 1) expect(data.topicErrors[1]!.errorMessage).toBe("Topic 'b' already exists.");
    }
  });
});
