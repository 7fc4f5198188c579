/**
 * `kafka-dump-log.sh --offsets-decoder`: the records of `__consumer_offsets` shown as what they mean, in
 * the JSON Kafka 4's decoder prints (the record's key type or value version, and its fields, byte fields
 * in base64), a tombstone's payload as `<DELETE>`. A record that is not one of the coordinator's is shown
 * as the tool shows it without the decoder.
 *
 * The consumer group records (types 3–8 and 16, KIP-848) are printed as Kafka's generated
 * `CoordinatorRecordJsonConverters` write them (`DumpLogSegments.OffsetsMessageParser`, the same JSON as
 * `GroupMetadataMessageFormatter`'s `data`): fields by their camelCase names in the schema's order, a
 * topic id as `Uuid.toString` (base64url), a tagged field only when it is not its default.
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
  decodeConsumerProtocolAssignment,
  decodeConsumerProtocolSubscription,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeOffsetsRecordKey,
  type OffsetsRecordKey,
  type TopicPartitions,
} from '@klog/protocol';
import { kafkaUuid } from '../topics/describe-output.js';

const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/**
 * A `consumer` group member's subscription or assignment as `DumpLogSegments.OffsetsMessageParser`'s
 * `prepareGroupMetadataValue` replaces it: the JSON of `ConsumerProtocolSubscription` /
 * `ConsumerProtocolAssignment` at the version the bytes carry, or the bytes in base64 when they do not
 * read as one (Kafka swallows the error and keeps the original bytes).
 */
function consumerProtocolJson(field: 'subscription' | 'assignment', bytes: Uint8Array): unknown {
  const userData = (u: Uint8Array | null) => (u === null ? null : base64(u));
  try {
    if (field === 'assignment') {
      const a = decodeConsumerProtocolAssignment(bytes);
      return { assignedPartitions: a.assignedPartitions, userData: userData(a.userData) };
    }
    // The fields after userData (ownedPartitions, generationId, rackId) come with the version.
    const { version: _version, topics, userData: u, ...later } = decodeConsumerProtocolSubscription(bytes);
    return { topics, userData: userData(u), ...later };
  } catch {
    return base64(bytes);
  }
}

/** The key's fields as Kafka's key JSON names them. */
function consumerGroupKeyData(k: ConsumerGroupRecordKey): Record<string, string> {
  switch (k.kind) {
    case 'consumerGroupMemberMetadata':
    case 'consumerGroupTargetAssignmentMember':
    case 'consumerGroupCurrentMemberAssignment':
      return { groupId: k.group, memberId: k.memberId };
    case 'consumerGroupRegularExpression':
      return { groupId: k.group, regularExpression: k.regex };
    default:
      return { groupId: k.group };
  }
}

const topicPartitionsJson = (tps: TopicPartitions) =>
  tps.map((tp) => ({ topicId: kafkaUuid(tp.topicId), partitions: tp.partitions }));

/** The value's `data` JSON (version 0 for every one of these records). */
function consumerGroupValueJson(k: ConsumerGroupRecordKey, value: Uint8Array): string {
  switch (k.kind) {
    case 'consumerGroupMetadata': {
      const v = decodeConsumerGroupMetadataValue(value);
      // MetadataHash is a full int64 (a LongNode in Kafka's JSON), beyond what JSON.stringify takes.
      return v.metadataHash === 0n
        ? JSON.stringify({ epoch: v.epoch })
        : `{"epoch":${v.epoch},"metadataHash":${v.metadataHash}}`;
    }
    case 'consumerGroupPartitionMetadata': {
      const v = decodeConsumerGroupPartitionMetadataValue(value);
      return JSON.stringify({
        topics: v.topics.map((t) => ({
          topicId: kafkaUuid(t.topicId),
          topicName: t.topicName,
          numPartitions: t.numPartitions,
          partitionMetadata: t.partitionMetadata,
        })),
      });
    }
    case 'consumerGroupMemberMetadata': {
      const { classicMemberMetadata: classic, ...v } = decodeConsumerGroupMemberMetadataValue(value);
      return JSON.stringify({
        ...v,
        ...(classic === null
          ? {}
          : {
              classicMemberMetadata: {
                sessionTimeoutMs: classic.sessionTimeoutMs,
                supportedProtocols: classic.supportedProtocols.map((p) => ({
                  name: p.name,
                  metadata: base64(p.metadata),
                })),
              },
            }),
      });
    }
    case 'consumerGroupTargetAssignmentMetadata':
      return JSON.stringify(decodeConsumerGroupTargetAssignmentMetadataValue(value));
    case 'consumerGroupTargetAssignmentMember': {
      const v = decodeConsumerGroupTargetAssignmentMemberValue(value);
      return JSON.stringify({ topicPartitions: topicPartitionsJson(v.topicPartitions) });
    }
    case 'consumerGroupCurrentMemberAssignment': {
      const v = decodeConsumerGroupCurrentMemberAssignmentValue(value);
      return JSON.stringify({
        memberEpoch: v.memberEpoch,
        previousMemberEpoch: v.previousMemberEpoch,
        state: v.state,
        assignedPartitions: topicPartitionsJson(v.assignedPartitions),
        partitionsPendingRevocation: topicPartitionsJson(v.partitionsPendingRevocation),
      });
    }
    case 'consumerGroupRegularExpression':
      return JSON.stringify(decodeConsumerGroupRegularExpressionValue(value));
  }
}

/** ` key: … payload: …` for one record, or undefined when it is not a coordinator record. */
export function offsetsRecordText(key: Uint8Array | null, value: Uint8Array | null): string | undefined {
  if (key === null) return undefined;
  let k: OffsetsRecordKey;
  try {
    k = decodeOffsetsRecordKey(key);
  } catch {
    return undefined;
  }
  const keyText =
    k.kind === 'offsetCommit'
      ? JSON.stringify({
          type: String(k.version),
          data: { group: k.group, topic: k.topic, partition: k.partition },
        })
      : k.kind === 'groupMetadata'
        ? JSON.stringify({ type: String(k.version), data: { group: k.group } })
        : JSON.stringify({ type: String(k.version), data: consumerGroupKeyData(k) });
  if (value === null) return ` key: ${keyText} payload: <DELETE>`;
  try {
    if (k.kind !== 'offsetCommit' && k.kind !== 'groupMetadata') {
      return ` key: ${keyText} payload: {"version":"0","data":${consumerGroupValueJson(k, value)}}`;
    }
    if (k.kind === 'offsetCommit') {
      const { version, ...v } = decodeOffsetCommitValue(value);
      const data: Record<string, unknown> = { offset: v.offset };
      if (version >= 3) data.leaderEpoch = v.leaderEpoch;
      data.metadata = v.metadata;
      data.commitTimestamp = v.commitTimestamp;
      if (version === 1) data.expireTimestamp = v.expireTimestamp;
      return ` key: ${keyText} payload: ${JSON.stringify({ version: String(version), data })}`;
    }
    const { version, ...v } = decodeGroupMetadataValue(value);
    const member = (bytes: Uint8Array, field: 'subscription' | 'assignment') =>
      v.protocolType === 'consumer' ? consumerProtocolJson(field, bytes) : base64(bytes);
    const data = {
      protocolType: v.protocolType,
      generation: v.generation,
      protocol: v.protocol,
      leader: v.leader,
      ...(version >= 2 ? { currentStateTimestamp: v.currentStateTimestamp } : {}),
      members: v.members.map((m) => ({
        memberId: m.memberId,
        ...(version >= 3 ? { groupInstanceId: m.groupInstanceId } : {}),
        clientId: m.clientId,
        clientHost: m.clientHost,
        ...(version >= 1 ? { rebalanceTimeout: m.rebalanceTimeout } : {}),
        sessionTimeout: m.sessionTimeout,
        subscription: member(m.subscription, 'subscription'),
        assignment: member(m.assignment, 'assignment'),
      })),
    };
    return ` key: ${keyText} payload: ${JSON.stringify({ version: String(version), data })}`;
  } catch (error) {
    return ` key: ${keyText} payload: (not a value of this key: ${(error as Error).message})`;
  }
}
