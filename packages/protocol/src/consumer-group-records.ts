/**
 * The records of a consumer group (KIP-848) in `__consumer_offsets`, as Kafka 4.1's group coordinator
 * writes them (`group-coordinator/src/main/resources/common/message/ConsumerGroup*{Key,Value}.json`, built
 * by `GroupCoordinatorRecordHelpers`, framed by `CoordinatorRecordSerde`):
 *
 * - a key is the INT16 record type (3–8, 16), then the key's fields, not flexible (INT16-length strings);
 * - a value is its INT16 version (0 for every one of them), then a flexible body: compact strings and
 *   arrays, a tagged-field section after every struct and at the end;
 * - a null value is a tombstone.
 *
 * Type 4 (ConsumerGroupPartitionMetadata) is no longer written since Kafka 4.1 (KIP-1101 put a hash in
 * ConsumerGroupMetadataValue instead): it is read, and only its key is written, for a tombstone.
 */
import { Reader } from './wire/reader.js';
import { Writer } from './wire/writer.js';

/** A topic's partitions in an assignment; the topic by its id, in Reader.uuid's 8-4-4-4-12 hex form. */
export type TopicPartitions = { topicId: string; partitions: number[] }[];

/** The keys of the consumer group records, by record type (Kafka's `CoordinatorRecordType`). */
export type ConsumerGroupRecordKey =
  | { readonly kind: 'consumerGroupMetadata'; readonly version: 3; readonly group: string }
  | { readonly kind: 'consumerGroupPartitionMetadata'; readonly version: 4; readonly group: string }
  | {
      readonly kind: 'consumerGroupMemberMetadata';
      readonly version: 5;
      readonly group: string;
      readonly memberId: string;
    }
  | { readonly kind: 'consumerGroupTargetAssignmentMetadata'; readonly version: 6; readonly group: string }
  | {
      readonly kind: 'consumerGroupTargetAssignmentMember';
      readonly version: 7;
      readonly group: string;
      readonly memberId: string;
    }
  | {
      readonly kind: 'consumerGroupCurrentMemberAssignment';
      readonly version: 8;
      readonly group: string;
      readonly memberId: string;
    }
  | {
      readonly kind: 'consumerGroupRegularExpression';
      readonly version: 16;
      readonly group: string;
      readonly regex: string;
    };

/** Type 3: the group epoch, and the hash of its subscribed topics' metadata (KIP-1101, a full int64). */
export interface ConsumerGroupMetadataValue {
  epoch: number;
  metadataHash: bigint;
}

/** Type 4, read only: what Kafka before 4.1 kept of the subscribed topics. */
export interface ConsumerGroupPartitionMetadataValue {
  topics: {
    topicId: string;
    topicName: string;
    numPartitions: number;
    partitionMetadata: { partition: number; racks: string[] }[];
  }[];
}

/** Type 5: a member's subscription. */
export interface ConsumerGroupMemberMetadataValue {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  /** Tag 0, only for a member that speaks the classic protocol inside a consumer group. */
  classicMemberMetadata: null | {
    sessionTimeoutMs: number;
    supportedProtocols: { name: string; metadata: Uint8Array }[];
  };
}

/** Type 6: the epoch of the group's target assignment. */
export interface ConsumerGroupTargetAssignmentMetadataValue {
  assignmentEpoch: number;
}

/** Type 7: one member's target assignment. */
export interface ConsumerGroupTargetAssignmentMemberValue {
  topicPartitions: TopicPartitions;
}

/** Type 8: one member's current assignment and where its reconciliation stands. */
export interface ConsumerGroupCurrentMemberAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** Kafka's `MemberState`: 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127 UNKNOWN. */
  state: 0 | 1 | 2 | 127;
  assignedPartitions: TopicPartitions;
  partitionsPendingRevocation: TopicPartitions;
}

/** Type 16: the topics a subscribed regular expression resolved to, and at which metadata version. */
export interface ConsumerGroupRegularExpressionValue {
  topics: string[];
  version: number;
  timestamp: number;
}

const VALUE_VERSION = 0;
const MEMBER_STATES: ReadonlySet<number> = new Set([0, 1, 2, 127]);

// Keys: the record type, then INT16-length strings (the key messages have no flexible versions).

function key(type: number, ...fields: [string, string][]): Uint8Array {
  const w = new Writer(32).int16(type, 'type');
  for (const [value, name] of fields) w.string(value, name);
  return w.toBytes();
}

export function encodeConsumerGroupMetadataKey(group: string): Uint8Array {
  return key(3, [group, 'groupId']);
}

/** Only for a tombstone: Kafka 4.1 writes no type 4 value (`GMM.updateSubscriptionMetadata`). */
export function encodeConsumerGroupPartitionMetadataKey(group: string): Uint8Array {
  return key(4, [group, 'groupId']);
}

export function encodeConsumerGroupMemberMetadataKey(group: string, memberId: string): Uint8Array {
  return key(5, [group, 'groupId'], [memberId, 'memberId']);
}

export function encodeConsumerGroupTargetAssignmentMetadataKey(group: string): Uint8Array {
  return key(6, [group, 'groupId']);
}

export function encodeConsumerGroupTargetAssignmentMemberKey(group: string, memberId: string): Uint8Array {
  return key(7, [group, 'groupId'], [memberId, 'memberId']);
}

export function encodeConsumerGroupCurrentMemberAssignmentKey(group: string, memberId: string): Uint8Array {
  return key(8, [group, 'groupId'], [memberId, 'memberId']);
}

export function encodeConsumerGroupRegularExpressionKey(group: string, regex: string): Uint8Array {
  return key(16, [group, 'groupId'], [regex, 'regularExpression']);
}

/**
 * The fields of a consumer group key after its INT16 type (read by `decodeOffsetsRecordKey`), or undefined
 * when the type is not one of these records.
 */
export function readConsumerGroupRecordKey(type: number, r: Reader): ConsumerGroupRecordKey | undefined {
  switch (type) {
    case 3:
      return { kind: 'consumerGroupMetadata', version: 3, group: r.string('groupId') };
    case 4:
      return { kind: 'consumerGroupPartitionMetadata', version: 4, group: r.string('groupId') };
    case 5:
      return {
        kind: 'consumerGroupMemberMetadata',
        version: 5,
        group: r.string('groupId'),
        memberId: r.string('memberId'),
      };
    case 6:
      return { kind: 'consumerGroupTargetAssignmentMetadata', version: 6, group: r.string('groupId') };
    case 7:
      return {
        kind: 'consumerGroupTargetAssignmentMember',
        version: 7,
        group: r.string('groupId'),
        memberId: r.string('memberId'),
      };
    case 8:
      return {
        kind: 'consumerGroupCurrentMemberAssignment',
        version: 8,
        group: r.string('groupId'),
        memberId: r.string('memberId'),
      };
    case 16:
      return {
        kind: 'consumerGroupRegularExpression',
        version: 16,
        group: r.string('groupId'),
        regex: r.string('regularExpression'),
      };
    default:
      return undefined;
  }
}

// Values: version 0, flexible.

function valueWriter(): Writer {
  return new Writer(64).int16(VALUE_VERSION, 'version');
}

/** A value's reader past its version, which must be 0 (`CoordinatorRecordSerde.readMessage` refuses others). */
function valueReader(bytes: Uint8Array, name: string): Reader {
  const r = new Reader(bytes);
  const version = r.int16('version');
  if (version !== VALUE_VERSION)
    r.fail('version', `${name} version ${version} is not one Kafka defines (0)`, 0);
  return r;
}

function end(r: Reader): void {
  r.skipTaggedFields('_tagged');
  if (r.remaining !== 0) r.fail('value', `${r.remaining} bytes after the value`);
}

function writeStrings(w: Writer, values: readonly string[], field: string): void {
  w.compactArrayLength(values.length, field);
  for (const v of values) w.compactString(v, `${field}[]`);
}

function readStrings(r: Reader, field: string): string[] {
  return r.compactArray(field, 1, (r) => r.compactString(`${field}[]`));
}

function writeTopicPartitions(w: Writer, tps: TopicPartitions, field: string): void {
  w.compactArrayLength(tps.length, field);
  for (const tp of tps) {
    w.uuid(tp.topicId, `${field}[].topicId`).compactArrayLength(
      tp.partitions.length,
      `${field}[].partitions`,
    );
    for (const p of tp.partitions) w.int32(p, `${field}[].partitions[]`);
    w.uvarint(0, `${field}[]._tagged`);
  }
}

function readTopicPartitions(r: Reader, field: string): TopicPartitions {
  // Each element: a UUID, a compact array and a tagged-field section: at least 18 bytes.
  return r.compactArray(field, 18, (r) => {
    const topicId = r.uuid(`${field}[].topicId`);
    const partitions = r.compactArray(`${field}[].partitions`, 4, (r) => r.int32(`${field}[].partitions[]`));
    r.skipTaggedFields(`${field}[]._tagged`);
    return { topicId, partitions };
  });
}

/** Tag 0, MetadataHash: written only when not 0, its default (Kafka writes a tagged field only then). */
export function encodeConsumerGroupMetadataValue(v: ConsumerGroupMetadataValue): Uint8Array {
  const w = valueWriter().int32(v.epoch, 'epoch');
  if (v.metadataHash === 0n) return w.uvarint(0, '_tagged').toBytes();
  // An INT64 beyond ±2^53 (a hash), which Writer.int64 refuses: written from the bigint.
  const hash = new Uint8Array(8);
  new DataView(hash.buffer).setBigInt64(0, BigInt.asIntN(64, v.metadataHash));
  return w.uvarint(1, '_tagged').uvarint(0, 'metadataHash').uvarint(8, 'metadataHash').raw(hash).toBytes();
}

export function decodeConsumerGroupMetadataValue(bytes: Uint8Array): ConsumerGroupMetadataValue {
  const r = valueReader(bytes, 'ConsumerGroupMetadataValue');
  const epoch = r.int32('epoch');
  let metadataHash = 0n;
  r.taggedFields('_tagged', (tag, r) => {
    if (tag !== 0) return false;
    if (r.remaining < 8) r.fail('metadataHash', 'an INT64 needs 8 bytes');
    metadataHash = r.view.getBigInt64(r.offset);
    r.offset += 8;
    return true;
  });
  if (r.remaining !== 0) r.fail('value', `${r.remaining} bytes after the value`);
  return { epoch, metadataHash };
}

export function decodeConsumerGroupPartitionMetadataValue(
  bytes: Uint8Array,
): ConsumerGroupPartitionMetadataValue {
  const r = valueReader(bytes, 'ConsumerGroupPartitionMetadataValue');
  const topics = r.compactArray('topics', 20, (r) => {
    const topicId = r.uuid('topics[].topicId');
    const topicName = r.compactString('topics[].topicName');
    const numPartitions = r.int32('topics[].numPartitions');
    const partitionMetadata = r.compactArray('topics[].partitionMetadata', 6, (r) => {
      const partition = r.int32('topics[].partitionMetadata[].partition');
      const racks = readStrings(r, 'topics[].partitionMetadata[].racks');
      r.skipTaggedFields('topics[].partitionMetadata[]._tagged');
      return { partition, racks };
    });
    r.skipTaggedFields('topics[]._tagged');
    return { topicId, topicName, numPartitions, partitionMetadata };
  });
  end(r);
  return { topics };
}

/**
 * The subscribed topic names are written sorted, as `GroupCoordinatorRecordHelpers
 * .newConsumerGroupMemberSubscriptionRecord` sorts them, so that the same subscription is the same bytes.
 */
export function encodeConsumerGroupMemberMetadataValue(v: ConsumerGroupMemberMetadataValue): Uint8Array {
  const w = valueWriter()
    .compactNullableString(v.instanceId, 'instanceId')
    .compactNullableString(v.rackId, 'rackId')
    .compactString(v.clientId, 'clientId')
    .compactString(v.clientHost, 'clientHost');
  writeStrings(w, [...v.subscribedTopicNames].sort(), 'subscribedTopicNames');
  w.compactNullableString(v.subscribedTopicRegex, 'subscribedTopicRegex')
    .int32(v.rebalanceTimeoutMs, 'rebalanceTimeoutMs')
    .compactNullableString(v.serverAssignor, 'serverAssignor');
  const classic = v.classicMemberMetadata;
  if (classic === null) return w.uvarint(0, '_tagged').toBytes();
  const s = new Writer(64).int32(classic.sessionTimeoutMs, 'classicMemberMetadata.sessionTimeoutMs');
  s.compactArrayLength(classic.supportedProtocols.length, 'classicMemberMetadata.supportedProtocols');
  for (const p of classic.supportedProtocols) {
    s.compactString(p.name, 'classicMemberMetadata.supportedProtocols[].name')
      .compactBytes(p.metadata, 'classicMemberMetadata.supportedProtocols[].metadata')
      .uvarint(0, 'classicMemberMetadata.supportedProtocols[]._tagged');
  }
  const struct = s.uvarint(0, 'classicMemberMetadata._tagged').toBytes();
  // A nullable struct as a tagged field: its size counts a leading 1 that says "not null"
  // (Kafka's MessageDataGenerator, tagged nullable struct).
  return w
    .uvarint(1, '_tagged')
    .uvarint(0, 'classicMemberMetadata')
    .uvarint(struct.length + 1, 'classicMemberMetadata')
    .uvarint(1, 'classicMemberMetadata')
    .raw(struct)
    .toBytes();
}

export function decodeConsumerGroupMemberMetadataValue(bytes: Uint8Array): ConsumerGroupMemberMetadataValue {
  const r = valueReader(bytes, 'ConsumerGroupMemberMetadataValue');
  const instanceId = r.compactNullableString('instanceId');
  const rackId = r.compactNullableString('rackId');
  const clientId = r.compactString('clientId');
  const clientHost = r.compactString('clientHost');
  const subscribedTopicNames = readStrings(r, 'subscribedTopicNames');
  const subscribedTopicRegex = r.compactNullableString('subscribedTopicRegex');
  const rebalanceTimeoutMs = r.int32('rebalanceTimeoutMs');
  const serverAssignor = r.compactNullableString('serverAssignor');
  let classicMemberMetadata: ConsumerGroupMemberMetadataValue['classicMemberMetadata'] = null;
  r.taggedFields('_tagged', (tag, r) => {
    if (tag !== 0) return false;
    if (r.uvarint('classicMemberMetadata') === 0) return true;
    const sessionTimeoutMs = r.int32('classicMemberMetadata.sessionTimeoutMs');
    const supportedProtocols = r.compactArray('classicMemberMetadata.supportedProtocols', 3, (r) => {
      const name = r.compactString('classicMemberMetadata.supportedProtocols[].name');
      const metadata = r.compactBytes('classicMemberMetadata.supportedProtocols[].metadata');
      r.skipTaggedFields('classicMemberMetadata.supportedProtocols[]._tagged');
      return { name, metadata };
    });
    r.skipTaggedFields('classicMemberMetadata._tagged');
    classicMemberMetadata = { sessionTimeoutMs, supportedProtocols };
    return true;
  });
  if (r.remaining !== 0) r.fail('value', `${r.remaining} bytes after the value`);
  return {
    instanceId,
    rackId,
    clientId,
    clientHost,
    subscribedTopicNames,
    subscribedTopicRegex,
    rebalanceTimeoutMs,
    serverAssignor,
    classicMemberMetadata,
  };
}

export function encodeConsumerGroupTargetAssignmentMetadataValue(
  v: ConsumerGroupTargetAssignmentMetadataValue,
): Uint8Array {
  return valueWriter().int32(v.assignmentEpoch, 'assignmentEpoch').uvarint(0, '_tagged').toBytes();
}

export function decodeConsumerGroupTargetAssignmentMetadataValue(
  bytes: Uint8Array,
): ConsumerGroupTargetAssignmentMetadataValue {
  const r = valueReader(bytes, 'ConsumerGroupTargetAssignmentMetadataValue');
  const assignmentEpoch = r.int32('assignmentEpoch');
  end(r);
  return { assignmentEpoch };
}

export function encodeConsumerGroupTargetAssignmentMemberValue(
  v: ConsumerGroupTargetAssignmentMemberValue,
): Uint8Array {
  const w = valueWriter();
  writeTopicPartitions(w, v.topicPartitions, 'topicPartitions');
  return w.uvarint(0, '_tagged').toBytes();
}

export function decodeConsumerGroupTargetAssignmentMemberValue(
  bytes: Uint8Array,
): ConsumerGroupTargetAssignmentMemberValue {
  const r = valueReader(bytes, 'ConsumerGroupTargetAssignmentMemberValue');
  const topicPartitions = readTopicPartitions(r, 'topicPartitions');
  end(r);
  return { topicPartitions };
}

export function encodeConsumerGroupCurrentMemberAssignmentValue(
  v: ConsumerGroupCurrentMemberAssignmentValue,
): Uint8Array {
  const w = valueWriter()
    .int32(v.memberEpoch, 'memberEpoch')
    .int32(v.previousMemberEpoch, 'previousMemberEpoch')
    .int8(v.state, 'state');
  writeTopicPartitions(w, v.assignedPartitions, 'assignedPartitions');
  writeTopicPartitions(w, v.partitionsPendingRevocation, 'partitionsPendingRevocation');
  return w.uvarint(0, '_tagged').toBytes();
}

export function decodeConsumerGroupCurrentMemberAssignmentValue(
  bytes: Uint8Array,
): ConsumerGroupCurrentMemberAssignmentValue {
  const r = valueReader(bytes, 'ConsumerGroupCurrentMemberAssignmentValue');
  const memberEpoch = r.int32('memberEpoch');
  const previousMemberEpoch = r.int32('previousMemberEpoch');
  const at = r.offset;
  const state = r.int8('state');
  // Kafka's MemberState.fromValue throws on any other value.
  if (!MEMBER_STATES.has(state)) r.fail('state', `member state ${state} is not one Kafka defines`, at);
  const assignedPartitions = readTopicPartitions(r, 'assignedPartitions');
  const partitionsPendingRevocation = readTopicPartitions(r, 'partitionsPendingRevocation');
  end(r);
  return {
    memberEpoch,
    previousMemberEpoch,
    state: state as ConsumerGroupCurrentMemberAssignmentValue['state'],
    assignedPartitions,
    partitionsPendingRevocation,
  };
}

export function encodeConsumerGroupRegularExpressionValue(
  v: ConsumerGroupRegularExpressionValue,
): Uint8Array {
  const w = valueWriter();
  writeStrings(w, v.topics, 'topics');
  return w.int64(v.version, 'version').int64(v.timestamp, 'timestamp').uvarint(0, '_tagged').toBytes();
}

export function decodeConsumerGroupRegularExpressionValue(
  bytes: Uint8Array,
): ConsumerGroupRegularExpressionValue {
  const r = valueReader(bytes, 'ConsumerGroupRegularExpressionValue');
  const topics = readStrings(r, 'topics');
  const version = r.int64('version');
  const timestamp = r.int64('timestamp');
  end(r);
  return { topics, version, timestamp };
}
