// Raw group requests over a RawClient, shared by the tests of both group protocols in one broker
// (consumer-group-mixed, consumer-group-migration): one request answered, a ConsumerGroupHeartbeat as a
// joining member sends it, and a Java consumer's embedded subscription.
import {
  type ApiCodec,
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  decodeResponse,
  encodeRequest,
  Writer,
} from '@klog/protocol';
import type { RawClient } from './raw-client.js';

/** One request on `client`, and its answer's body. */
export async function askOn<Req, Res>(
  client: RawClient,
  codec: ApiCodec<Req, Res>,
  version: number,
  body: Req,
): Promise<Res> {
  client.send(encodeRequest(codec as ApiCodec<Req, unknown>, version, 1, 'groups', body));
  return decodeResponse(codec as ApiCodec<unknown, Res>, version, await client.next()).body;
}

/** The member id the tests' consumer-protocol member chooses (ConsumerGroupHeartbeat v1, KIP-1082). */
export const MEMBER = 'mmmmmmmmmmmmmmmmmmmmmm';

/** ConsumerGroupHeartbeat v1: a join (epoch 0) of MEMBER to the topic `six`, with `over`'s fields over it. */
export function consumerGroupHeartbeat(
  client: RawClient,
  groupId: string,
  over: Partial<ConsumerGroupHeartbeatRequest> = {},
) {
  return askOn(client, ConsumerGroupHeartbeat, 1, {
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
    ...over,
  });
}

export type OwnedPartitions = readonly { topic: string; partitions: readonly number[] }[];

/**
 * A Java consumer's `ConsumerProtocolSubscription`: its topics and no user data; from version 1 what it
 * owns (version 0 has no such field).
 */
export function consumerSubscription(
  topics: readonly string[],
  version: 0 | 1 = 1,
  owned: OwnedPartitions = [],
): Uint8Array {
  const w = new Writer().int16(version, 'version').arrayLength(topics.length, 'topics');
  for (const t of topics) w.string(t, 'topic');
  w.nullableBytes(null, 'userData');
  if (version === 0) return w.toBytes();
  w.arrayLength(owned.length, 'ownedPartitions');
  for (const o of owned) {
    w.string(o.topic, 'topic').arrayLength(o.partitions.length, 'partitions');
    for (const p of o.partitions) w.int32(p, 'partition');
  }
  return w.toBytes();
}
