/**
 * The records of `__consumer_offsets`, as Kafka 4.1's group coordinator writes them
 * (`group-coordinator/src/main/resources/common/message/OffsetCommitKey.json`, `OffsetCommitValue.json`,
 * `GroupMetadataKey.json`, `GroupMetadataValue.json`, written by `GroupCoordinatorRecordHelpers`): a record's
 * key starts with an INT16 that says which key it is (0 or 1 an offset commit, 2 a group's metadata), its
 * value with the value's version. Kafka writes key version 1, OffsetCommitValue version 3 (1 when the commit
 * carries an expire timestamp), GroupMetadataValue version 3; version 4 of both values is flexible, and is
 * read here too. A null value is a tombstone: the group or the offset is deleted.
 */
import { type ConsumerGroupRecordKey, readConsumerGroupRecordKey } from './consumer-group-records.js';
import { Reader } from './wire/reader.js';
import { Writer } from './wire/writer.js';

export type OffsetsRecordKey =
  | {
      readonly kind: 'offsetCommit';
      readonly version: number;
      readonly group: string;
      readonly topic: string;
      readonly partition: number;
    }
  | { readonly kind: 'groupMetadata'; readonly version: number; readonly group: string }
  | ConsumerGroupRecordKey;

export interface OffsetCommitValue {
  readonly offset: number;
  /** -1: none (`RecordBatch.NO_PARTITION_LEADER_EPOCH`). */
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestamp: number;
  /** Version 1 only (an OffsetCommit v2-v4 with a retention time); -1 otherwise. */
  readonly expireTimestamp: number;
}

export interface GroupMemberMetadata {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeout: number;
  readonly sessionTimeout: number;
  /** The member's metadata for the group's protocol, as the client sent it. */
  readonly subscription: Uint8Array;
  /** What the leader assigned it, as the leader sent it. */
  readonly assignment: Uint8Array;
}

export interface GroupMetadataValue {
  readonly protocolType: string;
  readonly generation: number;
  readonly protocol: string | null;
  readonly leader: string | null;
  /** When the group entered its state (Empty, for offset expiry); -1 if unknown. */
  readonly currentStateTimestamp: number;
  readonly members: readonly GroupMemberMetadata[];
}

const OFFSET_COMMIT_KEY_VERSION = 1;
const GROUP_METADATA_KEY_VERSION = 2;
const OFFSET_COMMIT_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_WITH_EXPIRY = 1;
const GROUP_METADATA_VALUE_VERSION = 3;

export function encodeOffsetCommitKey(group: string, topic: string, partition: number): Uint8Array {
  return new Writer(64)
    .int16(OFFSET_COMMIT_KEY_VERSION, 'version')
    .string(group, 'group')
    .string(topic, 'topic')
    .int32(partition, 'partition')
    .toBytes();
}

export function encodeGroupMetadataKey(group: string): Uint8Array {
  return new Writer(32).int16(GROUP_METADATA_KEY_VERSION, 'version').string(group, 'group').toBytes();
}

/** A key of `__consumer_offsets`; throws ProtocolDecodeError on bytes that are not one, or a key version Kafka does not define. */
export function decodeOffsetsRecordKey(bytes: Uint8Array): OffsetsRecordKey {
  const r = new Reader(bytes);
  const version = r.int16('version');
  let key: OffsetsRecordKey;
  if (version === 0 || version === 1) {
    key = {
      kind: 'offsetCommit',
      version,
      group: r.string('group'),
      topic: r.string('topic'),
      partition: r.int32('partition'),
    };
  } else if (version === 2) {
    key = { kind: 'groupMetadata', version, group: r.string('group') };
  } else {
    // The consumer group records (KIP-848): consumer-group-records.ts.
    const consumerGroupKey = readConsumerGroupRecordKey(version, r);
    if (consumerGroupKey === undefined) {
      return r.fail(
        'version',
        `key version ${version} is not an offset commit (0, 1), group metadata (2) or consumer group (3-8, 16) key`,
        0,
      );
    }
    key = consumerGroupKey;
  }
  if (r.remaining !== 0) r.fail('key', `${r.remaining} bytes after the key`);
  return key;
}

export function encodeOffsetCommitValue(v: OffsetCommitValue): Uint8Array {
  const w = new Writer(64);
  if (v.expireTimestamp >= 0) {
    // Version 1: no leader epoch, an expire timestamp.
    w.int16(OFFSET_COMMIT_VALUE_WITH_EXPIRY, 'version')
      .int64(v.offset, 'offset')
      .string(v.metadata, 'metadata');
    return w
      .int64(v.commitTimestamp, 'commitTimestamp')
      .int64(v.expireTimestamp, 'expireTimestamp')
      .toBytes();
  }
  w.int16(OFFSET_COMMIT_VALUE_VERSION, 'version')
    .int64(v.offset, 'offset')
    .int32(v.leaderEpoch, 'leaderEpoch');
  return w.string(v.metadata, 'metadata').int64(v.commitTimestamp, 'commitTimestamp').toBytes();
}

export function decodeOffsetCommitValue(bytes: Uint8Array): OffsetCommitValue & { readonly version: number } {
  const r = new Reader(bytes);
  const version = r.int16('version');
  if (version < 0 || version > 4)
    r.fail('version', `OffsetCommitValue version ${version} is not one Kafka defines (0-4)`, 0);
  const flexible = version >= 4;
  const offset = r.int64('offset');
  const leaderEpoch = version >= 3 ? r.int32('leaderEpoch') : -1;
  const metadata = flexible ? r.compactString('metadata') : r.string('metadata');
  const commitTimestamp = r.int64('commitTimestamp');
  const expireTimestamp = version === 1 ? r.int64('expireTimestamp') : -1;
  if (flexible) r.skipTaggedFields('_tagged');
  if (r.remaining !== 0) r.fail('value', `${r.remaining} bytes after the value`);
  return { version, offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function encodeGroupMetadataValue(v: GroupMetadataValue): Uint8Array {
  const w = new Writer(256);
  w.int16(GROUP_METADATA_VALUE_VERSION, 'version')
    .string(v.protocolType, 'protocolType')
    .int32(v.generation, 'generation');
  w.nullableString(v.protocol, 'protocol')
    .nullableString(v.leader, 'leader')
    .int64(v.currentStateTimestamp, 'currentStateTimestamp');
  w.arrayLength(v.members.length, 'members');
  for (const m of v.members) {
    w.string(m.memberId, 'members[].memberId').nullableString(m.groupInstanceId, 'members[].groupInstanceId');
    w.string(m.clientId, 'members[].clientId').string(m.clientHost, 'members[].clientHost');
    w.int32(m.rebalanceTimeout, 'members[].rebalanceTimeout').int32(
      m.sessionTimeout,
      'members[].sessionTimeout',
    );
    w.bytesField(m.subscription, 'members[].subscription').bytesField(m.assignment, 'members[].assignment');
  }
  return w.toBytes();
}

export function decodeGroupMetadataValue(
  bytes: Uint8Array,
): GroupMetadataValue & { readonly version: number } {
  const r = new Reader(bytes);
  const version = r.int16('version');
  if (version < 0 || version > 4)
    r.fail('version', `GroupMetadataValue version ${version} is not one Kafka defines (0-4)`, 0);
  const flex = version >= 4;
  const str = (f: string) => (flex ? r.compactString(f) : r.string(f));
  const nstr = (f: string) => (flex ? r.compactNullableString(f) : r.nullableString(f));
  const bytesOf = (f: string) => (flex ? r.compactBytes(f) : r.bytesField(f));
  const protocolType = str('protocolType');
  const generation = r.int32('generation');
  const protocol = nstr('protocol');
  const leader = nstr('leader');
  const currentStateTimestamp = version >= 2 ? r.int64('currentStateTimestamp') : -1;
  const readMember = (r: Reader): GroupMemberMetadata => {
    const memberId = str('members[].memberId');
    const groupInstanceId = version >= 3 ? nstr('members[].groupInstanceId') : null;
    const clientId = str('members[].clientId');
    const clientHost = str('members[].clientHost');
    const rebalanceTimeout = version >= 1 ? r.int32('members[].rebalanceTimeout') : -1;
    const sessionTimeout = r.int32('members[].sessionTimeout');
    const subscription = bytesOf('members[].subscription');
    const assignment = bytesOf('members[].assignment');
    if (flex) r.skipTaggedFields('members[]._tagged');
    return {
      memberId,
      groupInstanceId,
      clientId,
      clientHost,
      rebalanceTimeout,
      sessionTimeout,
      subscription,
      assignment,
    };
  };
  const members = flex ? r.compactArray('members', 10, readMember) : r.array('members', 20, readMember);
  if (flex) r.skipTaggedFields('_tagged');
  if (r.remaining !== 0) r.fail('value', `${r.remaining} bytes after the value`);
  return { version, protocolType, generation, protocol, leader, currentStateTimestamp, members };
}

/**
 * The partition of `__consumer_offsets` that holds a group: `Utils.abs(groupId.hashCode()) % partitions`,
 * Java's String hash over UTF-16 code units (Kafka's `GroupCoordinatorService.partitionFor`), so a group
 * lands where Kafka would put it.
 */
export function offsetsPartitionFor(groupId: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < groupId.length; i++) h = (Math.imul(h, 31) + groupId.charCodeAt(i)) | 0;
  // Utils.abs: Integer.MIN_VALUE maps to 0, not to itself as Math.abs does in Java.
  const abs = h === -2147483648 ? 0 : Math.abs(h);
  return abs % partitions;
}

/**
 * The topics a member of a `consumer` group subscribes to, from its protocol metadata (Kafka's
 * `ConsumerProtocolSubscription`, versions 0-3, every one beginning with the topic list), or undefined when
 * the bytes are not one: the broker passes these bytes through untouched and reads them only to answer
 * OffsetDelete (GROUP_SUBSCRIBED_TO_TOPIC) and to describe a group.
 */
export function consumerSubscriptionTopics(bytes: Uint8Array): string[] | undefined {
  try {
    const r = new Reader(bytes);
    if (r.int16('version') < 0) return undefined;
    return r.array('topics', 2, (r) => r.string('topics[]'));
  } catch {
    return undefined;
  }
}

/** The partitions a `consumer` group's leader assigned a member (`ConsumerProtocolAssignment`), or undefined. */
export function consumerAssignmentPartitions(
  bytes: Uint8Array,
): { topic: string; partitions: number[] }[] | undefined {
  if (bytes.length === 0) return [];
  try {
    const r = new Reader(bytes);
    if (r.int16('version') < 0) return undefined;
    return r.array('assignedPartitions', 6, (r) => ({
      topic: r.string('assignedPartitions[].topic'),
      partitions: r.array('assignedPartitions[].partitions', 4, (r) =>
        r.int32('assignedPartitions[].partitions[]'),
      ),
    }));
  } catch {
    return undefined;
  }
}

/** A topic's partitions in the consumer protocol (`ConsumerProtocolSubscription`'s `TopicPartition`). */
export interface ConsumerProtocolTopicPartition {
  readonly topic: string;
  readonly partitions: number[];
}

/**
 * `ConsumerProtocolSubscription` (clients' `ConsumerProtocolSubscription.json`, versions 0-3, not flexible):
 * what a classic `consumer` group member sends in JoinGroup. `version` is the one in the bytes; fields the
 * version lacks are absent.
 */
export interface ConsumerProtocolSubscription {
  readonly version: number;
  readonly topics: string[];
  readonly userData: Uint8Array | null;
  /** Version 1+. */
  readonly ownedPartitions?: ConsumerProtocolTopicPartition[];
  /** Version 2+. */
  readonly generationId?: number;
  /** Version 3+. */
  readonly rackId?: string | null;
}

/** `ConsumerProtocolAssignment` (versions 0-3, the same fields in each): what the leader assigned a member. */
export interface ConsumerProtocolAssignment {
  readonly version: number;
  readonly assignedPartitions: ConsumerProtocolTopicPartition[];
  readonly userData: Uint8Array | null;
}

// Kafka's generated readers take any negative length of a nullable field as null.
function lenientNullableBytes(r: Reader, field: string): Uint8Array | null {
  if (r.remaining >= 4 && r.view.getInt32(r.offset) < 0) {
    r.offset += 4;
    return null;
  }
  return r.bytesField(field);
}

function lenientNullableString(r: Reader, field: string): string | null {
  if (r.remaining >= 2 && r.view.getInt16(r.offset) < 0) {
    r.offset += 2;
    return null;
  }
  return r.string(field);
}

const readConsumerTopicPartition = (field: string) => (r: Reader) => ({
  topic: r.string(`${field}[].topic`),
  partitions: r.array(`${field}[].partitions`, 4, (r) => r.int32(`${field}[].partitions[]`)),
});

/**
 * Reads a `ConsumerProtocolSubscription` as Kafka's generated `read(readable, version)` does with the INT16
 * version that leads the bytes (`ConsumerProtocol.deserializeSubscription`): a version above 3 is read as 3
 * (the schema's promise that new versions only add fields), bytes after the fields are left unread. Throws
 * a `ProtocolDecodeError` when the bytes are not one.
 */
export function decodeConsumerProtocolSubscription(bytes: Uint8Array): ConsumerProtocolSubscription {
  const r = new Reader(bytes);
  const version = r.int16('version');
  const topics = r.array('topics', 2, (r) => r.string('topics[]'));
  const userData = lenientNullableBytes(r, 'userData');
  if (version < 1) return { version, topics, userData };
  const ownedPartitions = r.array('ownedPartitions', 6, readConsumerTopicPartition('ownedPartitions'));
  if (version < 2) return { version, topics, userData, ownedPartitions };
  const generationId = r.int32('generationId');
  if (version < 3) return { version, topics, userData, ownedPartitions, generationId };
  return {
    version,
    topics,
    userData,
    ownedPartitions,
    generationId,
    rackId: lenientNullableString(r, 'rackId'),
  };
}

/** Reads a `ConsumerProtocolAssignment` (`ConsumerProtocol.deserializeAssignment`'s read), as above. */
export function decodeConsumerProtocolAssignment(bytes: Uint8Array): ConsumerProtocolAssignment {
  const r = new Reader(bytes);
  const version = r.int16('version');
  const assignedPartitions = r.array(
    'assignedPartitions',
    6,
    readConsumerTopicPartition('assignedPartitions'),
  );
  return { version, assignedPartitions, userData: lenientNullableBytes(r, 'userData') };
}

/**
 * Writes a `ConsumerProtocolAssignment` as `ConsumerProtocol.serializeAssignment(assignment, version)` does:
 * the version capped at 3 (the highest Kafka defines; a negative one is refused), then the partitions and
 * the user data (null: length -1). The broker writes one when it answers a classic member of a consumer
 * group, or downgrades such a group, at the version of the member's own subscription.
 */
export function encodeConsumerProtocolAssignment(
  assignment: Omit<ConsumerProtocolAssignment, 'version'>,
  version: number,
): Uint8Array {
  if (version < 0) throw new RangeError(`ConsumerProtocolAssignment version ${version} is negative`);
  const w = new Writer(64);
  w.int16(Math.min(version, 3), 'version');
  w.arrayLength(assignment.assignedPartitions.length, 'assignedPartitions');
  for (const tp of assignment.assignedPartitions) {
    w.string(tp.topic, 'assignedPartitions[].topic');
    w.arrayLength(tp.partitions.length, 'assignedPartitions[].partitions');
    for (const p of tp.partitions) w.int32(p, 'assignedPartitions[].partitions[]');
  }
  return w.nullableBytes(assignment.userData, 'userData').toBytes();
}
