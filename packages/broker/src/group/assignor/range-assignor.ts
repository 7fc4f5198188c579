import {
  type ConsumerGroupPartitionAssignor,
  compareStrings,
  type GroupAssignment,
  type GroupSpec,
  PartitionAssignorError,
  type SubscribedTopicDescriber,
  type TopicPartitionsMap,
} from './partition-assignor.js';

/** Per-topic progress of the range walk (Kafka's `RangeAssignor.TopicMetadata`). */
interface TopicRange {
  readonly topicId: string;
  readonly numPartitions: number;
  numMembers: number;
  minQuota: number;
  extraPartitions: number;
  nextRange: number;
  quotaComputed: boolean;
}

/**
 * Kafka's server-side `RangeAssignor` (name "range"): members sorted by instance id (static members first),
 * then member id; for each topic every member in turn takes the next contiguous range of
 * `partitions / members` partitions, the first `partitions % members` of them one more. In a heterogeneous
 * group the member count is per topic (its subscribers only). Not sticky, as Kafka's.
 */
export class RangeAssignor implements ConsumerGroupPartitionAssignor {
  readonly name = 'range';

  assign(groupSpec: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
    const out = new Map<string, TopicPartitionsMap>();
    if (groupSpec.members.size === 0) return out;
    const memberIds = sortMemberIds(groupSpec);
    const topics = new Map<string, TopicRange>();
    const topicOf = (topicId: string): TopicRange => {
      let t = topics.get(topicId);
      if (t === undefined) {
        const numPartitions = describer.numPartitions(topicId);
        if (numPartitions === -1)
          throw new PartitionAssignorError('Member is subscribed to a non-existent topic');
        t = {
          topicId,
          numPartitions,
          numMembers: 0,
          minQuota: 0,
          extraPartitions: 0,
          nextRange: 0,
          quotaComputed: false,
        };
        topics.set(topicId, t);
      }
      return t;
    };
    if (groupSpec.subscriptionType === 'HOMOGENEOUS') {
      const first = groupSpec.members.get(memberIds[0]!)!;
      for (const id of first.subscribedTopicIds) topicOf(id).numMembers = groupSpec.members.size;
    } else {
      for (const m of memberIds)
        for (const id of groupSpec.members.get(m)!.subscribedTopicIds) topicOf(id).numMembers++;
    }
    for (const memberId of memberIds) {
      const subscribed =
        groupSpec.subscriptionType === 'HOMOGENEOUS'
          ? topics.keys()
          : groupSpec.members.get(memberId)!.subscribedTopicIds.values();
      const assignment = new Map<string, Set<number>>();
      for (const topicId of subscribed) addRange(topics.get(topicId)!, assignment);
      out.set(memberId, assignment);
    }
    return out;
  }
}

function addRange(t: TopicRange, assignment: Map<string, Set<number>>): void {
  if (!t.quotaComputed) {
    t.minQuota = Math.floor(t.numPartitions / t.numMembers);
    t.extraPartitions = t.numPartitions % t.numMembers;
    t.quotaComputed = true;
  }
  const start = t.nextRange;
  let quota = t.minQuota;
  if (t.extraPartitions > 0) {
    quota++;
    t.extraPartitions--;
  }
  const end = Math.min(start + quota, t.numPartitions);
  t.nextRange = end;
  if (start < end) {
    const s = new Set<number>();
    for (let p = start; p < end; p++) s.add(p);
    assignment.set(t.topicId, s);
  }
}

/** Kafka's `RangeAssignor.sortMemberIds`: by instance id when both have one, static before dynamic, else member id. */
function sortMemberIds(groupSpec: GroupSpec): string[] {
  return [...groupSpec.members.keys()].sort((a, b) => {
    const ia = groupSpec.members.get(a)!.instanceId;
    const ib = groupSpec.members.get(b)!.instanceId;
    if (ia !== null && ib !== null) return compareStrings(ia, ib);
    if (ia !== null) return -1;
    if (ib !== null) return 1;
    return compareStrings(a, b);
  });
}
