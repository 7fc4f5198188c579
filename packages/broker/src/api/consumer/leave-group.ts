import {
  ErrorCode,
  errorName,
  LeaveGroup,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  type RequestHeader,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** LeaveGroup: one member (versions 0-2) or several, by member id or group instance id (3+, KIP-345). */
function handleLeaveGroup(
  ctx: Pick<BrokerContext, 'groups'>,
  header: RequestHeader,
  request: LeaveGroupRequest,
): LeaveGroupResponse {
  const batch = header.apiVersion >= 3;
  const members = batch ? request.members : [{ memberId: request.memberId, groupInstanceId: null }];
  const r = ctx.groups.leave(request.groupId, members);
  if (!batch) {
    // One member: its error is the response's.
    const errorCode = r.errorCode !== 'NONE' ? r.errorCode : (r.members[0]?.errorCode ?? 'NONE');
    return { throttleTimeMs: 0, errorCode: ErrorCode[errorCode], members: [] };
  }
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode[r.errorCode],
    members: r.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      errorCode: ErrorCode[m.errorCode],
    })),
  };
}

export const leaveGroupApi = defineApi({
  codec: LeaveGroup,
  versions: { min: 0, max: 4 },
  handle: handleLeaveGroup,
  summary: (request, r) =>
    `${JSON.stringify(request.groupId.slice(0, 100))} ${errorName(r.errorCode)}` +
    (r.members.length > 0
      ? `: ${r.members.map((m) => `${m.memberId || m.groupInstanceId} ${errorName(m.errorCode)}`).join(', ')}`
      : ` member ${request.memberId}`),
});
