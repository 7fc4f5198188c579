import type {
  ConsumerGroupPartitionAssignor,
  MemberSubscriptionAndAssignment,
  SubscriptionType,
  TopicPartitionsMap,
} from '../assignor/partition-assignor.js';
import { assignmentEquals } from './assignment.js';
import type { ConsumerGroupMember } from './consumer/consumer-group-member.js';
import {
  type ConsumerGroupRecord,
  newConsumerGroupTargetAssignmentEpochRecord,
  newConsumerGroupTargetAssignmentRecord,
} from './consumer/consumer-record-helpers.js';
import type { TopicsImage } from './topics-image.js';

export interface TargetAssignmentInput {
  readonly groupId: string;
  readonly groupEpoch: number;
  readonly assignor: ConsumerGroupPartitionAssignor;
  /** Every member after this change: the updated one swapped in, removed ones left out. */
  readonly members: readonly ConsumerGroupMember[];
  /** The topics each member subscribes to, names plus resolved regex (`ConsumerGroup.memberTopicNames`). */
  readonly memberTopicNames: (m: ConsumerGroupMember) => ReadonlySet<string>;
  readonly subscriptionType: SubscriptionType;
  /** The current target of a member (a replaced static member's predecessor's, see `targetAssignmentOf`). */
  readonly currentTarget: (m: ConsumerGroupMember) => TopicPartitionsMap;
  /** The member's own stored target record, undefined if it has none yet (a record is then always written). */
  readonly storedTarget: (memberId: string) => TopicPartitionsMap | undefined;
  readonly image: TopicsImage;
}

export interface TargetAssignmentResult {
  readonly records: ConsumerGroupRecord[];
  readonly targetAssignment: ReadonlyMap<string, TopicPartitionsMap>;
}

/**
 * Kafka's `modern/TargetAssignmentBuilder.build` (L428–490): the member specs go to the assignor; a type 7
 * record is written for each member whose target changed, then the type 6 record that stamps the new target
 * with the group epoch. Topics that do not exist are left out of a member's subscription (Kafka resolves
 * names against the image the same way).
 */
export function buildTargetAssignment(input: TargetAssignmentInput): TargetAssignmentResult {
  const topics = input.image.topics();
  const members = new Map<string, MemberSubscriptionAndAssignment>();
  for (const m of input.members) {
    const ids = new Set<string>();
    for (const name of input.memberTopicNames(m)) {
      const id = topics.has(name) ? input.image.topicId(name) : undefined;
      if (id !== undefined) ids.add(id);
    }
    members.set(m.memberId, {
      instanceId: m.instanceId,
      rackId: m.rackId,
      subscribedTopicIds: ids,
      assignment: input.currentTarget(m),
    });
  }
  const assignment = input.assignor.assign(
    { members, subscriptionType: input.subscriptionType },
    {
      numPartitions: (id) => {
        const name = input.image.topicName(id);
        return name === undefined ? -1 : (topics.get(name) ?? -1);
      },
    },
  );
  const records: ConsumerGroupRecord[] = [];
  const targetAssignment = new Map<string, TopicPartitionsMap>();
  for (const m of input.members) {
    const next = assignment.get(m.memberId) ?? new Map();
    targetAssignment.set(m.memberId, next);
    const stored = input.storedTarget(m.memberId);
    if (stored === undefined || !assignmentEquals(next, stored))
      records.push(newConsumerGroupTargetAssignmentRecord(input.groupId, m.memberId, next));
  }
  records.push(newConsumerGroupTargetAssignmentEpochRecord(input.groupId, input.groupEpoch));
  return { records, targetAssignment };
}
