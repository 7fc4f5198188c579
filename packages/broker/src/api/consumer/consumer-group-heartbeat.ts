/**
 * ConsumerGroupHeartbeat (key 68, versions 0-1, as Kafka 4.1): the consumer group protocol (KIP-848). The
 * request is checked first as Kafka's `GroupCoordinatorService.consumerGroupHeartbeat` does
 * (`throwIfConsumerGroupHeartbeatRequestIsInvalid`: INVALID_REQUEST with its message, UNSUPPORTED_ASSIGNOR),
 * then the coordinator's engine (group/modern/) answers; a join to a non-empty classic group upgrades it
 * (group/group-conversion.ts). Gaps: no rack-aware assignment (klog has no racks), a regex is a JavaScript
 * RegExp matched whole, not RE2J.
 */
import {
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  ErrorCode,
  type ErrorName,
  errorName,
  type RequestHeader,
} from '@klog/protocol';
import { type ClientInfo, defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** The epochs with a meaning (Kafka's `ConsumerGroupHeartbeatRequest` constants). */
const JOIN_GROUP_MEMBER_EPOCH = 0;
const LEAVE_GROUP_MEMBER_EPOCH = -1;
const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

type Refusal = { readonly code: ErrorName | 'UNSUPPORTED_ASSIGNOR'; readonly message: string };

/** Kafka's `throwIfConsumerGroupHeartbeatRequestIsInvalid` (GroupCoordinatorService), in its order. */
export function validateConsumerGroupHeartbeat(
  request: ConsumerGroupHeartbeatRequest,
  apiVersion: number,
  assignors: readonly string[],
): Refusal | undefined {
  const invalid = (message: string): Refusal => ({ code: 'INVALID_REQUEST', message });
  const blank = (s: string | null) => s !== null && s.trim() === '';
  if (
    request.memberId === '' &&
    (apiVersion >= 1 || request.memberEpoch > 0 || request.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH)
  )
    return invalid("MemberId can't be empty.");
  if (request.groupId.trim() === '') return invalid("GroupId can't be empty.");
  if (blank(request.instanceId)) return invalid("InstanceId can't be empty.");
  if (blank(request.rackId)) return invalid("RackId can't be empty.");
  if (request.memberEpoch === JOIN_GROUP_MEMBER_EPOCH) {
    if (request.rebalanceTimeoutMs === -1)
      return invalid('RebalanceTimeoutMs must be provided in first request.');
    if (request.topicPartitions === null || request.topicPartitions.length > 0)
      return invalid('TopicPartitions must be empty when (re-)joining.');
    if (request.subscribedTopicNames === null && request.subscribedTopicRegex === null)
      return invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
  } else if (request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (request.instanceId === null) return invalid("InstanceId can't be null.");
  } else if (request.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    return invalid(`MemberEpoch is invalid: ${request.memberEpoch}.`);
  }
  if (request.serverAssignor !== null && !assignors.includes(request.serverAssignor))
    return {
      code: 'UNSUPPORTED_ASSIGNOR',
      message: `ServerAssignor ${request.serverAssignor} is not supported. Supported assignors: ${assignors.join(', ')}.`,
    };
  return undefined;
}

function errorResponse(code: keyof typeof ErrorCode, message: string | null): ConsumerGroupHeartbeatResponse {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode[code],
    errorMessage: message,
    memberId: null,
    memberEpoch: -1,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}

function handleConsumerGroupHeartbeat(
  ctx: Pick<BrokerContext, 'groups' | 'limited'>,
  header: RequestHeader,
  request: ConsumerGroupHeartbeatRequest,
  client: ClientInfo,
): ConsumerGroupHeartbeatResponse {
  const refused = validateConsumerGroupHeartbeat(
    request,
    header.apiVersion,
    ctx.groups.config.consumerGroupAssignors,
  );
  if (refused !== undefined) {
    // A refused heartbeat is fatal to the client (librdkafka stops the consumer), and an assignor this broker
    // lacks is a setup mistake: either should show in the broker's log, not only in the client's.
    ctx.limited.log(
      'warn',
      refused.code === 'UNSUPPORTED_ASSIGNOR' ? 'unsupported-assignor' : 'invalid-heartbeat',
      // The ids are the client's: quoted and cut short, as the request summary prints them.
      `group ${JSON.stringify(request.groupId.slice(0, 100))}: member ${JSON.stringify(request.memberId.slice(0, 100))} epoch ${request.memberEpoch} refused, ${refused.code}: ${refused.message}`,
    );
    return errorResponse(refused.code, refused.message);
  }
  const r = ctx.groups.consumerGroupHeartbeat(request, {
    clientId: header.clientId ?? '',
    clientHost: `/${client.host}`,
  });
  if (r.kind === 'error') return errorResponse(r.code, r.message);
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId: r.memberId,
    memberEpoch: r.memberEpoch,
    heartbeatIntervalMs: r.heartbeatIntervalMs,
    assignment:
      r.assignment === null
        ? null
        : {
            topicPartitions: r.assignment.map((tp) => ({
              topicId: tp.topicId,
              partitions: [...tp.partitions],
            })),
          },
  };
}

export const consumerGroupHeartbeatApi = defineApi({
  codec: ConsumerGroupHeartbeat,
  versions: { min: 0, max: 1 },
  handle: handleConsumerGroupHeartbeat,
  summary: (request, r) =>
    `${JSON.stringify(request.groupId.slice(0, 100))} member ${request.memberId} epoch ${request.memberEpoch} → ${r.memberEpoch} ${errorName(r.errorCode)}`,
});
