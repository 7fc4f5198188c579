import {
  type ApiCodec,
  DescribeGroups,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  FindCoordinator,
  JoinGroup,
  type JoinGroupRequest,
  Metadata,
  OffsetCommit,
  type OffsetCommitRequest,
  Writer,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs } from '../../support/clients.js';
import { RawClient, rawFrame } from '../../support/raw-client.js';

/**
 * Hostile and odd group requests: each gets a Kafka error code (or, for bytes Kafka cannot read, the
 * closed connection Kafka gives), memory stays bounded, and other groups carry on.
 */
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ groupInitialRebalanceDelayMs: 0 });
  const admin = kafkajs(b.port).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'exists', numPartitions: 2 }] });
  await admin.disconnect();
});
afterAll(() => b.stop());

function join(over: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: new Uint8Array([0, 0, 0, 0, 0, 0]) }],
    ...over,
  };
}

async function ask<Req, Res>(
  c: RawClient,
  codec: ApiCodec<Req, Res>,
  version: number,
  body: Req,
  correlationId = 1,
): Promise<Res> {
  c.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, correlationId, 'bad-input', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await c.next()).body;
}

/** A second group, on another connection, still joins and gets its generation. */
async function otherGroupWorks(groupId: string): Promise<void> {
  const c = await RawClient.connect(b.port);
  const first = await ask(c, JoinGroup, 6, join({ groupId }));
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  const joined = await ask(c, JoinGroup, 6, join({ groupId, memberId: first.memberId }));
  expect(joined).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, leader: first.memberId });
  c.close();
}

describe('bad group input', { timeout: 120_000 }, () => {
  it('a JoinGroup with 10 MB of protocol metadata: MESSAGE_TOO_LARGE, nothing kept', async () => {
    const c = await RawClient.connect(b.port);
    const big = join({
      groupId: 'huge',
      protocols: [{ name: 'range', metadata: new Uint8Array(10 * 1024 * 1024) }],
    });
    const r = await ask(c, JoinGroup, 6, big);
    expect(r.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(b.broker.groups.group('huge')).toBeUndefined();
    const described = await ask(c, DescribeGroups, 5, {
      groups: ['huge'],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({ groupState: 'Dead', members: [] });
    c.close();
    await otherGroupWorks('after-huge');
  });

  it('10,000 members joining one group: GROUP_MAX_SIZE_REACHED past group.max.size (1000), the group holds no more', async () => {
    const c = await RawClient.connect(b.port);
    const frames: Uint8Array[] = [];
    for (let i = 0; i < 10_000; i++)
      frames.push(encodeRequest(JoinGroup, 5, i, `member-${i}`, join({ groupId: 'crowd' })));
    c.send(Buffer.concat(frames));
    const codes = new Map<number, number>();
    for (let i = 0; i < 10_000; i++) {
      const { correlationId, body } = decodeResponse(JoinGroup, 5, await c.next());
      expect(correlationId).toBe(i);
      codes.set(body.errorCode, (codes.get(body.errorCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({
      [ErrorCode.MEMBER_ID_REQUIRED]: 1000,
      [ErrorCode.GROUP_MAX_SIZE_REACHED]: 9000,
    });
    const g = b.broker.groups.group('crowd')!;
    expect(g.members.size + g.pendingMembers.size).toBe(1000);
    c.close();
    await otherGroupWorks('beside-crowd');
  });

  it('unknown or mismatched protocol types: INCONSISTENT_GROUP_PROTOCOL', async () => {
    const c = await RawClient.connect(b.port);
    expect((await ask(c, JoinGroup, 6, join({ groupId: 'typed', protocolType: '' }))).errorCode).toBe(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    );
    expect((await ask(c, JoinGroup, 6, join({ groupId: 'typed', protocols: [] }))).errorCode).toBe(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    );
    c.close();
    await otherGroupWorks('typed');
    const d = await RawClient.connect(b.port);
    const other = await ask(d, JoinGroup, 6, join({ groupId: 'typed', protocolType: 'connect' }));
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    d.close();
  });

  it('a group id of 100,000 characters: the connection is closed (longer than any Kafka string), the broker carries on; 32,767 is served', async () => {
    const c = await RawClient.connect(b.port);
    // JoinGroup v6 (flexible): the group id as a compact string, its length + 1 as an unsigned varint.
    const length = new Writer().uvarint(100_001, 'length').toBytes();
    c.send(
      rawFrame(
        JoinGroup.apiKey,
        6,
        1,
        Buffer.concat([length, Buffer.alloc(100_000, 'x'), Buffer.alloc(16)]),
        true,
      ),
    );
    await c.closed;
    expect(b.lines.some((l) => l.includes('string length 100000 is over 32767'))).toBe(true);
    const d = await RawClient.connect(b.port);
    const longest = 'y'.repeat(32_767);
    expect((await ask(d, JoinGroup, 6, join({ groupId: longest }))).errorCode).toBe(
      ErrorCode.MEMBER_ID_REQUIRED,
    );
    const commit: OffsetCommitRequest = {
      groupId: longest,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: 'exists',
          partitions: [
            {
              partitionIndex: 0,
              committedOffset: 7,
              committedLeaderEpoch: -1,
              commitTimestamp: -1,
              committedMetadata: null,
            },
          ],
        },
      ],
    };
    // The group has a pending member but is Empty: a commit without a generation is accepted.
    expect((await ask(d, OffsetCommit, 8, commit)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    d.close();
  });

  it('__consumer_offsets is the coordinator’s: not created by CreateTopics, made with the coordinator’s partitions, not produced to, listed as internal', async () => {
    const auto = await startBroker({ autoCreateTopics: true, numPartitions: 3 });
    try {
      const admin = kafkajs(auto.port).admin();
      await admin.connect();
      await expect(
        admin.createTopics({ topics: [{ topic: '__consumer_offsets', numPartitions: 3 }] }),
      ).rejects.toMatchObject({ errors: [{ type: 'INVALID_REQUEST' }] });
      const before = await admin.fetchTopicMetadata({ topics: [] });
      expect(before.topics.map((t) => t.name)).not.toContain('__consumer_offsets');
      // A group's first FindCoordinator creates it, with offsets.topic.num.partitions partitions.
      const c = await RawClient.connect(auto.port);
      c.send(
        encodeRequest(FindCoordinator, 2, 1, 'bad-input', { key: 'g', keyType: 0, coordinatorKeys: [] }),
      );
      expect(decodeResponse(FindCoordinator, 2, await c.next()).body).toMatchObject({
        errorCode: 0,
        nodeId: 0,
        port: auto.port,
      });
      c.send(
        encodeRequest(Metadata, 1, 2, 'bad-input', {
          topics: [{ name: '__consumer_offsets', topicId: '00000000-0000-0000-0000-000000000000' }],
          allowAutoTopicCreation: true,
          includeClusterAuthorizedOperations: false,
          includeTopicAuthorizedOperations: false,
        }),
      );
      expect(decodeResponse(Metadata, 1, await c.next()).body.topics[0]).toMatchObject({
        name: '__consumer_offsets',
        isInternal: true,
        errorCode: 0,
      });
      c.close();
      const metadata = kafkajs(auto.port).admin();
      await metadata.connect();
      const after = await metadata.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
      expect(after.topics[0]!.partitions).toHaveLength(50);
      await metadata.disconnect();
      await admin.disconnect();
      const producer = kafkajs(auto.port).producer({ retry: { retries: 0 } });
      await producer.connect();
      await expect(
        producer.send({ topic: '__consumer_offsets', messages: [{ value: 'x', partition: 0 }] }),
      ).rejects.toThrow(/not valid|invalid/i);
      await producer.disconnect();
      expect(auto.lines.some((l) => l.includes('__consumer_offsets-0 INVALID_TOPIC_EXCEPTION'))).toBe(true);
    } finally {
      await auto.stop();
    }
  });

  it('Metadata auto-creation makes __consumer_offsets as the coordinator would: its partitions and configs, by the one creation path', async () => {
    const auto = await startBroker({ autoCreateTopics: true, numPartitions: 3 });
    try {
      const c = await RawClient.connect(auto.port);
      c.send(
        encodeRequest(Metadata, 1, 1, 'bad-input', {
          topics: [{ name: '__consumer_offsets', topicId: '00000000-0000-0000-0000-000000000000' }],
          allowAutoTopicCreation: true,
          includeClusterAuthorizedOperations: false,
          includeTopicAuthorizedOperations: false,
        }),
      );
      const topic = decodeResponse(Metadata, 1, await c.next()).body.topics[0]!;
      c.close();
      expect(topic).toMatchObject({ name: '__consumer_offsets', isInternal: true, errorCode: 0 });
      expect(topic.partitions).toHaveLength(50);
      expect(auto.lines).toContain(
        'info: created topic __consumer_offsets with 50 partition(s) (the group coordinator, offsets.topic.num.partitions): ' +
          'cleanup.policy=compact, compression.type=producer, segment.bytes=104857600',
      );
    } finally {
      await auto.stop();
    }
  });

  it('commits for topics or partitions that do not exist: UNKNOWN_TOPIC_OR_PARTITION for those, the others written', async () => {
    const c = await RawClient.connect(b.port);
    const p = (partitionIndex: number) => ({
      partitionIndex,
      committedOffset: 1,
      committedLeaderEpoch: -1,
      commitTimestamp: -1,
      committedMetadata: 'm',
    });
    const r = await ask(c, OffsetCommit, 8, {
      groupId: 'committer',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        { name: 'nowhere', partitions: [p(0)] },
        { name: 'exists', partitions: [p(0), p(5), p(-1)] },
      ],
    });
    expect(r.topics.map((t) => t.partitions.map((x) => x.errorCode))).toEqual([
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(b.broker.groups.fetchOffsets('committer', null).topics).toEqual([
      {
        name: 'exists',
        partitions: [expect.objectContaining({ partitionIndex: 0, offset: 1, metadata: 'm' })],
      },
    ]);
    c.close();
  });
});
