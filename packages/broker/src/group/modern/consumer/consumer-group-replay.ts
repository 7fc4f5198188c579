import { fromTopicPartitions } from '../assignment.js';
import { ConsumerGroupIllegalStateError } from '../errors.js';
import { ConsumerGroup } from './consumer-group.js';
import type { ConsumerGroupRecord } from './consumer-record-helpers.js';

/**
 * Replay of consumer-group records (types 3–8 and 16) into `groups`, as Kafka's `GroupMetadataManager.replay`
 * overloads do (GMM L4962, L5092–5310): a value creates the group if needed; a tombstone of an unknown group
 * or member is ignored; the group-epoch tombstone deletes the group, and refuses (IllegalState) while members
 * or a target assignment remain. Called for records read at load and for every record an op wrote.
 * Returns the group a type 3 tombstone removed, so the caller can cancel its timers.
 */
export function replayConsumerGroupRecord(
  groups: Map<string, ConsumerGroup>,
  record: ConsumerGroupRecord,
): ConsumerGroup | undefined {
  const existing = groups.get(record.group);
  const group = (): ConsumerGroup => {
    if (existing !== undefined) return existing;
    const g = new ConsumerGroup(record.group);
    groups.set(record.group, g);
    return g;
  };
  switch (record.type) {
    case 2:
      throw new ConsumerGroupIllegalStateError(
        `A classic GroupMetadata record of group ${record.group} is replayed by the coordinator, not as a consumer group record.`,
      );
    case 3: {
      if (record.value !== null) {
        const g = group();
        g.groupEpoch = record.value.epoch;
        g.metadataHash = record.value.metadataHash;
        return undefined;
      }
      if (existing === undefined) return undefined;
      if (existing.members.size > 0)
        throw new ConsumerGroupIllegalStateError(
          `Received a tombstone record to delete group ${record.group} but the group still has ${existing.members.size} members.`,
        );
      if (existing.targetAssignment.size > 0)
        throw new ConsumerGroupIllegalStateError(
          `Received a tombstone record to delete group ${record.group} but the target assignment still has ${existing.targetAssignment.size} members.`,
        );
      if (existing.assignmentEpoch !== -1)
        throw new ConsumerGroupIllegalStateError(
          `Received a tombstone record to delete group ${record.group} but did not receive ConsumerGroupTargetAssignmentMetadataValue tombstone.`,
        );
      groups.delete(record.group);
      return existing;
    }
    case 4:
      if (record.value === null && existing === undefined) return undefined;
      group().hasSubscriptionMetadataRecord = record.value !== null;
      return undefined;
    case 5: {
      if (record.value !== null) {
        const g = group();
        const v = record.value;
        g.updateMember({
          ...g.getOrMaybeCreateMember(record.memberId, true),
          instanceId: v.instanceId,
          rackId: v.rackId,
          clientId: v.clientId,
          clientHost: v.clientHost,
          subscribedTopicNames: [...v.subscribedTopicNames],
          subscribedTopicRegex: v.subscribedTopicRegex,
          rebalanceTimeoutMs: v.rebalanceTimeoutMs,
          serverAssignor: v.serverAssignor,
          classicMemberMetadata: v.classicMemberMetadata,
        });
        return undefined;
      }
      const m = existing?.members.get(record.memberId);
      if (existing === undefined || m === undefined) return undefined;
      // Kafka removes a member only after its current assignment was tombstoned (epoch -1, nothing owned).
      if (m.memberEpoch !== -1)
        throw new ConsumerGroupIllegalStateError(
          `Received a tombstone record to delete member ${record.memberId} but did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone.`,
        );
      existing.removeMember(record.memberId);
      return undefined;
    }
    case 6:
      if (record.value !== null) {
        group().assignmentEpoch = record.value.assignmentEpoch;
        return undefined;
      }
      if (existing === undefined) return undefined;
      if (existing.targetAssignment.size > 0)
        throw new ConsumerGroupIllegalStateError(
          `Received a tombstone record to delete target assignment of ${record.group} but the assignment still has ${existing.targetAssignment.size} members.`,
        );
      existing.assignmentEpoch = -1;
      return undefined;
    case 7:
      if (record.value !== null)
        group().targetAssignment.set(record.memberId, fromTopicPartitions(record.value.topicPartitions));
      else existing?.targetAssignment.delete(record.memberId);
      return undefined;
    case 8: {
      if (record.value !== null) {
        const g = group();
        const v = record.value;
        g.updateMember({
          ...g.getOrMaybeCreateMember(record.memberId, true),
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          state: v.state,
          assignedPartitions: fromTopicPartitions(v.assignedPartitions),
          partitionsPendingRevocation: fromTopicPartitions(v.partitionsPendingRevocation),
        });
        return undefined;
      }
      const m = existing?.members.get(record.memberId);
      if (existing === undefined || m === undefined) return undefined;
      existing.updateMember({
        ...m,
        memberEpoch: -1,
        previousMemberEpoch: -1,
        assignedPartitions: new Map(),
        partitionsPendingRevocation: new Map(),
      });
      return undefined;
    }
    case 16:
      if (record.value !== null) group().resolvedRegularExpressions.set(record.regex, record.value);
      else existing?.resolvedRegularExpressions.delete(record.regex);
      return undefined;
  }
}
