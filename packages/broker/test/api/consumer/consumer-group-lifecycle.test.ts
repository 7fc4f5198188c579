import {
  type ApiCodec,
  ConsumerGroupDescribe,
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  OffsetCommit,
  OffsetFetch,
} from '@klog/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, tempDir } from '../../support/broker.js';
import { createTopicsRaw, RawClient } from '../../support/raw-client.js';

/**
 * A consumer-protocol group over time, on the wire: a member that stops heartbeating is fenced once the
 * broker's session timeout passes, and a restarted broker resumes a group at its member epochs and
 * committed offsets (both from `__consumer_offsets`).
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

async function ask<Req, Res>(
  c: RawClient,
  codec: ApiCodec<Req, Res>,
  version: number,
  body: Req,
): Promise<Res> {
  c.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, 1, 'lifecycle', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await c.next()).body;
}

type Owned = { topicId: string; partitions: number[] }[];

/** One member's view: its epoch and what it owns; each heartbeat reports what it owns, as a client does. */
class Member {
  epoch = 0;
  owned: Owned = [];
  constructor(
    readonly c: RawClient,
    readonly groupId: string,
    readonly memberId: string,
  ) {}

  async beat(over: Partial<ConsumerGroupHeartbeatRequest> = {}): Promise<ConsumerGroupHeartbeatResponse> {
    const r = await ask(this.c, ConsumerGroupHeartbeat, 1, {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: this.epoch,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: this.epoch === 0 ? ['six'] : null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: this.epoch === 0 ? [] : this.owned,
      ...over,
    });
    if (r.errorCode === 0) {
      this.epoch = r.memberEpoch;
      if (r.assignment !== null) this.owned = r.assignment.topicPartitions;
    }
    return r;
  }

  partitions(): number[] {
    return this.owned.flatMap((tp) => tp.partitions).sort((a, b) => a - b);
  }
}

/** Paces a loop that waits for the broker to do something on its own clock (not a stand-in for the event). */
const pace = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('a consumer group over time', () => {
  it('a member that stops heartbeating is fenced after the session timeout; the other takes its partitions', async () => {
    const b = await startBroker({
      groupConsumerSessionTimeoutMs: 2000,
      groupConsumerMinSessionTimeoutMs: 1000,
      groupConsumerHeartbeatIntervalMs: 500,
      groupConsumerMinHeartbeatIntervalMs: 500,
    });
    cleanups.push(() => b.stop());
    await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
    const c = await RawClient.connect(b.port);
    cleanups.push(() => c.close());
    const silent = new Member(c, 'fence', 'ssssssssssssssssssssss');
    const alive = new Member(c, 'fence', 'aaaaaaaaaaaaaaaaaaaaaa');
    expect((await silent.beat()).errorCode).toBe(0);
    const joined = await alive.beat();
    expect(joined).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 500 });
    // Only `alive` heartbeats from here, until the broker says `silent` expired and `alive` owns all six.
    const expired = () => b.lines.filter((l) => l.includes(`member ${silent.memberId} expired`));
    while (expired().length === 0 || alive.partitions().length < 6) {
      expect((await alive.beat()).errorCode).toBe(0);
      await pace();
    }
    expect(expired()).toHaveLength(1);
    expect(expired()[0]).toContain('(no heartbeat within 2000 ms), fenced');
    expect(alive.partitions()).toEqual([0, 1, 2, 3, 4, 5]);
    const late = await silent.beat();
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const d = await ask(c, ConsumerGroupDescribe, 0, {
      groupIds: ['fence'],
      includeAuthorizedOperations: false,
    });
    expect(d.groups[0]!.members.map((m) => m.memberId)).toEqual([alive.memberId]);
  });

  it('after a restart the group resumes at its member epoch and committed offsets', async () => {
    const dir = tempDir();
    cleanups.push(() => dir.remove());
    let b = await startBroker({}, dir.dir);
    cleanups.push(() => b.stop());
    await createTopicsRaw(b.port, [{ name: 'six', partitions: 6 }]);
    let c = await RawClient.connect(b.port);
    const m = new Member(c, 'resume', 'rrrrrrrrrrrrrrrrrrrrrr');
    expect((await m.beat()).errorCode).toBe(0);
    expect(m.partitions()).toEqual([0, 1, 2, 3, 4, 5]);
    const epoch = m.epoch;
    const committed = await ask(c, OffsetCommit, 9, {
      groupId: 'resume',
      generationIdOrMemberEpoch: epoch,
      memberId: m.memberId,
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: 'six',
          partitions: [0, 3, 5].map((p) => ({
            partitionIndex: p,
            committedOffset: 100 + p,
            committedLeaderEpoch: -1,
            commitTimestamp: -1,
            committedMetadata: null,
          })),
        },
      ],
    });
    expect(committed.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([0, 0, 0]);
    c.close();

    cleanups.pop();
    b = await b.restart();
    cleanups.push(() => b.stop());
    c = await RawClient.connect(b.port);
    cleanups.push(() => c.close());
    const fetched = await ask(c, OffsetFetch, 9, {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'resume', memberId: m.memberId, memberEpoch: epoch, topics: null }],
      requireStable: false,
    });
    expect(fetched.groups[0]!.errorCode).toBe(0);
    expect(
      fetched.groups[0]!.topics.flatMap((t) =>
        t.partitions.map((p) => [t.name, p.partitionIndex, p.committedOffset]),
      ),
    ).toEqual([
      ['six', 0, 100],
      ['six', 3, 103],
      ['six', 5, 105],
    ]);
    // The member heartbeats at its old epoch, owning what it owned: no new epoch, no reassignment.
    const again = new Member(c, 'resume', m.memberId);
    again.epoch = epoch;
    again.owned = m.owned;
    const r = await again.beat();
    expect(r).toMatchObject({ errorCode: 0, memberEpoch: epoch });
    expect(again.partitions()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
