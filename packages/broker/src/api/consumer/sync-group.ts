import {
  ErrorCode,
  errorName,
  type RequestHeader,
  SyncGroup,
  type SyncGroupRequest,
  type SyncGroupResponse,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * SyncGroup: a follower's waits for the leader's; the leader's carries every member's assignment, which
 * the coordinator writes to `__consumer_offsets` and hands to each member as the leader sent it.
 */
async function handleSyncGroup(
  ctx: Pick<BrokerContext, 'groups'>,
  _header: RequestHeader,
  request: SyncGroupRequest,
): Promise<SyncGroupResponse> {
  const r = await ctx.groups.sync({
    groupId: request.groupId,
    generationId: request.generationId,
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId,
    protocolType: null,
    protocolName: null,
    // Copies: the request's bytes are a view of the connection's frame buffer, reused by the next request.
    assignments: request.assignments.map((a) => ({
      memberId: a.memberId,
      assignment: new Uint8Array(a.assignment),
    })),
  });
  return { throttleTimeMs: 0, errorCode: ErrorCode[r.errorCode], assignment: r.assignment };
}

export const syncGroupApi = defineApi({
  codec: SyncGroup,
  versions: { min: 0, max: 4 },
  handle: handleSyncGroup,
  summary: (request, r) =>
    `${JSON.stringify(request.groupId.slice(0, 100))} ${errorName(r.errorCode)} member ${request.memberId} generation ${request.generationId}, ${r.assignment.length} B assigned`,
});
