/**
 * The records the coordinator writes to `__consumer_offsets`, built in one place as Kafka's
 * `GroupCoordinatorRecordHelpers` builds them: a classic group's metadata (its members and their
 * assignment) and its tombstone, a committed offset and its tombstone.
 */
import {
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
} from '@klog/protocol';
import { type ClassicGroup, EMPTY_BYTES } from './classic/classic-group.js';
import type { OffsetsRecord } from './coordinator-runtime.js';
import type { CommittedOffset } from './offset-and-metadata.js';

/** Kafka's `newGroupMetadataRecord`: the group's generation, protocol, leader and every member with its assignment. */
export function newGroupMetadataRecord(
  group: ClassicGroup,
  assignment: ReadonlyMap<string, Uint8Array>,
): OffsetsRecord {
  const protocol = group.protocolName;
  const value = encodeGroupMetadataValue({
    protocolType: group.protocolType() ?? '',
    generation: group.generationId,
    protocol,
    leader: group.leaderId,
    currentStateTimestamp: group.stateTimestamp,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: m.metadata(protocol!) ?? EMPTY_BYTES,
      assignment: assignment.get(m.memberId) ?? EMPTY_BYTES,
    })),
  });
  return { key: encodeGroupMetadataKey(group.groupId), value };
}

/** Kafka's `newGroupMetadataTombstoneRecord`. */
export function newGroupMetadataTombstoneRecord(groupId: string): OffsetsRecord {
  return { key: encodeGroupMetadataKey(groupId), value: null };
}

/** Kafka's `newOffsetCommitRecord`. */
export function newOffsetCommitRecord(
  groupId: string,
  topic: string,
  partition: number,
  offset: CommittedOffset,
): OffsetsRecord {
  return { key: encodeOffsetCommitKey(groupId, topic, partition), value: encodeOffsetCommitValue(offset) };
}

/** Kafka's `newOffsetCommitTombstoneRecord`. */
export function newOffsetCommitTombstoneRecord(
  groupId: string,
  topic: string,
  partition: number,
): OffsetsRecord {
  return { key: encodeOffsetCommitKey(groupId, topic, partition), value: null };
}
