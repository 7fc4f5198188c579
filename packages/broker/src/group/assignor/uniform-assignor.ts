import {
  addPartition,
  type ConsumerGroupPartitionAssignor,
  compareStrings,
  type GroupAssignment,
  type GroupSpec,
  PartitionAssignorError,
  type SubscribedTopicDescriber,
  sortedMemberIds,
  type TopicPartitionsMap,
} from './partition-assignor.js';

/**
 * Kafka's `UniformAssignor` (name "uniform", the default server assignor): balanced and sticky.
 * Homogeneous groups follow `UniformHomogeneousAssignmentBuilder` step by step. Heterogeneous groups use a
 * simpler sticky balance of klog's own (Kafka's `UniformHeterogeneousAssignmentBuilder` is 900 lines; a port
 * is a follow-up): every partition keeps its owner while that owner is subscribed and under its fair share,
 * then the rest go, one by one, to the least-loaded subscriber.
 */
export class UniformAssignor implements ConsumerGroupPartitionAssignor {
  readonly name = 'uniform';

  assign(groupSpec: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
    if (groupSpec.members.size === 0) return new Map();
    return groupSpec.subscriptionType === 'HOMOGENEOUS'
      ? new UniformHomogeneousAssignmentBuilder(groupSpec, describer).build()
      : assignHeterogeneous(groupSpec, describer);
  }
}

/** Kafka's `UniformHomogeneousAssignmentBuilder`, with members walked in sorted id order. */
class UniformHomogeneousAssignmentBuilder {
  readonly #groupSpec: GroupSpec;
  readonly #describer: SubscribedTopicDescriber;
  readonly #subscribedTopicIds: ReadonlySet<string>;
  readonly #memberIds: string[];
  readonly #unfilledMembers: { memberId: string; remainingQuota: number }[] = [];
  readonly #unassignedPartitions: { topicId: string; partition: number }[] = [];
  readonly #targetAssignment = new Map<string, TopicPartitionsMap>();
  #minimumMemberQuota = 0;
  #remainingMembersToGetAnExtraPartition = 0;

  constructor(groupSpec: GroupSpec, describer: SubscribedTopicDescriber) {
    this.#groupSpec = groupSpec;
    this.#describer = describer;
    this.#memberIds = sortedMemberIds(groupSpec);
    this.#subscribedTopicIds = groupSpec.members.get(this.#memberIds[0]!)!.subscribedTopicIds;
  }

  build(): GroupAssignment {
    if (this.#subscribedTopicIds.size === 0) return new Map();
    // Kafka's GroupSpec.isPartitionAssigned: held by some member's current target.
    const assigned = new Map<string, Set<number>>();
    for (const m of this.#groupSpec.members.values())
      for (const [t, ps] of m.assignment) for (const p of ps) addPartition(assigned, t, p);
    let total = 0;
    for (const topicId of this.#subscribedTopicIds) {
      const count = this.#describer.numPartitions(topicId);
      if (count === -1)
        throw new PartitionAssignorError(
          `Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`,
        );
      for (let i = 0; i < count; i++)
        if (!assigned.get(topicId)?.has(i)) this.#unassignedPartitions.push({ topicId, partition: i });
      total += count;
    }
    const members = this.#memberIds.length;
    this.#minimumMemberQuota = Math.floor(total / members);
    this.#remainingMembersToGetAnExtraPartition = total % members;
    this.#maybeRevokePartitions();
    this.#assignRemainingPartitions();
    return this.#targetAssignment;
  }

  /** Keeps each member's old partitions up to its quota; the excess and unsubscribed topics are released. */
  #maybeRevokePartitions(): void {
    const memberCount = this.#memberIds.length;
    let memberIndex = -1;
    for (const memberId of this.#memberIds) {
      memberIndex++;
      const oldAssignment = this.#groupSpec.members.get(memberId)!.assignment;
      let newAssignment: Map<string, Set<number>> | undefined;
      let quota = this.#minimumMemberQuota;
      let quotaHasExtraPartition = false;
      if (this.#remainingMembersToGetAnExtraPartition > 0) {
        quota++;
        quotaHasExtraPartition = true;
      }
      for (const [topicId, partitions] of oldAssignment) {
        if (this.#subscribedTopicIds.has(topicId)) {
          if (partitions.size <= quota) {
            quota -= partitions.size;
          } else {
            for (const partition of [...partitions].sort((a, b) => a - b)) {
              if (quota > 0) {
                quota--;
              } else {
                newAssignment ??= deepCopy(oldAssignment);
                const parts = newAssignment.get(topicId)!;
                parts.delete(partition);
                if (parts.size === 0) newAssignment.delete(topicId);
                this.#unassignedPartitions.push({ topicId, partition });
              }
            }
          }
        } else {
          newAssignment ??= deepCopy(oldAssignment);
          newAssignment.delete(topicId);
        }
      }
      // Give the extra slot back unless this member is among the last ones that must take it.
      if (
        quota > 0 &&
        quotaHasExtraPartition &&
        memberCount - memberIndex > this.#remainingMembersToGetAnExtraPartition
      ) {
        quota--;
        quotaHasExtraPartition = false;
      }
      if (quota > 0) this.#unfilledMembers.push({ memberId, remainingQuota: quota });
      if (quotaHasExtraPartition) this.#remainingMembersToGetAnExtraPartition--;
      this.#targetAssignment.set(memberId, newAssignment ?? oldAssignment);
    }
  }

  #assignRemainingPartitions(): void {
    let index = 0;
    for (const { memberId, remainingQuota } of this.#unfilledMembers) {
      const next = deepCopy(this.#targetAssignment.get(memberId)!);
      for (let i = 0; i < remainingQuota && index < this.#unassignedPartitions.length; i++) {
        const u = this.#unassignedPartitions[index++]!;
        addPartition(next, u.topicId, u.partition);
      }
      this.#targetAssignment.set(memberId, next);
    }
    if (index < this.#unassignedPartitions.length)
      throw new PartitionAssignorError('Partitions were left unassigned');
  }
}

function deepCopy(a: TopicPartitionsMap): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const [t, ps] of a) out.set(t, new Set(ps));
  return out;
}

/**
 * klog's heterogeneous uniform assignment (a deviation, see the class doc). A partition's fair share is
 * computed per topic over its subscribers; a member keeps what it held while under the share, and the
 * remaining partitions go to the subscriber with the fewest partitions (ties: lower member id).
 */
function assignHeterogeneous(groupSpec: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  const memberIds = sortedMemberIds(groupSpec);
  const out = new Map<string, Map<string, Set<number>>>();
  const load = new Map<string, number>();
  for (const m of memberIds) {
    out.set(m, new Map());
    load.set(m, 0);
  }
  const topicIds = new Set<string>();
  for (const m of memberIds) for (const t of groupSpec.members.get(m)!.subscribedTopicIds) topicIds.add(t);
  const sortedTopics = [...topicIds].sort(compareStrings);
  const counts = new Map<string, number>();
  for (const t of sortedTopics) {
    const n = describer.numPartitions(t);
    if (n === -1)
      throw new PartitionAssignorError(
        `Members are subscribed to topic ${t} which doesn't exist in the topic metadata.`,
      );
    counts.set(t, n);
  }
  const unassigned: { topicId: string; partition: number }[] = [];
  for (const t of sortedTopics) {
    const subscribers = memberIds.filter((m) => groupSpec.members.get(m)!.subscribedTopicIds.has(t));
    const n = counts.get(t)!;
    const share = Math.ceil(n / subscribers.length);
    const keptByMember = new Map<string, number>();
    for (let p = 0; p < n; p++) {
      const owner = subscribers.find((m) => groupSpec.members.get(m)!.assignment.get(t)?.has(p));
      const kept = owner === undefined ? 0 : (keptByMember.get(owner) ?? 0);
      if (owner !== undefined && kept < share) {
        addPartition(out.get(owner)!, t, p);
        keptByMember.set(owner, kept + 1);
        load.set(owner, load.get(owner)! + 1);
      } else {
        unassigned.push({ topicId: t, partition: p });
      }
    }
  }
  for (const u of unassigned) {
    let best: string | undefined;
    for (const m of memberIds) {
      if (!groupSpec.members.get(m)!.subscribedTopicIds.has(u.topicId)) continue;
      if (best === undefined || load.get(m)! < load.get(best)!) best = m;
    }
    addPartition(out.get(best!)!, u.topicId, u.partition);
    load.set(best!, load.get(best!)! + 1);
  }
  return out;
}
