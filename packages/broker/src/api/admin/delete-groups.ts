import { DeleteGroups, ErrorCode, errorName } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** DeleteGroups: an Empty group's offsets and metadata go (tombstones); NON_EMPTY_GROUP while it has members. */
export const deleteGroupsApi = defineApi({
  codec: DeleteGroups,
  versions: { min: 0, max: 2 },
  handle: (ctx: Pick<BrokerContext, 'groups'>, _header, request) => ({
    throttleTimeMs: 0,
    results: ctx.groups
      .deleteGroups(request.groupsNames)
      .map((r) => ({ groupId: r.groupId, errorCode: ErrorCode[r.errorCode] })),
  }),
  summary: (_request, r) =>
    r.results.map((g) => `${JSON.stringify(g.groupId.slice(0, 100))} ${errorName(g.errorCode)}`).join(', '),
});
