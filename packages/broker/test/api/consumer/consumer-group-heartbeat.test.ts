import {
  type ApiCodec,
  ConsumerGroupDescribe,
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  decodeResponse,
  ErrorCode,
  encodeRequest,
} from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { createTopicsRaw, RawClient } from '../../support/raw-client.js';

/** ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69) over raw frames: the request checks and the join. */
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker();
  await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
});
afterAll(() => b.stop());

async function ask<Req, Res>(
  c: RawClient,
  codec: ApiCodec<Req, Res>,
  version: number,
  body: Req,
): Promise<Res> {
  c.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, 1, 'kip-848', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await c.next()).body;
}

function join(over: Partial<ConsumerGroupHeartbeatRequest> = {}): ConsumerGroupHeartbeatRequest {
  return {
    groupId: 'g',
    memberId: 'AAAAAAAAAAAAAAAAAAAAAA',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
    ...over,
  };
}

describe('ConsumerGroupHeartbeat and ConsumerGroupDescribe on the wire', () => {
  it("an assignor the broker lacks: UNSUPPORTED_ASSIGNOR with Kafka's message, and one log line", async () => {
    const c = await RawClient.connect(b.port);
    const r = await ask(c, ConsumerGroupHeartbeat, 1, join({ groupId: 'odd', serverAssignor: 'sticky' }));
    expect(r.errorCode).toBe(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect(r.errorMessage).toBe(
      'ServerAssignor sticky is not supported. Supported assignors: uniform, range.',
    );
    expect(b.lines.filter((l) => l.includes('ServerAssignor sticky is not supported'))).toHaveLength(1);
    c.close();
  });

  it('a v1 join without a member id, or with owned partitions: INVALID_REQUEST', async () => {
    const c = await RawClient.connect(b.port);
    const noId = await ask(c, ConsumerGroupHeartbeat, 1, join({ memberId: '' }));
    expect(noId).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: "MemberId can't be empty.",
    });
    const owned = await ask(c, ConsumerGroupHeartbeat, 1, join({ topicPartitions: null }));
    expect(owned.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    c.close();
  });

  it('a refused heartbeat is fatal to the client, so the broker logs it: one line per interval, with the member and the reason', async () => {
    // A broker of its own: the line is limited per kind of refusal across the broker, and the tests above refuse too.
    const own = await startBroker();
    try {
      const c = await RawClient.connect(own.port);
      // librdkafka 2.15.1's race (FINDINGS): epoch 0 without a rebalance timeout, sent twice in a row.
      const bad = join({ groupId: 'racy', memberId: 'BBBBBBBBBBBBBBBBBBBBBB', rebalanceTimeoutMs: -1 });
      for (let i = 0; i < 2; i++) {
        const r = await ask(c, ConsumerGroupHeartbeat, 1, bad);
        expect(r).toMatchObject({
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: 'RebalanceTimeoutMs must be provided in first request.',
        });
      }
      expect(own.lines.filter((l) => l.includes('refused'))).toEqual([
        'warn: group "racy": member "BBBBBBBBBBBBBBBBBBBBBB" epoch 0 refused, INVALID_REQUEST: RebalanceTimeoutMs must be provided in first request.',
      ]);
      c.close();
    } finally {
      await own.stop();
    }
  });

  it('a member joins at epoch 1, ConsumerGroupDescribe shows it; a classic or unknown group is GROUP_ID_NOT_FOUND', async () => {
    const c = await RawClient.connect(b.port);
    const r = await ask(c, ConsumerGroupHeartbeat, 1, join({ groupId: 'joined' }));
    expect(r).toMatchObject({
      errorCode: 0,
      memberId: 'AAAAAAAAAAAAAAAAAAAAAA',
      memberEpoch: 1,
      heartbeatIntervalMs: 5000,
    });
    const d = await ask(c, ConsumerGroupDescribe, 1, {
      groupIds: ['joined', 'nobody'],
      includeAuthorizedOperations: false,
    });
    expect(d.groups[0]).toMatchObject({
      errorCode: 0,
      groupId: 'joined',
      groupEpoch: 1,
      assignorName: 'uniform',
    });
    expect(d.groups[0]!.members.map((m) => [m.memberId, m.memberEpoch, m.clientId])).toEqual([
      ['AAAAAAAAAAAAAAAAAAAAAA', 1, 'kip-848'],
    ]);
    expect(d.groups[1]).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, groupId: 'nobody' });
    // It leaves (epoch -1): the group is empty.
    const left = await ask(
      c,
      ConsumerGroupHeartbeat,
      1,
      join({ groupId: 'joined', memberEpoch: -1, topicPartitions: null }),
    );
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    const after = await ask(c, ConsumerGroupDescribe, 0, {
      groupIds: ['joined'],
      includeAuthorizedOperations: false,
    });
    expect(after.groups[0]).toMatchObject({ errorCode: 0, groupState: 'Empty', members: [] });
    c.close();
  });

  it('two members share 6 partitions, none owned twice at any step; when one leaves (epoch -1) the other takes all', async () => {
    const c = await RawClient.connect(b.port);
    type Owned = { topicId: string; partitions: number[] }[];
    const members = new Map<string, { epoch: number; owned: Owned }>();
    const beat = async (id: string, over: Partial<ConsumerGroupHeartbeatRequest> = {}) => {
      const m = members.get(id);
      const r = await ask(
        c,
        ConsumerGroupHeartbeat,
        1,
        join({
          groupId: 'share',
          memberId: id,
          subscribedTopicNames: ['six'],
          ...(m === undefined ? {} : { memberEpoch: m.epoch, topicPartitions: m.owned }),
          ...over,
        }),
      );
      expect(r.errorCode, r.errorMessage ?? '').toBe(0);
      members.set(id, { epoch: r.memberEpoch, owned: r.assignment?.topicPartitions ?? m?.owned ?? [] });
      // No partition is owned by two members at any point.
      const all = [...members.values()].flatMap((x) => x.owned.flatMap((tp) => tp.partitions));
      expect(new Set(all).size).toBe(all.length);
      return r;
    };
    const a = 'aaaaaaaaaaaaaaaaaaaaaa';
    const d = 'dddddddddddddddddddddd';
    await beat(a);
    await beat(d);
    for (let round = 0; round < 4; round++) {
      await beat(a);
      await beat(d);
    }
    const count = (id: string) => members.get(id)!.owned.flatMap((tp) => tp.partitions).length;
    expect([count(a), count(d)]).toEqual([3, 3]);
    await beat(d, { memberEpoch: -1, topicPartitions: null });
    members.delete(d);
    await beat(a);
    expect(
      members
        .get(a)!
        .owned.flatMap((tp) => tp.partitions)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5]);
    c.close();
  });
});
