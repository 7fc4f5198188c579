import {
  ErrorCode,
  errorName,
  JoinGroup,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type RequestHeader,
} from '@klog/protocol';
import { type ClientInfo, defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * JoinGroup: the group coordinator's (group/group-coordinator.ts). The answer waits until the rebalance
 * completes — every member rejoined, or the rebalance timeout — as Kafka parks it in its join purgatory;
 * the connection waits with it. Version 4 and later get MEMBER_ID_REQUIRED on a first join (KIP-394).
 */
async function handleJoinGroup(
  ctx: Pick<BrokerContext, 'groups'>,
  header: RequestHeader,
  request: JoinGroupRequest,
  client: ClientInfo,
): Promise<JoinGroupResponse> {
  const r = await ctx.groups.join({
    groupId: request.groupId,
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId,
    sessionTimeoutMs: request.sessionTimeoutMs,
    rebalanceTimeoutMs: request.rebalanceTimeoutMs,
    protocolType: request.protocolType,
    // Copies: the request's bytes are a view of the connection's frame buffer, reused by the next request.
    protocols: request.protocols.map((p) => ({ name: p.name, metadata: new Uint8Array(p.metadata) })),
    clientId: header.clientId ?? '',
    clientHost: `/${client.host}`,
    requireKnownMemberId: header.apiVersion >= 4,
  });
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode[r.errorCode],
    generationId: r.generationId,
    protocolName: r.protocolName ?? '',
    leader: r.leader,
    memberId: r.memberId,
    members: r.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata,
    })),
  };
}

export const joinGroupApi = defineApi({
  codec: JoinGroup,
  versions: { min: 0, max: 6 },
  handle: handleJoinGroup,
  summary: (request, r) =>
    `${JSON.stringify(request.groupId.slice(0, 100))} ${errorName(r.errorCode)} member ${r.memberId} generation ${r.generationId}` +
    (r.members.length > 0 ? ` (leader of ${r.members.length})` : ''),
});
