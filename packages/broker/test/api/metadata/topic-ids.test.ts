import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateTopics,
  DeleteTopics,
  DescribeTopicPartitions,
  decodeResponse,
  encodeRequest,
  Fetch,
  Metadata,
  type MetadataRequest,
  Produce,
} from '@klog/protocol';
import { buildPlainBatch } from '@klog/storage/internals';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker, tempDir } from '../../support/broker.js';
import { RawClient } from '../../support/raw-client.js';

/**
 * Issue 41: topic ids as Kafka keeps them. CreateTopics draws the id, Metadata v12 finds the topic by it,
 * Fetch v13 reads its records by it, a restart keeps it (it is in each partition's `partition.metadata`),
 * DescribeTopicPartitions shows the same, DeleteTopics v6 deletes by it, and the name made again is
 * another topic with another id.
 */
const ZERO = '00000000-0000-0000-0000-000000000000';
const UNKNOWN_TOPIC_ID = 100;
const INVALID_REQUEST = 42;

let b: TestBroker | undefined;
let scratch: { dir: string; remove(): void } | undefined;
afterEach(async () => {
  await b?.stop();
  b = undefined;
  scratch?.remove();
  scratch = undefined;
});

let correlation = 0;
async function ask<Req, Res>(
  port: number,
  codec: Parameters<typeof encodeRequest<Req>>[0],
  version: number,
  body: Req,
): Promise<Res> {
  const c = await RawClient.connect(port);
  try {
    c.send(encodeRequest(codec, version, ++correlation, 'topic-ids', body));
    return decodeResponse(codec as never, version, await c.next()).body as Res;
  } finally {
    c.close();
  }
}

function metadataRequest(topics: MetadataRequest['topics']): MetadataRequest {
  return {
    topics,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  };
}

interface MetadataTopic {
  errorCode: number;
  name: string | null;
  topicId: string;
  partitions: unknown[];
}

function fetchById(topicId: string, partition: number) {
  return {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1 },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: '',
        topicId,
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: 0,
            lastFetchedEpoch: -1,
            logStartOffset: -1,
            partitionMaxBytes: 1 << 20,
            replicaDirectoryId: ZERO,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

interface FetchAnswer {
  responses: {
    topicId: string;
    partitions: {
      partitionIndex: number;
      errorCode: number;
      highWatermark: number;
      records: Uint8Array | null;
    }[];
  }[];
}

describe('topic ids: CreateTopics, Metadata v12 and Fetch v13 by id, a restart, DescribeTopicPartitions, DeleteTopics', () => {
  it('one id from creation to deletion, kept over a restart; the name made again has another', async () => {
    scratch = tempDir();
    b = await startBroker({}, scratch.dir);
    const created = await ask<unknown, { topics: { name: string; topicId: string; errorCode: number }[] }>(
      b.port,
      CreateTopics,
      7,
      {
        topics: [{ name: 'orders', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [] }],
        timeoutMs: 1000,
        validateOnly: false,
      },
    );
    const id = created.topics[0]!.topicId;
    expect(created.topics[0]!.errorCode).toBe(0);
    expect(id).not.toBe(ZERO);
    // Kafka's file, in each partition directory: the id in Kafka's base64url form, no newline.
    const kafkaForm = Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url');
    for (const p of [0, 1]) {
      expect(readFileSync(join(scratch.dir, `orders-${p}`, 'partition.metadata'), 'latin1')).toBe(
        `version: 0\ntopic_id: ${kafkaForm}`,
      );
    }

    // Records to read back by id.
    const batch = buildPlainBatch(
      [
        { key: Buffer.from('k0'), value: Buffer.from('v0') },
        { key: Buffer.from('k1'), value: Buffer.from('v1') },
      ],
      0,
      Date.now(),
    );
    const produced = await ask<unknown, { responses: { partitionResponses: { errorCode: number }[] }[] }>(
      b.port,
      Produce,
      8,
      {
        transactionalId: null,
        acks: -1,
        timeoutMs: 1000,
        topicData: [{ name: 'orders', partitionData: [{ index: 1, records: batch }] }],
      },
    );
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);

    // Metadata v12 by id (a null name), and an id no topic has.
    const other = '11111111-2222-4333-8444-555555555555';
    const byId = await ask<MetadataRequest, { topics: MetadataTopic[]; errorCode: number }>(
      b.port,
      Metadata,
      12,
      metadataRequest([
        { topicId: id, name: null },
        { topicId: other, name: null },
      ]),
    );
    expect(byId.topics.map((t) => [t.errorCode, t.name, t.topicId, t.partitions.length])).toEqual([
      [UNKNOWN_TOPIC_ID, null, other, 0],
      [0, 'orders', id, 2],
    ]);
    // By name, v10 and v13: the id with it; v13's top-level ErrorCode.
    for (const version of [10, 13]) {
      const byName = await ask<MetadataRequest, { topics: MetadataTopic[]; errorCode: number }>(
        b.port,
        Metadata,
        version,
        metadataRequest([{ topicId: ZERO, name: 'orders' }]),
      );
      expect(byName.topics.map((t) => [t.name, t.topicId])).toEqual([['orders', id]]);
      expect(byName.errorCode).toBe(0);
    }
    // v10 and v11 cannot ask by id: the whole request is refused (Kafka's KafkaApis).
    const early = await ask<MetadataRequest, { topics: MetadataTopic[]; brokers: unknown[] }>(
      b.port,
      Metadata,
      11,
      metadataRequest([{ topicId: id, name: 'orders' }]),
    );
    expect(early.topics.map((t) => t.errorCode)).toEqual([INVALID_REQUEST]);
    expect(early.brokers).toEqual([]);

    // Fetch v13 by id reads the records; an unknown id is UNKNOWN_TOPIC_ID.
    const fetched = await ask<unknown, FetchAnswer>(b.port, Fetch, 13, fetchById(id, 1));
    expect(fetched.responses[0]!.topicId).toBe(id);
    const part = fetched.responses[0]!.partitions[0]!;
    expect([part.errorCode, part.highWatermark]).toEqual([0, 2]);
    expect(Buffer.from(part.records!).includes(Buffer.from('v1'))).toBe(true);
    const unknown = await ask<unknown, FetchAnswer>(b.port, Fetch, 18, fetchById(other, 0));
    expect(unknown.responses[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_ID);

    // A restart: the same id, from the files.
    b = await b.restart();
    const after = await ask<unknown, FetchAnswer>(b.port, Fetch, 17, fetchById(id, 1));
    expect(after.responses[0]!.partitions[0]!.highWatermark).toBe(2);
    const described = await ask<unknown, { topics: { name: string; topicId: string; errorCode: number }[] }>(
      b.port,
      DescribeTopicPartitions,
      0,
      { topics: [{ name: 'orders' }], responsePartitionLimit: 2000, cursor: null },
    );
    expect(described.topics.map((t) => [t.name, t.topicId, t.errorCode])).toEqual([['orders', id, 0]]);

    // DeleteTopics v6 by id; the name made again is another topic.
    const deleted = await ask<
      unknown,
      { responses: { name: string | null; topicId: string; errorCode: number }[] }
    >(b.port, DeleteTopics, 6, { topics: [{ name: null, topicId: id }], topicNames: [], timeoutMs: 1000 });
    expect(deleted.responses).toEqual([{ name: 'orders', topicId: id, errorCode: 0, errorMessage: null }]);
    const again = await ask<unknown, { topics: { topicId: string; errorCode: number }[] }>(
      b.port,
      CreateTopics,
      7,
      {
        topics: [{ name: 'orders', numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] }],
        timeoutMs: 1000,
        validateOnly: false,
      },
    );
    expect(again.topics[0]!.errorCode).toBe(0);
    expect(again.topics[0]!.topicId).not.toBe(id);
    const gone = await ask<MetadataRequest, { topics: MetadataTopic[] }>(
      b.port,
      Metadata,
      12,
      metadataRequest([{ topicId: id, name: null }]),
    );
    expect(gone.topics.map((t) => [t.errorCode, t.name])).toEqual([[UNKNOWN_TOPIC_ID, null]]);
  });

  it('a data directory from before topic ids: each topic gets one on start, kept from then on', async () => {
    scratch = tempDir();
    b = await startBroker({}, scratch.dir);
    await ask(b.port, CreateTopics, 7, {
      topics: [{ name: 'old', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    });
    await b.stop();
    for (const p of [0, 1]) unlinkSync(join(scratch.dir, `old-${p}`, 'partition.metadata'));
    b = await startBroker({}, scratch.dir);
    const first = await ask<MetadataRequest, { topics: MetadataTopic[] }>(
      b.port,
      Metadata,
      12,
      metadataRequest([{ topicId: ZERO, name: 'old' }]),
    );
    const id = first.topics[0]!.topicId;
    expect(id).not.toBe(ZERO);
    b = await b.restart();
    const second = await ask<MetadataRequest, { topics: MetadataTopic[] }>(
      b.port,
      Metadata,
      12,
      metadataRequest([{ topicId: id, name: null }]),
    );
    expect(second.topics.map((t) => [t.errorCode, t.name, t.topicId])).toEqual([[0, 'old', id]]);
  });
});
