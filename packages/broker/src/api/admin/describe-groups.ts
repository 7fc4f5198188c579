import {
  DescribeGroups,
  type DescribeGroupsRequest,
  type DescribeGroupsResponse,
  errorName,
  type RequestHeader,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** "No authorized operations were asked for" (Kafka's `Int.MinValue` default). */
const NO_OPERATIONS = -2147483648;
/** Without an authorizer every group operation is allowed: READ 3, DELETE 6, DESCRIBE 8. */
const GROUP_OPERATIONS = [3, 6, 8].reduce((bits, op) => bits | (1 << op), 0);

/**
 * DescribeGroups: state, protocol and members; a member's metadata and assignment, as the clients sent
 * them, once the group is Stable. A group that does not exist is described as Dead with no members, as
 * Kafka does before version 6.
 */
function handleDescribeGroups(
  ctx: Pick<BrokerContext, 'groups'>,
  _header: RequestHeader,
  request: DescribeGroupsRequest,
): DescribeGroupsResponse {
  return {
    throttleTimeMs: 0,
    groups: request.groups.map((groupId) => {
      const g = ctx.groups.describe(groupId);
      const operations = request.includeAuthorizedOperations ? GROUP_OPERATIONS : NO_OPERATIONS;
      if (g === undefined) {
        return {
          errorCode: 0,
          groupId,
          groupState: 'Dead',
          protocolType: '',
          protocolData: '',
          members: [],
          authorizedOperations: operations,
        };
      }
      return {
        errorCode: 0,
        groupId,
        groupState: g.state,
        protocolType: g.protocolType,
        protocolData: g.protocolName,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: m.metadata,
          memberAssignment: m.assignment,
        })),
        authorizedOperations: operations,
      };
    }),
  };
}

export const describeGroupsApi = defineApi({
  codec: DescribeGroups,
  versions: { min: 0, max: 5 },
  handle: handleDescribeGroups,
  summary: (_request, r) =>
    r.groups
      .map(
        (g) =>
          `${JSON.stringify(g.groupId.slice(0, 100))} ${g.groupState} (${g.members.length}) ${errorName(g.errorCode)}`,
      )
      .join(', '),
});
