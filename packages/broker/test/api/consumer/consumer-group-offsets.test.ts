import {
  type ApiCodec,
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  OffsetCommit,
  type OffsetCommitRequest,
  OffsetFetch,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { createTopicsRaw, RawClient } from '../../support/raw-client.js';

/**
 * OffsetCommit v9 and OffsetFetch v9 for a consumer-protocol (KIP-848) group, over raw frames: the member
 * id and member epoch are checked as Kafka 4.1's `ConsumerGroup.validateOffsetCommit` and
 * `validateOffsetFetch` check them.
 */
let b: TestBroker;
let c: RawClient;
beforeAll(async () => {
  b = await startBroker();
  await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
  c = await RawClient.connect(b.port);
});
afterAll(async () => {
  c.close();
  await b.stop();
});

async function ask<Req, Res>(codec: ApiCodec<Req, Res>, version: number, body: Req): Promise<Res> {
  c.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, 1, 'kip-848', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await c.next()).body;
}

const MEMBER = 'mmmmmmmmmmmmmmmmmmmmmm';

/** One member joins `groupId` (epoch 0) and is answered its epoch, 1. */
async function joinOne(groupId: string): Promise<number> {
  const request: ConsumerGroupHeartbeatRequest = {
    groupId,
    memberId: MEMBER,
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['six'],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  };
  const r = await ask(ConsumerGroupHeartbeat, 1, request);
  expect(r.errorCode, r.errorMessage ?? '').toBe(0);
  return r.memberEpoch;
}

function commit(groupId: string, memberId: string, epoch: number, offset = 42): OffsetCommitRequest {
  return {
    groupId,
    generationIdOrMemberEpoch: epoch,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [
      {
        name: 'six',
        partitions: [
          {
            partitionIndex: 0,
            committedOffset: offset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1,
            committedMetadata: 'm',
          },
        ],
      },
    ],
  };
}

function fetchV9(groupId: string, memberId: string | null, memberEpoch: number) {
  return ask(OffsetFetch, 9, {
    groupId: '',
    topics: [],
    groups: [{ groupId, memberId, memberEpoch, topics: [{ name: 'six', partitionIndexes: [0] }] }],
    requireStable: false,
  });
}

const errorOf = (r: { topics: { partitions: { errorCode: number }[] }[] }) =>
  r.topics[0]!.partitions[0]!.errorCode;

describe('OffsetCommit and OffsetFetch v9 for a consumer group', () => {
  it('a v9 commit with the member epoch is written and fetched back, by the member and by an admin tool', async () => {
    const epoch = await joinOne('ok');
    expect(epoch).toBe(1);
    expect(errorOf(await ask(OffsetCommit, 9, commit('ok', MEMBER, epoch)))).toBe(ErrorCode.NONE);
    const byMember = await fetchV9('ok', MEMBER, epoch);
    expect(byMember.groups[0]).toMatchObject({ groupId: 'ok', errorCode: 0 });
    expect(byMember.groups[0]!.topics[0]!.partitions[0]).toMatchObject({
      partitionIndex: 0,
      committedOffset: 42,
      metadata: 'm',
      errorCode: 0,
    });
    // No member id (an admin tool, or OffsetFetch v8): allowed.
    const byAdmin = await fetchV9('ok', null, -1);
    expect(byAdmin.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(42);
    const v8 = await ask(OffsetFetch, 8, {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'ok', memberId: null, memberEpoch: -1, topics: null }],
      requireStable: false,
    });
    expect(v8.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(42);
  });

  it('no group yet and generation -1 with a member id (librdkafka assign()): a simple group, the commit kept', async () => {
    // Kafka's OffsetMetadataManager.validateOffsetCommit looks only at the generation: librdkafka's assign()
    // consumer sends its own member id with -1. From v9 a generation >= 0 for an unknown group is refused.
    for (const version of [8, 9]) {
      const groupId = `assign-${version}`;
      expect(errorOf(await ask(OffsetCommit, version, commit(groupId, 'rdkafka-1234', -1, 5)))).toBe(
        ErrorCode.NONE,
      );
      const back = await fetchV9(groupId, null, -1);
      expect(back.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(5);
    }
    expect(errorOf(await ask(OffsetCommit, 9, commit('assign-gen', 'rdkafka-1234', 3)))).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    expect(errorOf(await ask(OffsetCommit, 8, commit('assign-gen', 'rdkafka-1234', 3)))).toBe(
      ErrorCode.ILLEGAL_GENERATION,
    );
  });

  it('a stale member epoch: STALE_MEMBER_EPOCH, for a commit and a fetch, and nothing is written', async () => {
    const epoch = await joinOne('stale');
    expect(errorOf(await ask(OffsetCommit, 9, commit('stale', MEMBER, epoch, 7)))).toBe(ErrorCode.NONE);
    expect(errorOf(await ask(OffsetCommit, 9, commit('stale', MEMBER, epoch - 1, 8)))).toBe(
      ErrorCode.STALE_MEMBER_EPOCH,
    );
    expect((await fetchV9('stale', MEMBER, epoch + 1)).groups[0]!.errorCode).toBe(
      ErrorCode.STALE_MEMBER_EPOCH,
    );
    const after = await fetchV9('stale', MEMBER, epoch);
    expect(after.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(7);
  });

  it('a member the group does not know: UNKNOWN_MEMBER_ID, for a commit and a fetch', async () => {
    const epoch = await joinOne('unknown');
    expect(errorOf(await ask(OffsetCommit, 9, commit('unknown', 'nobody', epoch)))).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
    expect((await fetchV9('unknown', 'nobody', epoch)).groups[0]!.errorCode).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
  });

  it("a consumer-protocol member's commit below v9: UNSUPPORTED_VERSION", async () => {
    const epoch = await joinOne('old');
    expect(errorOf(await ask(OffsetCommit, 8, commit('old', MEMBER, epoch)))).toBe(
      ErrorCode.UNSUPPORTED_VERSION,
    );
    expect((await fetchV9('old', MEMBER, epoch)).groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(
      -1,
    );
  });

  it('v9 to a group that does not exist: GROUP_ID_NOT_FOUND (v8 keeps ILLEGAL_GENERATION)', async () => {
    expect(errorOf(await ask(OffsetCommit, 9, commit('none', MEMBER, 3)))).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(errorOf(await ask(OffsetCommit, 8, commit('none', MEMBER, 3)))).toBe(ErrorCode.ILLEGAL_GENERATION);
  });
});
