import { ErrorCode, errorName, OffsetDelete } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** OffsetDelete (KIP-496): a group's offsets of topics it does not consume now (GROUP_SUBSCRIBED_TO_TOPIC otherwise). */
export const offsetDeleteApi = defineApi({
  codec: OffsetDelete,
  versions: { min: 0, max: 0 },
  handle(ctx: Pick<BrokerContext, 'groups'>, _header, request) {
    const r = ctx.groups.deleteOffsets(
      request.groupId,
      request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    return {
      errorCode: ErrorCode[r.errorCode],
      throttleTimeMs: 0,
      topics: r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode[p.errorCode],
        })),
      })),
    };
  },
  summary: (request, r) => `${JSON.stringify(request.groupId.slice(0, 100))} ${errorName(r.errorCode)}`,
});
