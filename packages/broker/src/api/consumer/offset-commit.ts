import {
  ErrorCode,
  errorName,
  OffsetCommit,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type RequestHeader,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * OffsetCommit: each partition's offset written to `__consumer_offsets` (OffsetCommitValue), checked as
 * Kafka checks it — the member and generation (a classic group) or member epoch (a consumer group, v9 of
 * KIP-848: STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION below v9), the topic-partition
 * exists, the metadata's size.
 */
function handleOffsetCommit(
  ctx: Pick<BrokerContext, 'groups'>,
  header: RequestHeader,
  request: OffsetCommitRequest,
): OffsetCommitResponse {
  const results = ctx.groups.commit({
    groupId: request.groupId,
    generationId: request.generationIdOrMemberEpoch,
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId,
    retentionTimeMs: request.retentionTimeMs,
    apiVersion: header.apiVersion,
    topics: request.topics,
  });
  return {
    throttleTimeMs: 0,
    topics: results.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: ErrorCode[p.errorCode],
      })),
    })),
  };
}

export const offsetCommitApi = defineApi({
  codec: OffsetCommit,
  versions: { min: 1, max: 9 },
  handle: handleOffsetCommit,
  summary(request, response) {
    const parts = response.topics.flatMap((t, i) =>
      t.partitions.map(
        (p, j) =>
          `${t.name}-${p.partitionIndex}@${request.topics[i]?.partitions[j]?.committedOffset} ${errorName(p.errorCode)}`,
      ),
    );
    return `${JSON.stringify(request.groupId.slice(0, 100))} generation ${request.generationIdOrMemberEpoch}: ${parts.slice(0, 10).join(', ')}${parts.length > 10 ? ` … (${parts.length})` : ''}`;
  },
});
