/**
 * The coordinator's edge for consumer group (KIP-848) records: the engine (modern/) builds and replays
 * typed `ConsumerGroupRecord`s, `__consumer_offsets` holds Kafka's bytes. Kafka's `CoordinatorRecordSerde`
 * does this between `CoordinatorRecord` and the log; the codecs are @klog/protocol's
 * consumer-group-records.ts.
 */
import {
  type ConsumerGroupRecordKey,
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
} from '@klog/protocol';
import type { OffsetsRecord } from './coordinator-runtime.js';
import type { ConsumerGroupRecord, TopicPartitions } from './modern/index.js';

const mutable = (tps: TopicPartitions) =>
  tps.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] }));

/** A typed record as the key and value bytes Kafka 4.1 writes (a null value stays a tombstone). */
export function encodeConsumerGroupRecord(r: ConsumerGroupRecord): OffsetsRecord {
  switch (r.type) {
    case 2:
      return { key: r.key, value: r.value };
    case 3:
      return {
        key: encodeConsumerGroupMetadataKey(r.group),
        value: r.value === null ? null : encodeConsumerGroupMetadataValue({ ...r.value }),
      };
    case 4:
      // Kafka 4.1 writes only this record's tombstone (KIP-1101 moved the metadata into a hash).
      if (r.value !== null)
        throw new Error(`a ConsumerGroupPartitionMetadata value is never written (group ${r.group})`);
      return { key: encodeConsumerGroupPartitionMetadataKey(r.group), value: null };
    case 5: {
      const v = r.value;
      return {
        key: encodeConsumerGroupMemberMetadataKey(r.group, r.memberId),
        value:
          v === null
            ? null
            : encodeConsumerGroupMemberMetadataValue({
                ...v,
                subscribedTopicNames: [...v.subscribedTopicNames],
                classicMemberMetadata:
                  v.classicMemberMetadata === null
                    ? null
                    : {
                        sessionTimeoutMs: v.classicMemberMetadata.sessionTimeoutMs,
                        supportedProtocols: v.classicMemberMetadata.supportedProtocols.map((p) => ({ ...p })),
                      },
              }),
      };
    }
    case 6:
      return {
        key: encodeConsumerGroupTargetAssignmentMetadataKey(r.group),
        value: r.value === null ? null : encodeConsumerGroupTargetAssignmentMetadataValue({ ...r.value }),
      };
    case 7:
      return {
        key: encodeConsumerGroupTargetAssignmentMemberKey(r.group, r.memberId),
        value:
          r.value === null
            ? null
            : encodeConsumerGroupTargetAssignmentMemberValue({
                topicPartitions: mutable(r.value.topicPartitions),
              }),
      };
    case 8: {
      const v = r.value;
      return {
        key: encodeConsumerGroupCurrentMemberAssignmentKey(r.group, r.memberId),
        value:
          v === null
            ? null
            : encodeConsumerGroupCurrentMemberAssignmentValue({
                memberEpoch: v.memberEpoch,
                previousMemberEpoch: v.previousMemberEpoch,
                state: v.state,
                assignedPartitions: mutable(v.assignedPartitions),
                partitionsPendingRevocation: mutable(v.partitionsPendingRevocation),
              }),
      };
    }
    case 16:
      return {
        key: encodeConsumerGroupRegularExpressionKey(r.group, r.regex),
        value:
          r.value === null
            ? null
            : encodeConsumerGroupRegularExpressionValue({ ...r.value, topics: [...r.value.topics] }),
      };
  }
}

/** Kafka's bytes, the key already read by `decodeOffsetsRecordKey`, as the engine's typed record. */
export function decodeConsumerGroupRecord(
  k: ConsumerGroupRecordKey,
  value: Uint8Array | null,
): ConsumerGroupRecord {
  switch (k.kind) {
    case 'consumerGroupMetadata':
      return {
        type: 3,
        group: k.group,
        value: value === null ? null : decodeConsumerGroupMetadataValue(value),
      };
    case 'consumerGroupPartitionMetadata':
      return {
        type: 4,
        group: k.group,
        value: value === null ? null : decodeConsumerGroupPartitionMetadataValue(value),
      };
    case 'consumerGroupMemberMetadata':
      return {
        type: 5,
        group: k.group,
        memberId: k.memberId,
        value: value === null ? null : decodeConsumerGroupMemberMetadataValue(value),
      };
    case 'consumerGroupTargetAssignmentMetadata':
      return {
        type: 6,
        group: k.group,
        value: value === null ? null : decodeConsumerGroupTargetAssignmentMetadataValue(value),
      };
    case 'consumerGroupTargetAssignmentMember':
      return {
        type: 7,
        group: k.group,
        memberId: k.memberId,
        value: value === null ? null : decodeConsumerGroupTargetAssignmentMemberValue(value),
      };
    case 'consumerGroupCurrentMemberAssignment':
      return {
        type: 8,
        group: k.group,
        memberId: k.memberId,
        value: value === null ? null : decodeConsumerGroupCurrentMemberAssignmentValue(value),
      };
    case 'consumerGroupRegularExpression':
      return {
        type: 16,
        group: k.group,
        regex: k.regex,
        value: value === null ? null : decodeConsumerGroupRegularExpressionValue(value),
      };
  }
}
