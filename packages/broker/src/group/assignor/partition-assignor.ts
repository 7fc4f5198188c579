/**
 * The server-side assignor's contract, in the shape of Kafka's `ConsumerGroupPartitionAssignor`, `GroupSpec`,
 * `SubscribedTopicDescriber` and `GroupAssignment` (K: coordinator/group/api/assignor): the assignor sees topic
 * ids and partition counts only, and answers a target assignment per member.
 */

/** topic id → partition indexes; treated as immutable once built (Kafka's assignors rely on the same). */
export type TopicPartitionsMap = ReadonlyMap<string, ReadonlySet<number>>;

/** Kafka's `SubscriptionType`: HOMOGENEOUS when every member subscribes to the same topics. */
export type SubscriptionType = 'HOMOGENEOUS' | 'HETEROGENEOUS';

/** Kafka's `MemberSubscriptionAndAssignmentImpl`: what the assignor knows about one member. */
export interface MemberSubscriptionAndAssignment {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly subscribedTopicIds: ReadonlySet<string>;
  /** The member's current target assignment (the assignor is sticky towards it). */
  readonly assignment: TopicPartitionsMap;
}

/** Kafka's `GroupSpec`. */
export interface GroupSpec {
  readonly members: ReadonlyMap<string, MemberSubscriptionAndAssignment>;
  readonly subscriptionType: SubscriptionType;
}

/** Kafka's `SubscribedTopicDescriber`: -1 for a topic it does not know. */
export interface SubscribedTopicDescriber {
  numPartitions(topicId: string): number;
}

/** Kafka's `GroupAssignment`: member id → its target partitions. */
export type GroupAssignment = ReadonlyMap<string, TopicPartitionsMap>;

export interface ConsumerGroupPartitionAssignor {
  readonly name: string;
  assign(groupSpec: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment;
}

/**
 * Kafka's `PartitionAssignorException`. GMM.updateTargetAssignment turns it into UNKNOWN_SERVER_ERROR, so
 * that is the code it carries.
 */
export class PartitionAssignorError extends Error {
  readonly code = 'UNKNOWN_SERVER_ERROR' as const;
  constructor(message: string) {
    super(message);
    this.name = 'PartitionAssignorError';
  }
}

/** Member ids in code-unit order: Kafka walks a HashMap (unspecified order); a fixed order keeps klog deterministic. */
export function sortedMemberIds(groupSpec: GroupSpec): string[] {
  return [...groupSpec.members.keys()].sort(compareStrings);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Adds `partition` of `topicId` to a mutable assignment under construction. */
export function addPartition(target: Map<string, Set<number>>, topicId: string, partition: number): void {
  let s = target.get(topicId);
  if (s === undefined) {
    s = new Set();
    target.set(topicId, s);
  }
  s.add(partition);
}
