/*
 * The consumer-group (KIP-848) engine's curated exports for the coordinator wiring: the group model, its
 * replay, the ops, and the typed records the wiring encodes with @klog/protocol's codecs.
 */
export type { TopicPartitions } from './assignment.js';
export { fromTopicPartitions, toTopicPartitions } from './assignment.js';
export {
  ClassicMemberOps,
  consumerProtocolAssignmentBytes,
  supportsClassicProtocols,
} from './consumer/classic-member-ops.js';
export { ConsumerGroup, type ConsumerGroupState } from './consumer/consumer-group.js';
export type { ClassicMemberMetadata, ConsumerGroupMember } from './consumer/consumer-group-member.js';
export {
  type ClassicDowngrade,
  type ConsumerGroupConfig,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  ConsumerGroupOps,
  type ConsumerGroupOpsDeps,
  type ConsumerGroupResult,
  type DescribedAssignment,
  type DescribedConsumerGroup,
  type DescribedMember,
  groupJoinTimeoutKey,
  groupRebalanceTimeoutKey,
  groupSessionTimeoutKey,
  groupSyncTimeoutKey,
  JOIN_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  type RequestContext,
} from './consumer/consumer-group-ops.js';
export { replayConsumerGroupRecord } from './consumer/consumer-group-replay.js';
export * from './consumer/consumer-record-helpers.js';
export { ConsumerGroupError, type ConsumerGroupErrorName, ConsumerGroupIllegalStateError } from './errors.js';
export { MemberState } from './member-state.js';
export { computeGroupHash } from './topic-metadata-hash.js';
export type { TopicsImage } from './topics-image.js';
