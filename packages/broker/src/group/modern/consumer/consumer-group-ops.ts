import { BUILT_IN_ASSIGNORS } from '../../assignor/index.js';
import type { TopicPartitionsMap } from '../../assignor/partition-assignor.js';
import type { CoordinatorTimer } from '../../timer.js';
import {
  assignmentEquals,
  EMPTY_ASSIGNMENT,
  type TopicPartitions,
  toTopicPartitions,
} from '../assignment.js';
import { ConsumerGroupError, type ConsumerGroupErrorName } from '../errors.js';
import { MemberState } from '../member-state.js';
import { buildTargetAssignment } from '../target-assignment-builder.js';
import { computeGroupHash } from '../topic-metadata-hash.js';
import type { TopicsImage } from '../topics-image.js';
import { ConsumerGroup } from './consumer-group.js';
import {
  type ClassicMemberMetadata,
  type ConsumerGroupMember,
  isReconciledTo,
  sameStrings,
} from './consumer-group-member.js';
import {
  type ConsumerGroupRecord,
  newConsumerGroupCurrentAssignmentRecord,
  newConsumerGroupCurrentAssignmentTombstoneRecord,
  newConsumerGroupEpochRecord,
  newConsumerGroupMemberSubscriptionRecord,
  newConsumerGroupMemberSubscriptionTombstoneRecord,
  newConsumerGroupRegularExpressionRecord,
  newConsumerGroupRegularExpressionTombstone,
  newConsumerGroupSubscriptionMetadataTombstoneRecord,
  newConsumerGroupTargetAssignmentRecord,
  newConsumerGroupTargetAssignmentTombstoneRecord,
} from './consumer-record-helpers.js';
import { buildCurrentAssignment } from './current-assignment-builder.js';

/** Kafka's member epochs with a meaning (`ConsumerGroupHeartbeatRequest`). */
export const JOIN_GROUP_MEMBER_EPOCH = 0;
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

/** The broker's `group.consumer.*` settings the engine uses (Kafka's `GroupCoordinatorConfig`). */
export interface ConsumerGroupConfig {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** `group.consumer.assignors`, the first is the default. */
  readonly assignors: readonly string[];
  readonly maxSize: number;
}

/** ConsumerGroupHeartbeat request fields (Kafka's `ConsumerGroupHeartbeatRequestData`). */
export interface ConsumerGroupHeartbeatRequest {
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[] | null;
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  readonly topicPartitions: TopicPartitions | null;
}

export interface RequestContext {
  readonly clientId: string;
  readonly clientHost: string;
}

export type ConsumerGroupHeartbeatResponse =
  | {
      readonly kind: 'ok';
      readonly memberId: string;
      readonly memberEpoch: number;
      readonly heartbeatIntervalMs: number;
      /** Present only when Kafka sends it (join, full request, or a changed assignment). */
      readonly assignment: TopicPartitions | null;
    }
  | { readonly kind: 'error'; readonly code: ConsumerGroupErrorName; readonly message: string };

/**
 * Kafka's `CoordinatorResult`: records to append (then replay), the answer, and what to do once the records
 * are written (Kafka's `appendFuture`: a classic member's timers, a downgraded group's rebalance).
 */
export interface ConsumerGroupResult<T> {
  readonly records: readonly ConsumerGroupRecord[];
  readonly response: T;
  readonly onWritten?: () => void;
}

/**
 * A downgrade to a classic group (Kafka's `convertToClassicGroup`), built by the group manager that knows
 * both kinds: the classic group's GroupMetadata record, and what to start once it is written.
 */
export interface ClassicDowngrade {
  readonly record: ConsumerGroupRecord;
  readonly onWritten: () => void;
}

export type DescribedConsumerGroup =
  | {
      readonly kind: 'ok';
      readonly groupId: string;
      readonly groupState: string;
      readonly groupEpoch: number;
      readonly assignmentEpoch: number;
      readonly assignorName: string;
      readonly members: readonly DescribedMember[];
    }
  | {
      readonly kind: 'error';
      readonly groupId: string;
      readonly code: ConsumerGroupErrorName;
      readonly message: string;
    };

export interface DescribedMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly memberEpoch: number;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly assignment: DescribedAssignment;
  readonly targetAssignment: DescribedAssignment;
  /** 0: a classic member (JoinGroup/SyncGroup/Heartbeat), 1: the consumer protocol. */
  readonly memberType: 0 | 1;
}

export type DescribedAssignment = readonly { topicId: string; topicName: string; partitions: number[] }[];

export interface ConsumerGroupOpsDeps {
  /** The consumer groups, changed only by replay of the records the ops return. */
  readonly groups: ReadonlyMap<string, ConsumerGroup>;
  readonly timer: CoordinatorTimer;
  readonly config: ConsumerGroupConfig;
  readonly image: TopicsImage;
  /** Appends and replays records a timer produced (a fence), then runs `onWritten`; the runtime's write. */
  readonly write: (groupId: string, records: readonly ConsumerGroupRecord[], onWritten?: () => void) => void;
  /**
   * Kafka's `validateOnlineDowngradeWithFencedMembers` and `convertToClassicGroup`: when only classic members
   * would be left, the group manager may turn the group into a classic one (undefined: it stays).
   */
  readonly maybeDowngrade?: (
    group: ConsumerGroup,
    fenced: readonly ConsumerGroupMember[],
  ) => ClassicDowngrade | undefined;
  /**
   * Kafka's `validateOnlineDowngradeWithReplacedMember`: a classic static member took the place of the last
   * consumer-protocol member; `joining` is the new member as reconciled, `rebalance` whether its
   * subscription differs from the one it replaced.
   */
  readonly maybeDowngradeOnReplace?: (
    group: ConsumerGroup,
    replaced: ConsumerGroupMember,
    joining: ConsumerGroupMember,
    rebalance: boolean,
  ) => ClassicDowngrade | undefined;
  /** Kafka's per-group `consumer.session.timeout.ms` / `consumer.heartbeat.interval.ms` overrides. */
  readonly groupConfig?: (groupId: string) => { sessionTimeoutMs?: number; heartbeatIntervalMs?: number };
  readonly newMemberId?: () => string;
  readonly log?: (line: string) => void;
}

/** Kafka's `REGEX_BATCH_REFRESH_INTERVAL_MS`: regexes are resolved again at most this often per group. */
export const REGEX_BATCH_REFRESH_INTERVAL_MS = 10_000;

/** Kafka's timer keys (GMM L5966, L5970, and the classic members' join and sync keys), and its executor's key for a group's regex refresh. */
export const groupRegexRefreshKey = (groupId: string) => `${groupId}-regex`;
export const groupSessionTimeoutKey = (groupId: string, memberId: string) =>
  `session-timeout-${groupId}-${memberId}`;
export const groupRebalanceTimeoutKey = (groupId: string, memberId: string) =>
  `rebalance-timeout-${groupId}-${memberId}`;
export const groupJoinTimeoutKey = (groupId: string, memberId: string) => `join-${groupId}-${memberId}`;
export const groupSyncTimeoutKey = (groupId: string, memberId: string) => `sync-${groupId}-${memberId}`;

/**
 * The consumer-group (KIP-848) half of Kafka's `GroupMetadataManager`: `consumerGroupHeartbeat`
 * (L2179–2334), `consumerGroupLeave` (L3904), `consumerGroupFenceMembers` (L4049), the session and
 * rebalance timers, and `consumerGroupDescribe` (L643). Every op reads the groups and returns records;
 * it never changes a group itself, so a restart that replays the same records rebuilds the same state.
 */
export class ConsumerGroupOps {
  readonly #d: ConsumerGroupOpsDeps;

  constructor(deps: ConsumerGroupOpsDeps) {
    this.#d = deps;
  }

  /** What the classic members' operations (classic-member-ops.ts) share with these. */
  get deps(): ConsumerGroupOpsDeps {
    return this.#d;
  }

  /** A new member id, as Kafka's `Uuid.randomUuid().toString()`. */
  newMemberId(): string {
    return (this.#d.newMemberId ?? newMemberId)();
  }

  /**
   * `base`: the group to work on when it is not in the map yet, a classic group converted in this same
   * write (Kafka's `convertToConsumerGroup`, whose records come first).
   */
  heartbeat(
    req: ConsumerGroupHeartbeatRequest,
    ctx: RequestContext,
    base?: ConsumerGroup,
  ): ConsumerGroupResult<ConsumerGroupHeartbeatResponse> {
    try {
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH)
        return this.#leave(req);
      return this.#heartbeat(req, ctx, base);
    } catch (e) {
      if (e instanceof ConsumerGroupError)
        return { records: [], response: { kind: 'error', code: e.code, message: e.message } };
      throw e;
    }
  }

  group(groupId: string): ConsumerGroup {
    const g = this.#d.groups.get(groupId);
    if (g === undefined) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Group ${groupId} not found.`);
    return g;
  }

  #heartbeat(
    req: ConsumerGroupHeartbeatRequest,
    ctx: RequestContext,
    base: ConsumerGroup | undefined,
  ): ConsumerGroupResult<ConsumerGroupHeartbeatResponse> {
    const records: ConsumerGroupRecord[] = [];
    const create = req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
    // A new group exists only once its records replay; until then the op works on an empty one.
    const group =
      base ??
      this.#d.groups.get(req.groupId) ??
      (create ? new ConsumerGroup(req.groupId) : this.group(req.groupId));
    const memberId = req.memberId === '' ? this.newMemberId() : req.memberId;
    if (!group.members.has(memberId) && group.members.size >= this.#d.config.maxSize)
      throw new ConsumerGroupError(
        'GROUP_MAX_SIZE_REACHED',
        `The consumer group has reached its maximum capacity of ${this.#d.config.maxSize} members.`,
      );

    // The member: dynamic (GMM L2886) or static (L2951).
    let member: ConsumerGroupMember;
    let replaced: ConsumerGroupMember | undefined;
    if (req.instanceId === null) {
      member = group.getOrMaybeCreateMember(memberId, create);
      throwIfMemberEpochIsInvalid(member, req.memberEpoch, req.topicPartitions);
    } else {
      const existing = group.staticMember(req.instanceId);
      if (create) {
        if (existing === undefined) member = group.getOrMaybeCreateMember(memberId, true);
        else {
          // A classic member's instance id is taken over at once (Kafka checks the release only between
          // two members of the consumer protocol).
          if (
            existing.classicMemberMetadata === null &&
            existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH
          )
            throw new ConsumerGroupError(
              'UNRELEASED_INSTANCE_ID',
              `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
            );
          // The new id takes over the old one's assignment (Kafka's replaceMember).
          member = { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
          replaced = existing;
          records.push(...replaceMemberRecords(group, existing, member));
        }
      } else {
        if (existing === undefined)
          throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Instance id ${req.instanceId} is unknown.`);
        throwIfInstanceIdIsFenced(existing, memberId, req.instanceId);
        throwIfMemberEpochIsInvalid(existing, req.memberEpoch, req.topicPartitions);
        member = existing;
      }
    }

    // 1. The subscription (Kafka's Builder.maybeUpdate…: a null field keeps the current value).
    const updated: ConsumerGroupMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs === -1 ? member.rebalanceTimeoutMs : req.rebalanceTimeoutMs,
      serverAssignor: req.serverAssignor ?? member.serverAssignor,
      subscribedTopicNames:
        req.subscribedTopicNames === null
          ? member.subscribedTopicNames
          : [...new Set(req.subscribedTopicNames)].sort(),
      // An empty regex clears it (Kafka's `isNotEmpty` checks in maybeUpdateRegularExpressions); klog stores null.
      subscribedTopicRegex:
        req.subscribedTopicRegex === null
          ? member.subscribedTopicRegex
          : req.subscribedTopicRegex === ''
            ? null
            : req.subscribedTopicRegex,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      classicMemberMetadata: null,
    };
    const reconciled = this.subscribeAndReconcile(
      group,
      member,
      updated,
      replaced,
      req.topicPartitions,
      records,
    );
    this.scheduleSessionTimeout(group.groupId, memberId, reconciled);
    if (create && !group.members.has(memberId))
      this.#d.log?.(`group ${group.groupId}: member ${memberId} joins (consumer protocol)`);

    const full =
      req.rebalanceTimeoutMs !== -1 &&
      (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) &&
      req.topicPartitions !== null;
    const sendAssignment =
      req.memberEpoch === 0 ||
      full ||
      !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions);
    return {
      records,
      response: {
        kind: 'ok',
        memberId,
        memberEpoch: reconciled.memberEpoch,
        heartbeatIntervalMs: this.#heartbeatIntervalMs(group.groupId),
        assignment: sendAssignment ? toTopicPartitions(reconciled.assignedPartitions) : null,
      },
    };
  }

  /**
   * Steps 1-3 of Kafka's `consumerGroupHeartbeat` and `classicGroupJoinToConsumerGroup`, shared by both
   * protocols' members: the changed subscription written and the group epoch bumped (L3637), the target
   * assignment computed when the epoch moved past it (L3715), and the member reconciled one step towards
   * it (L3460). Adds the records to `records` and returns the reconciled member.
   */
  subscribeAndReconcile(
    group: ConsumerGroup,
    member: ConsumerGroupMember,
    updated: ConsumerGroupMember,
    replaced: ConsumerGroupMember | undefined,
    owned: TopicPartitions | null,
    records: ConsumerGroupRecord[],
  ): ConsumerGroupMember {
    const memberId = updated.memberId;
    if (updated.serverAssignor !== null && !this.#d.config.assignors.includes(updated.serverAssignor))
      throw new ConsumerGroupError(
        'UNSUPPORTED_ASSIGNOR',
        `ServerAssignor ${updated.serverAssignor} is not supported. Supported assignors: ${this.#d.config.assignors.join(', ')}.`,
      );
    let bump = group.groupEpoch === 0;
    if (subscriptionChanged(member, updated)) {
      records.push(newConsumerGroupMemberSubscriptionRecord(group.groupId, updated));
      if (!sameStrings(member.subscribedTopicNames, updated.subscribedTopicNames)) bump = true;
    }
    const others = [...group.members.values()].filter(
      (m) => m.memberId !== memberId && m.memberId !== replaced?.memberId,
    );
    const members = [...others, updated];
    // Called whatever `bump` is: it also checks the regex and schedules its resolution.
    if (this.#maybeUpdateRegularExpressions(group, member, updated, members, records)) bump = true;
    // A regex not resolved yet adds no topic: its resolution comes in a write of its own (below).
    const topicNamesOf = (m: ConsumerGroupMember): Set<string> => group.memberTopicNames(m);

    // Kafka's updateSubscriptionMetadata (L3637): a new hash of the subscribed topics bumps the epoch too.
    let groupEpoch = group.groupEpoch;
    const image = this.#d.image;
    if (bump || group.metadataRefreshVersion !== image.topicsVersion) {
      const subscribed = new Set<string>();
      for (const m of members) for (const t of topicNamesOf(m)) subscribed.add(t);
      const hash = computeGroupHash(subscribed, image);
      if (hash !== group.metadataHash) bump = true;
      if (bump) {
        groupEpoch = group.groupEpoch + 1;
        records.push(newConsumerGroupEpochRecord(group.groupId, groupEpoch, hash));
      }
      if (group.hasSubscriptionMetadataRecord)
        records.push(newConsumerGroupSubscriptionMetadataTombstoneRecord(group.groupId));
      // In-memory only, as Kafka's refresh deadline.
      if (this.#d.groups.get(group.groupId) === group) group.metadataRefreshVersion = image.topicsVersion;
    }

    // 2. The target assignment, when the group epoch moved past it (L3715).
    let targetEpoch = group.assignmentEpoch;
    let target: TopicPartitionsMap = group.targetAssignmentOf(memberId, updated.instanceId);
    if (groupEpoch > group.assignmentEpoch) {
      const preferred = group.preferredServerAssignor(members);
      const assignor = BUILT_IN_ASSIGNORS.get(preferred ?? this.#d.config.assignors[0] ?? 'uniform')!;
      const result = buildTargetAssignment({
        groupId: group.groupId,
        groupEpoch,
        assignor,
        members,
        memberTopicNames: topicNamesOf,
        subscriptionType: ConsumerGroup.subscriptionType(members),
        currentTarget: (m) => (m === updated ? target : group.targetAssignmentOf(m.memberId)),
        storedTarget: (id) =>
          id === memberId && replaced !== undefined ? target : group.targetAssignment.get(id),
        image,
      });
      records.push(...result.records);
      targetEpoch = groupEpoch;
      target = result.targetAssignment.get(memberId) ?? EMPTY_ASSIGNMENT;
    }

    // 3. Reconcile the member towards it (L3460).
    let reconciled = updated;
    if (!isReconciledTo(updated, targetEpoch)) {
      reconciled = buildCurrentAssignment(updated, {
        targetAssignmentEpoch: targetEpoch,
        targetAssignment: target,
        currentPartitionEpoch: (t, p) => {
          // A replaced static member's partitions pass to its successor: not "owned by another".
          const e = group.currentPartitionEpoch(t, p);
          if (e !== -1 && replaced !== undefined && ownsPartition(replaced, t, p)) return -1;
          return e;
        },
        ownedTopicPartitions: owned,
      });
      if (currentAssignmentChanged(updated, reconciled)) {
        records.push(newConsumerGroupCurrentAssignmentRecord(group.groupId, reconciled));
        // A classic member has join and sync timers instead (Kafka: "only join timer and sync timer").
        if (reconciled.classicMemberMetadata !== null) {
          // nothing: its JoinGroup and SyncGroup timers watch it
        } else if (reconciled.state === MemberState.UNREVOKED_PARTITIONS)
          this.#scheduleRebalanceTimeout(
            group.groupId,
            memberId,
            reconciled.memberEpoch,
            reconciled.rebalanceTimeoutMs,
          );
        else this.#d.timer.cancel(groupRebalanceTimeoutKey(group.groupId, memberId));
      }
    }
    return reconciled;
  }

  /**
   * Kafka's `maybeUpdateRegularExpressions` (L3076): a member's changed regex is checked (a new one compiled,
   * INVALID_REGULAR_EXPRESSION), the old one's record removed when no one else uses it; the resolution
   * itself runs after this heartbeat's answer, as Kafka's executor runs it, and writes its own records
   * (`#refreshRegularExpressions`). Returns whether the group epoch must move now (a regex the group had
   * resolved already).
   */
  #maybeUpdateRegularExpressions(
    group: ConsumerGroup,
    member: ConsumerGroupMember,
    updated: ConsumerGroupMember,
    members: readonly ConsumerGroupMember[],
    records: ConsumerGroupRecord[],
  ): boolean {
    const before = regexCounts(group.members.values());
    const oldRe = member.subscribedTopicRegex;
    const newRe = updated.subscribedTopicRegex;
    let bump = false;
    let requireRefresh = false;
    if (oldRe !== newRe) {
      if (oldRe !== null && before.get(oldRe) === 1 && group.resolvedRegularExpressions.has(oldRe))
        records.push(newConsumerGroupRegularExpressionTombstone(group.groupId, oldRe));
      if (newRe !== null) {
        if ((before.get(newRe) ?? 0) === 0) {
          compileRegex(newRe);
          requireRefresh = true;
        } else bump = group.resolvedRegularExpressions.has(newRe);
      }
    }
    // Kafka's conditions for a refresh: the group has regexes, none is being resolved, the last resolution
    // is over REGEX_BATCH_REFRESH_INTERVAL_MS old (one rebalance per batch of changes), and some regex is
    // unresolved or topics were created since.
    if (!requireRefresh && before.size === 0) return bump;
    const key = groupRegexRefreshKey(group.groupId);
    if (this.#d.timer.isScheduled(key)) return bump;
    let lastRefreshMs = -1;
    let lastVersion = -1;
    for (const v of group.resolvedRegularExpressions.values()) {
      lastRefreshMs = Math.max(lastRefreshMs, v.timestamp);
      lastVersion = Math.max(lastVersion, v.version);
    }
    if (lastRefreshMs >= 0 && this.#d.timer.now() <= lastRefreshMs + REGEX_BATCH_REFRESH_INTERVAL_MS)
      return bump;
    const after = regexCounts(members);
    requireRefresh ||= after.size !== group.resolvedRegularExpressions.size;
    requireRefresh ||= lastVersion < this.#d.image.topicsVersion;
    if (requireRefresh && after.size > 0) {
      const regexes = [...after.keys()];
      this.#d.timer.schedule(key, 0, () => this.#refreshRegularExpressions(group.groupId, regexes));
    }
    return bump;
  }

  /**
   * Kafka's `refreshRegularExpressions` then `handleRegularExpressionsResult`: each regex still in use
   * resolved against the topics now (a full match, as RE2J's `matches()`; the JS dialect, not RE2's) and
   * written as a type 16 record; a changed topic set or group hash bumps the group epoch, so the members'
   * next heartbeats get their new target.
   */
  #refreshRegularExpressions(groupId: string, regexes: readonly string[]): void {
    const group = this.#d.groups.get(groupId);
    if (group === undefined) return;
    const image = this.#d.image;
    const inUse = regexCounts(group.members.values());
    const records: ConsumerGroupRecord[] = [];
    const resolved = new Map<string, readonly string[]>();
    for (const [re, v] of group.resolvedRegularExpressions) resolved.set(re, v.topics);
    let bump = false;
    for (const re of regexes) {
      if (!inUse.has(re)) continue;
      const compiled = compileRegex(re); // compiled once already, in the heartbeat that brought it
      const topics = [...image.topics().keys()].filter((t) => compiled.test(t)).sort();
      if (!sameStrings(group.resolvedRegularExpressions.get(re)?.topics ?? [], topics)) bump = true;
      resolved.set(re, topics);
      records.push(
        newConsumerGroupRegularExpressionRecord(groupId, re, {
          topics,
          version: image.topicsVersion,
          timestamp: this.#d.timer.now(),
        }),
      );
    }
    if (records.length === 0) return;
    const subscribed = group.subscribedTopicNames(group.members.values(), resolved);
    const hash = computeGroupHash(subscribed, image);
    if (hash !== group.metadataHash) bump = true;
    if (bump) {
      records.push(newConsumerGroupEpochRecord(groupId, group.groupEpoch + 1, hash));
      this.#d.log?.(
        `group ${groupId}: regular expression(s) resolved (${regexes.join(', ')}), group epoch ${group.groupEpoch + 1}`,
      );
    }
    this.#d.write(groupId, records);
  }

  /** Kafka's `consumerGroupLeave` (L3904): -1 fences the member, -2 keeps a static member's place. */
  #leave(req: ConsumerGroupHeartbeatRequest): ConsumerGroupResult<ConsumerGroupHeartbeatResponse> {
    const group = this.group(req.groupId);
    const interval = 0;
    const ok = (memberEpoch: number, memberId: string): ConsumerGroupHeartbeatResponse => ({
      kind: 'ok',
      memberId,
      memberEpoch,
      heartbeatIntervalMs: interval,
      assignment: null,
    });
    if (req.instanceId === null) {
      const member = group.getOrMaybeCreateMember(req.memberId, false);
      this.#d.log?.(`group ${group.groupId}: member ${member.memberId} left (epoch -1)`);
      return { ...this.fenceMembers(group, [member]), response: ok(req.memberEpoch, req.memberId) };
    }
    const member = group.staticMember(req.instanceId);
    if (member === undefined)
      throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Instance id ${req.instanceId} is unknown.`);
    throwIfInstanceIdIsFenced(member, req.memberId, req.instanceId);
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // The session timer stays: a static member that does not come back is fenced later.
      const leaving: ConsumerGroupMember = {
        ...member,
        memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
        partitionsPendingRevocation: EMPTY_ASSIGNMENT,
      };
      return {
        records: [newConsumerGroupCurrentAssignmentRecord(group.groupId, leaving)],
        response: ok(LEAVE_GROUP_STATIC_MEMBER_EPOCH, member.memberId),
      };
    }
    return { ...this.fenceMembers(group, [member]), response: ok(req.memberEpoch, req.memberId) };
  }

  /**
   * Kafka's `consumerGroupFenceMembers` (L4049): tombstones of each member's 8, 7 and 5 records, of a regex
   * no one else uses, and always a group-epoch bump (with the hash of what is left) so the others rebalance.
   */
  fenceMembers(
    group: ConsumerGroup,
    fenced: readonly ConsumerGroupMember[],
  ): { records: ConsumerGroupRecord[]; onWritten?: () => void } {
    if (fenced.length === 0) return { records: [] };
    for (const m of fenced) this.#cancelTimers(group.groupId, m.memberId);
    // Only classic members left: the group may become a classic group (Kafka's `consumerGroupFenceMembers`).
    const downgrade = this.#d.maybeDowngrade?.(group, fenced);
    if (downgrade !== undefined)
      return {
        records: [...group.createGroupTombstoneRecords(), downgrade.record],
        onWritten: this.afterDowngrade(group, downgrade),
      };
    const records: ConsumerGroupRecord[] = [];
    for (const m of fenced) records.push(...removeMemberRecords(group.groupId, m.memberId));
    const gone = new Set(fenced.map((m) => m.memberId));
    const left = [...group.members.values()].filter((m) => !gone.has(m.memberId));
    const deletedRegexes = new Set<string>();
    for (const m of fenced) {
      const re = m.subscribedTopicRegex;
      if (
        re !== null &&
        !left.some((o) => o.subscribedTopicRegex === re) &&
        group.resolvedRegularExpressions.has(re)
      )
        deletedRegexes.add(re);
    }
    for (const re of deletedRegexes)
      records.push(newConsumerGroupRegularExpressionTombstone(group.groupId, re));
    const hash = computeGroupHash(group.subscribedTopicNames(left), this.#d.image);
    records.push(newConsumerGroupEpochRecord(group.groupId, group.groupEpoch + 1, hash));
    return { records };
  }

  /** Kafka's `onLoaded` (L5837) for consumer groups: session timers for all, rebalance timers for UNREVOKED. */
  onLoaded(): void {
    for (const g of this.#d.groups.values())
      for (const m of g.members.values()) {
        this.scheduleSessionTimeout(g.groupId, m.memberId);
        if (m.state === MemberState.UNREVOKED_PARTITIONS)
          this.#scheduleRebalanceTimeout(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
  }

  /** Kafka's `consumerGroupDescribe` (L643) and `ConsumerGroup.asDescribedGroup` (L1108). */
  describe(groupIds: readonly string[]): DescribedConsumerGroup[] {
    return groupIds.map((groupId): DescribedConsumerGroup => {
      if (groupId === '')
        return { kind: 'error', groupId, code: 'INVALID_GROUP_ID', message: 'Group id must not be empty.' };
      const g = this.#d.groups.get(groupId);
      if (g === undefined)
        return { kind: 'error', groupId, code: 'GROUP_ID_NOT_FOUND', message: `Group ${groupId} not found.` };
      const described = (a: TopicPartitionsMap): DescribedAssignment =>
        toTopicPartitions(a).map((tp) => ({ ...tp, topicName: this.#d.image.topicName(tp.topicId) ?? '' }));
      return {
        kind: 'ok',
        groupId,
        groupState: g.state(),
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        assignorName: g.preferredServerAssignor() ?? this.#d.config.assignors[0] ?? 'uniform',
        members: [...g.members.values()].map((m) => ({
          memberId: m.memberId,
          instanceId: m.instanceId,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscribedTopicNames: m.subscribedTopicNames,
          subscribedTopicRegex: m.subscribedTopicRegex,
          assignment: described(m.assignedPartitions),
          targetAssignment: described(g.targetAssignmentOf(m.memberId)),
          memberType: m.classicMemberMetadata === null ? 1 : 0,
        })),
      };
    });
  }

  /** A classic member keeps the session timeout of its JoinGroup; the others get the group's. */
  #sessionTimeoutMs(groupId: string, member: ConsumerGroupMember | undefined): number {
    const classic = member?.classicMemberMetadata?.sessionTimeoutMs;
    if (classic !== undefined) return classic;
    return this.#d.groupConfig?.(groupId).sessionTimeoutMs ?? this.#d.config.sessionTimeoutMs;
  }

  #heartbeatIntervalMs(groupId: string): number {
    return this.#d.groupConfig?.(groupId).heartbeatIntervalMs ?? this.#d.config.heartbeatIntervalMs;
  }

  /** On expiry the member is fenced (GMM L4304, L4334). */
  scheduleSessionTimeout(groupId: string, memberId: string, member?: ConsumerGroupMember): void {
    const ms = this.#sessionTimeoutMs(groupId, member ?? this.#d.groups.get(groupId)?.members.get(memberId));
    this.#d.timer.schedule(groupSessionTimeoutKey(groupId, memberId), ms, () => {
      const g = this.#d.groups.get(groupId);
      const m = g?.members.get(memberId);
      if (g === undefined || m === undefined) return;
      this.#d.log?.(`group ${groupId}: member ${memberId} expired (no heartbeat within ${ms} ms), fenced`);
      const fence = this.fenceMembers(g, [m]);
      this.#d.write(groupId, fence.records, fence.onWritten);
    });
  }

  /** Fences a member still at `memberEpoch` when the timeout passes (GMM L4485). */
  #scheduleRebalanceTimeout(
    groupId: string,
    memberId: string,
    memberEpoch: number,
    rebalanceTimeoutMs: number,
  ): void {
    this.#d.timer.schedule(groupRebalanceTimeoutKey(groupId, memberId), rebalanceTimeoutMs, () => {
      const g = this.#d.groups.get(groupId);
      const m = g?.members.get(memberId);
      if (g === undefined || m === undefined || m.memberEpoch !== memberEpoch) return;
      this.#d.log?.(
        `group ${groupId}: member ${memberId} did not revoke its partitions within ${rebalanceTimeoutMs} ms, fenced`,
      );
      const fence = this.fenceMembers(g, [m]);
      this.#d.write(groupId, fence.records, fence.onWritten);
    });
  }

  /**
   * A timer that fences the member if it fires (Kafka's `consumerGroupFenceMemberOperation`): a classic
   * member's join and sync timeouts; `ifAbsent` keeps one already running.
   */
  scheduleFence(
    key: string,
    groupId: string,
    memberId: string,
    ms: number,
    why: string,
    ifAbsent = false,
  ): void {
    if (ifAbsent && this.#d.timer.isScheduled(key)) return;
    this.#d.timer.schedule(key, ms, () => {
      const g = this.#d.groups.get(groupId);
      const m = g?.members.get(memberId);
      if (g === undefined || m === undefined) return;
      this.#d.log?.(`group ${groupId}: member ${memberId} fenced: ${why}`);
      const fence = this.fenceMembers(g, [m]);
      this.#d.write(groupId, fence.records, fence.onWritten);
    });
  }

  /**
   * Once a downgrade is written: the consumer group's member timers stop (members keep their ids in the
   * classic group, and a stale join or sync timer would fence one after an upgrade back), then the classic
   * group's start.
   */
  afterDowngrade(group: ConsumerGroup, downgrade: ClassicDowngrade): () => void {
    const ids = [...group.members.keys()];
    return () => {
      for (const id of ids) this.#cancelTimers(group.groupId, id);
      downgrade.onWritten();
    };
  }

  #cancelTimers(groupId: string, memberId: string): void {
    this.#d.timer.cancel(groupSessionTimeoutKey(groupId, memberId));
    this.#d.timer.cancel(groupRebalanceTimeoutKey(groupId, memberId));
    this.#d.timer.cancel(groupJoinTimeoutKey(groupId, memberId));
    this.#d.timer.cancel(groupSyncTimeoutKey(groupId, memberId));
  }

  /** Cancels the timers of a removed group's members (the runtime calls it after a type 3 tombstone). */
  onGroupRemoved(group: ConsumerGroup): void {
    for (const id of group.members.keys()) this.#cancelTimers(group.groupId, id);
    this.#d.timer.cancel(groupRegexRefreshKey(group.groupId));
  }
}

/** Kafka's `replaceMember`: the old id's records removed, the new one's written with the old one's target. */
export function replaceMemberRecords(
  group: ConsumerGroup,
  existing: ConsumerGroupMember,
  member: ConsumerGroupMember,
): ConsumerGroupRecord[] {
  return [
    ...removeMemberRecords(group.groupId, existing.memberId),
    newConsumerGroupMemberSubscriptionRecord(group.groupId, member),
    newConsumerGroupTargetAssignmentRecord(
      group.groupId,
      member.memberId,
      group.targetAssignmentOf(existing.memberId),
    ),
    newConsumerGroupCurrentAssignmentRecord(group.groupId, member),
  ];
}

/** Kafka's `GMM.removeMember` (L4260): current, target and subscription tombstones, in that order. */
function removeMemberRecords(groupId: string, memberId: string): ConsumerGroupRecord[] {
  return [
    newConsumerGroupCurrentAssignmentTombstoneRecord(groupId, memberId),
    newConsumerGroupTargetAssignmentTombstoneRecord(groupId, memberId),
    newConsumerGroupMemberSubscriptionTombstoneRecord(groupId, memberId),
  ];
}

/** Kafka's `throwIfConsumerGroupMemberEpochIsInvalid` (L1516–1533). */
function throwIfMemberEpochIsInvalid(
  m: ConsumerGroupMember,
  received: number,
  owned: TopicPartitions | null,
): void {
  if (received > m.memberEpoch)
    throw new ConsumerGroupError(
      'FENCED_MEMBER_EPOCH',
      `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  if (
    received < m.memberEpoch &&
    (received !== m.previousMemberEpoch || !isSubset(owned, m.assignedPartitions))
  )
    throw new ConsumerGroupError(
      'FENCED_MEMBER_EPOCH',
      `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
}

export function throwIfInstanceIdIsFenced(
  m: ConsumerGroupMember,
  receivedMemberId: string,
  instanceId: string,
): void {
  if (m.memberId !== receivedMemberId)
    throw new ConsumerGroupError(
      'FENCED_INSTANCE_ID',
      `Static member ${receivedMemberId} with instance id ${instanceId} was fenced by member ${m.memberId}.`,
    );
}

function isSubset(owned: TopicPartitions | null, assigned: TopicPartitionsMap): boolean {
  if (owned === null) return true;
  return owned.every((tp) => tp.partitions.every((p) => assigned.get(tp.topicId)?.has(p) === true));
}

function ownsPartition(m: ConsumerGroupMember, topicId: string, p: number): boolean {
  return (
    m.assignedPartitions.get(topicId)?.has(p) === true ||
    m.partitionsPendingRevocation.get(topicId)?.has(p) === true
  );
}

function subscriptionChanged(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.instanceId !== b.instanceId ||
    a.rackId !== b.rackId ||
    a.rebalanceTimeoutMs !== b.rebalanceTimeoutMs ||
    a.serverAssignor !== b.serverAssignor ||
    a.subscribedTopicRegex !== b.subscribedTopicRegex ||
    a.clientId !== b.clientId ||
    a.clientHost !== b.clientHost ||
    !sameStrings(a.subscribedTopicNames, b.subscribedTopicNames) ||
    !sameClassicMemberMetadata(a.classicMemberMetadata, b.classicMemberMetadata)
  );
}

/** Kafka's `ClassicMemberMetadata.equals`: the session timeout and every protocol, name and bytes, in order. */
function sameClassicMemberMetadata(
  a: ClassicMemberMetadata | null,
  b: ClassicMemberMetadata | null,
): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.sessionTimeoutMs === b.sessionTimeoutMs &&
    a.supportedProtocols.length === b.supportedProtocols.length &&
    a.supportedProtocols.every(
      (p, i) =>
        p.name === b.supportedProtocols[i]!.name &&
        Buffer.from(p.metadata).equals(b.supportedProtocols[i]!.metadata),
    )
  );
}

function currentAssignmentChanged(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.memberEpoch !== b.memberEpoch ||
    a.previousMemberEpoch !== b.previousMemberEpoch ||
    a.state !== b.state ||
    !assignmentEquals(a.assignedPartitions, b.assignedPartitions) ||
    !assignmentEquals(a.partitionsPendingRevocation, b.partitionsPendingRevocation)
  );
}

/** Kafka's `Uuid.randomUuid().toString()`: 22 base64url characters, never starting with '-'. */
function newMemberId(): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    const s = Buffer.from(bytes).toString('base64url');
    if (!s.startsWith('-')) return s;
  }
}

/** How many of `members` subscribe to each regex (Kafka's `subscribedRegularExpressions`). */
function regexCounts(members: Iterable<ConsumerGroupMember>): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of members)
    if (m.subscribedTopicRegex !== null)
      out.set(m.subscribedTopicRegex, (out.get(m.subscribedTopicRegex) ?? 0) + 1);
  return out;
}

/** Kafka's `throwIfRegularExpressionIsInvalid`: a regex that does not compile is refused in the heartbeat. */
function compileRegex(re: string): RegExp {
  try {
    return new RegExp(`^(?:${re})$`);
  } catch (e) {
    throw new ConsumerGroupError(
      'INVALID_REGULAR_EXPRESSION',
      `SubscribedTopicRegex \`${re}\` is not a valid regular expression: ${(e as Error).message}.`,
    );
  }
}
