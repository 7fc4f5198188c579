/**
 * ConsumerGroupDescribe (key 69, versions 0-1, as Kafka 4.1): a consumer group (KIP-848) as its coordinator
 * holds it (Kafka's `GroupMetadataManager.consumerGroupDescribe`, `ConsumerGroup.asDescribedGroup`). A group
 * that does not exist or is a classic one answers GROUP_ID_NOT_FOUND; an empty id INVALID_GROUP_ID. Gaps:
 * no ACLs, so AuthorizedOperations is Kafka's "not asked" (-2147483648) whatever IncludeAuthorizedOperations says.
 */
import {
  ConsumerGroupDescribe,
  type ConsumerGroupDescribeRequest,
  type ConsumerGroupDescribeResponse,
  ErrorCode,
  errorName,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

function handleConsumerGroupDescribe(
  ctx: Pick<BrokerContext, 'groups'>,
  request: ConsumerGroupDescribeRequest,
): ConsumerGroupDescribeResponse {
  const assignment = (
    a: readonly { topicId: string; topicName: string; partitions: readonly number[] }[],
  ) => ({
    topicPartitions: a.map((tp) => ({
      topicId: tp.topicId,
      topicName: tp.topicName,
      partitions: [...tp.partitions],
    })),
  });
  return {
    throttleTimeMs: 0,
    groups: ctx.groups.consumerGroupDescribe(request.groupIds).map((g) =>
      g.kind === 'error'
        ? {
            errorCode: ErrorCode[g.code],
            errorMessage: g.message,
            groupId: g.groupId,
            groupState: '',
            groupEpoch: 0,
            assignmentEpoch: 0,
            assignorName: '',
            members: [],
            authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
          }
        : {
            errorCode: 0,
            errorMessage: null,
            groupId: g.groupId,
            groupState: g.groupState,
            groupEpoch: g.groupEpoch,
            assignmentEpoch: g.assignmentEpoch,
            assignorName: g.assignorName,
            members: g.members.map((m) => ({
              memberId: m.memberId,
              instanceId: m.instanceId,
              rackId: m.rackId,
              memberEpoch: m.memberEpoch,
              clientId: m.clientId,
              clientHost: m.clientHost,
              subscribedTopicNames: [...m.subscribedTopicNames],
              subscribedTopicRegex: m.subscribedTopicRegex,
              assignment: assignment(m.assignment),
              targetAssignment: assignment(m.targetAssignment),
              memberType: m.memberType,
            })),
            authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
          },
    ),
  };
}

export const consumerGroupDescribeApi = defineApi({
  codec: ConsumerGroupDescribe,
  versions: { min: 0, max: 1 },
  handle: (ctx, _header, request) => handleConsumerGroupDescribe(ctx, request),
  summary: (request, r) =>
    `${request.groupIds.length} group(s): ${r.groups.map((g) => `${JSON.stringify(g.groupId.slice(0, 100))} ${errorName(g.errorCode)}`).join(', ')}`,
});
