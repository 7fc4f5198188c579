export { apiKeyName } from './api-keys.js';
export type { ApiCodec } from './apis/api-codec.js';
export * from './apis/index.js';
export { decodeResponse, encodeRequest } from './client.js';
export {
  type ConsumerGroupCurrentMemberAssignmentValue,
  type ConsumerGroupMemberMetadataValue,
  type ConsumerGroupMetadataValue,
  type ConsumerGroupPartitionMetadataValue,
  type ConsumerGroupRecordKey,
  type ConsumerGroupRegularExpressionValue,
  type ConsumerGroupTargetAssignmentMemberValue,
  type ConsumerGroupTargetAssignmentMetadataValue,
  decodeConsumerGroupCurrentMemberAssignmentValue,
  decodeConsumerGroupMemberMetadataValue,
  decodeConsumerGroupMetadataValue,
  decodeConsumerGroupPartitionMetadataValue,
  decodeConsumerGroupRegularExpressionValue,
  decodeConsumerGroupTargetAssignmentMemberValue,
  decodeConsumerGroupTargetAssignmentMetadataValue,
  encodeConsumerGroupCurrentMemberAssignmentKey,
  encodeConsumerGroupCurrentMemberAssignmentValue,
  encodeConsumerGroupMemberMetadataKey,
  encodeConsumerGroupMemberMetadataValue,
  encodeConsumerGroupMetadataKey,
  encodeConsumerGroupMetadataValue,
  encodeConsumerGroupPartitionMetadataKey,
  encodeConsumerGroupRegularExpressionKey,
  encodeConsumerGroupRegularExpressionValue,
  encodeConsumerGroupTargetAssignmentMemberKey,
  encodeConsumerGroupTargetAssignmentMemberValue,
  encodeConsumerGroupTargetAssignmentMetadataKey,
  encodeConsumerGroupTargetAssignmentMetadataValue,
  type TopicPartitions,
} from './consumer-group-records.js';
export { ErrorCode, type ErrorName, errorName, isErrorName } from './error-codes.js';
export { type ErrorResponse, errorResponseFor, hasErrorResponse } from './error-response.js';
export { ProtocolDecodeError, ProtocolEncodeError } from './errors.js';
export {
  DEFAULT_MAX_REQUEST_BYTES,
  encodeResponse,
  encodeResponseBody,
  FrameDecoder,
  FrameSizeError,
  frameResponseBody,
  type ResponseFrame,
  ReusingFrameDecoder,
} from './framing.js';
export {
  type ConsumerProtocolAssignment,
  type ConsumerProtocolSubscription,
  type ConsumerProtocolTopicPartition,
  consumerAssignmentPartitions,
  consumerSubscriptionTopics,
  decodeConsumerProtocolAssignment,
  decodeConsumerProtocolSubscription,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeOffsetsRecordKey,
  encodeConsumerProtocolAssignment,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  type GroupMemberMetadata,
  type GroupMetadataValue,
  type OffsetCommitValue,
  type OffsetsRecordKey,
  offsetsPartitionFor,
} from './group-records.js';
export {
  peekApiKeyAndVersion,
  type RequestHeader,
  readRequestHeader,
  requestHeaderVersion,
  responseHeaderVersion,
  writeResponseHeader,
} from './headers.js';
export {
  type ApiKey,
  type ApiRequest,
  type ApiResponse,
  type KafkaRequest,
  type ParsedRequest,
  parseRequest,
} from './request.js';
export { MAX_STRING_BYTES, Reader } from './wire/reader.js';
export { BY_REFERENCE_BYTES, concatBytes, Writer } from './wire/writer.js';
