import {
  ErrorCode,
  OffsetFetch,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  type RequestHeader,
} from '@klog/protocol';
import type { FetchedOffsets } from '../../group/group-coordinator.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

function partitionsOf(f: FetchedOffsets) {
  return f.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      committedOffset: p.offset,
      committedLeaderEpoch: p.leaderEpoch,
      metadata: p.metadata,
      errorCode: ErrorCode[p.errorCode],
    })),
  }));
}

/**
 * OffsetFetch: the committed offsets asked for, -1 where none is (a null topic list, from version 2, asks
 * for all of the group's). Version 8 asks for several groups at once (KIP-709); version 9 names the member
 * and its epoch, which a consumer group checks (Kafka's `ConsumerGroup.validateOffsetFetch`).
 */
function handleOffsetFetch(
  ctx: Pick<BrokerContext, 'groups'>,
  header: RequestHeader,
  request: OffsetFetchRequest,
): OffsetFetchResponse {
  if (header.apiVersion >= 8) {
    return {
      throttleTimeMs: 0,
      topics: [],
      errorCode: 0,
      groups: request.groups.map((g) => {
        const f = ctx.groups.fetchOffsets(g.groupId, g.topics, g.memberId, g.memberEpoch);
        return { groupId: g.groupId, topics: partitionsOf(f), errorCode: ErrorCode[f.errorCode] };
      }),
    };
  }
  const f = ctx.groups.fetchOffsets(request.groupId, request.topics);
  return { throttleTimeMs: 0, topics: partitionsOf(f), errorCode: ErrorCode[f.errorCode], groups: [] };
}

export const offsetFetchApi = defineApi({
  codec: OffsetFetch,
  versions: { min: 1, max: 9 },
  handle: handleOffsetFetch,
  summary(request, response) {
    const groups =
      response.groups.length > 0
        ? response.groups
        : [{ groupId: request.groupId, topics: response.topics, errorCode: response.errorCode }];
    return groups
      .map((g) => {
        const parts = g.topics.flatMap((t) =>
          t.partitions.map((p) => `${t.name}-${p.partitionIndex}@${p.committedOffset}`),
        );
        return `${JSON.stringify(g.groupId.slice(0, 100))}: ${parts.slice(0, 10).join(', ')}${parts.length > 10 ? ` … (${parts.length})` : ''}`;
      })
      .join('; ');
  },
});
