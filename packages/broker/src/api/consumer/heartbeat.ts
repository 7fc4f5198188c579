import { ErrorCode, errorName, Heartbeat } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** Heartbeat: keeps a member in its group; REBALANCE_IN_PROGRESS tells it to rejoin. */
export const heartbeatApi = defineApi({
  codec: Heartbeat,
  versions: { min: 0, max: 4 },
  handle: (ctx: Pick<BrokerContext, 'groups'>, _header, request) => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode[ctx.groups.heartbeat(request)],
  }),
  summary: (request, r) =>
    `${JSON.stringify(request.groupId.slice(0, 100))} member ${request.memberId} generation ${request.generationId} ${errorName(r.errorCode)}`,
});
