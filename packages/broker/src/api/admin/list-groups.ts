import { errorName, ListGroups } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * ListGroups: every group of either protocol, filtered by state (version 4+, KIP-518) and type (5+,
 * KIP-848: `classic` or `consumer`).
 */
export const listGroupsApi = defineApi({
  codec: ListGroups,
  versions: { min: 0, max: 5 },
  handle: (ctx: Pick<BrokerContext, 'groups'>, _header, request) => ({
    throttleTimeMs: 0,
    errorCode: 0,
    groups: ctx.groups.listGroups(request.statesFilter, request.typesFilter).map((g) => ({
      groupId: g.groupId,
      protocolType: g.protocolType,
      groupState: g.state,
      groupType: g.groupType,
    })),
  }),
  summary: (_request, r) => `${errorName(r.errorCode)} ${r.groups.length} group(s)`,
});
