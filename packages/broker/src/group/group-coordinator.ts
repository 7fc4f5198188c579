/**
 * The group coordinator of the classic protocol: Kafka 4.1's `GroupMetadataManager` (its classic-group
 * path: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, the delayed joins, the heartbeat, pending-member and
 * sync timeouts) and `OffsetMetadataManager` (OffsetCommit, OffsetFetch, OffsetDelete, expiry), in one
 * module because a classic group's offsets and members live and die together. Pure: no I/O but the
 * `GroupLog` it is given, which appends records to `__consumer_offsets`; no time but its `CoordinatorTimer`.
 *
 * As in Kafka, a change is written to the log first and applied once written: a commit, a completed sync
 * (the group's metadata with every member's assignment), a group turning Empty, a deletion (tombstones).
 * `replay` applies the same records read back from the log, which is how a restarted broker knows its
 * groups and offsets.
 */
import { randomUUID } from 'node:crypto';
import {
  consumerSubscriptionTopics,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeOffsetsRecordKey,
  type ErrorName,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
} from '@klog/protocol';
import {
  ClassicGroup,
  ClassicGroupMember,
  EMPTY_BYTES,
  type GroupState,
  type JoinResult,
  type Protocol,
  type SyncResult,
} from './classic-group.js';
import type { CoordinatorTimer } from './timer.js';

export interface GroupCoordinatorConfig {
  /** Kafka's `group.min.session.timeout.ms`. */
  readonly groupMinSessionTimeoutMs: number;
  /** Kafka's `group.max.session.timeout.ms`. */
  readonly groupMaxSessionTimeoutMs: number;
  /** Kafka's `group.initial.rebalance.delay.ms`: how long the first rebalance of an empty group waits for more members. */
  readonly groupInitialRebalanceDelayMs: number;
  /**
   * Kafka's `group.max.size` (Integer.MAX_VALUE there): members and pending members of one group. klog
   * bounds it so that one group cannot take the broker's memory.
   */
  readonly groupMaxSize: number;
  /**
   * The most a group's members' protocol metadata may sum to: the size of the GroupMetadata record the
   * group needs once it is Stable, which could never be written past `message.max.bytes`.
   */
  readonly groupMaxMetadataBytes: number;
  /** Kafka's `offset.metadata.max.bytes`. */
  readonly offsetMetadataMaxBytes: number;
  /** Kafka's `offsets.retention.minutes`, in ms. */
  readonly offsetsRetentionMs: number;
  /** Kafka's `group.classic.new.member.join.timeout.ms`: a new member's join times out after this. */
  readonly newMemberJoinTimeoutMs: number;
}

export const DEFAULT_GROUP_CONFIG: GroupCoordinatorConfig = {
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupInitialRebalanceDelayMs: 3000,
  groupMaxSize: 1000,
  groupMaxMetadataBytes: 1_048_588,
  offsetMetadataMaxBytes: 4096,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  newMemberJoinTimeoutMs: 300_000,
};

/** One record of `__consumer_offsets`: a null value is a tombstone. */
export interface OffsetsRecord {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

/** Thrown by a `GroupLog` that could not append: the Kafka error the log gave. */
export class GroupLogError extends Error {
  override readonly name = 'GroupLogError';
  constructor(
    readonly code: ErrorName,
    message: string,
  ) {
    super(message);
  }
}

/** Where the coordinator's records go: the group's partition of `__consumer_offsets`. */
export interface GroupLog {
  /** Appends durably, or throws (GroupLogError: nothing was appended). */
  append(groupId: string, records: readonly OffsetsRecord[]): void;
}

export interface JoinGroupInput {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly sessionTimeoutMs: number;
  /** -1 (JoinGroup v0): the session timeout. */
  readonly rebalanceTimeoutMs: number;
  readonly protocolType: string;
  readonly protocols: readonly Protocol[];
  readonly clientId: string;
  readonly clientHost: string;
  /** JoinGroup v4+: a first join gets MEMBER_ID_REQUIRED and a member id to come back with (KIP-394). */
  readonly requireKnownMemberId: boolean;
}

export interface SyncGroupInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignments: readonly { memberId: string; assignment: Uint8Array }[];
}

export interface HeartbeatInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface LeaveGroupResult {
  readonly errorCode: ErrorName;
  readonly members: readonly { memberId: string; groupInstanceId: string | null; errorCode: ErrorName }[];
}

export interface CommitInput {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** OffsetCommit v2-v4: -1, or how long the offsets are kept. */
  readonly retentionTimeMs: number;
  readonly topics: readonly {
    readonly name: string;
    readonly partitions: readonly {
      readonly partitionIndex: number;
      readonly committedOffset: number;
      readonly committedLeaderEpoch: number;
      readonly committedMetadata: string | null;
      /** OffsetCommit v1: the client's commit time, -1 (or absent) for the coordinator's clock. */
      readonly commitTimestamp?: number;
    }[];
  }[];
}

export interface TopicPartitionErrors {
  readonly name: string;
  readonly partitions: { partitionIndex: number; errorCode: ErrorName }[];
}

export interface CommittedOffset {
  readonly offset: number;
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestamp: number;
  readonly expireTimestamp: number;
}

export interface FetchedOffsets {
  readonly errorCode: ErrorName;
  readonly topics: {
    name: string;
    partitions: ({ partitionIndex: number; errorCode: ErrorName } & CommittedOffset)[];
  }[];
}

export interface DescribedGroup {
  readonly groupId: string;
  readonly state: GroupState;
  readonly protocolType: string;
  readonly protocolName: string;
  readonly generationId: number;
  readonly leader: string | null;
  readonly members: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    metadata: Uint8Array;
    assignment: Uint8Array;
  }[];
}

/** What a topic-partition check says: the broker knows it, or the Kafka error for a commit to it. */
export type PartitionCheck = (topic: string, partition: number) => boolean;

const NO_OFFSET: CommittedOffset = {
  offset: -1,
  leaderEpoch: -1,
  metadata: '',
  commitTimestamp: -1,
  expireTimestamp: -1,
};

function joinError(errorCode: ErrorName, memberId = ''): JoinResult {
  return {
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    memberId,
    members: [],
  };
}

function syncError(errorCode: ErrorName): SyncResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BYTES };
}

function metadataBytes(protocols: readonly Protocol[]): number {
  let n = 0;
  for (const p of protocols) n += p.metadata.length + p.name.length;
  return n;
}

export class GroupCoordinator {
  readonly #groups = new Map<string, ClassicGroup>();
  /** group → topic → partition → offset. */
  readonly #offsets = new Map<string, Map<string, Map<number, CommittedOffset>>>();
  readonly #config: GroupCoordinatorConfig;
  #closed = false;

  constructor(
    readonly timer: CoordinatorTimer,
    readonly log: GroupLog,
    config: Partial<GroupCoordinatorConfig> = {},
    readonly partitionExists: PartitionCheck = () => true,
    private readonly newId: () => string = randomUUID,
    private readonly onEvent: (line: string) => void = () => {},
  ) {
    this.#config = { ...DEFAULT_GROUP_CONFIG, ...config };
  }

  get config(): GroupCoordinatorConfig {
    return this.#config;
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.#groups.get(groupId);
  }

  get groupCount(): number {
    return this.#groups.size;
  }

  // ---------------------------------------------------------------------------------------------------
  // JoinGroup

  join(input: JoinGroupInput): Promise<JoinResult> {
    if (this.#closed) return Promise.resolve(joinError('NOT_COORDINATOR', input.memberId));
    if (input.groupId === '') return Promise.resolve(joinError('INVALID_GROUP_ID', input.memberId));
    const c = this.#config;
    if (
      input.sessionTimeoutMs < c.groupMinSessionTimeoutMs ||
      input.sessionTimeoutMs > c.groupMaxSessionTimeoutMs
    ) {
      return Promise.resolve(joinError('INVALID_SESSION_TIMEOUT', input.memberId));
    }
    let group = this.#groups.get(input.groupId);
    if (group === undefined) {
      if (input.memberId !== '') return Promise.resolve(joinError('UNKNOWN_MEMBER_ID', input.memberId));
      group = new ClassicGroup(input.groupId, this.timer.now());
    }
    if (group.is('Dead')) return Promise.resolve(joinError('COORDINATOR_NOT_AVAILABLE', input.memberId));
    if (!group.supportsProtocols(input.protocolType, input.protocols)) {
      return Promise.resolve(joinError('INCONSISTENT_GROUP_PROTOCOL', input.memberId));
    }
    const known = group.members.has(input.memberId) || group.pendingMembers.has(input.memberId);
    if (!known && group.members.size + group.pendingMembers.size >= c.groupMaxSize) {
      return Promise.resolve(joinError('GROUP_MAX_SIZE_REACHED', input.memberId));
    }
    const others = [...group.members.values()].reduce(
      (n, m) => n + (m.memberId === input.memberId ? 0 : metadataBytes(m.protocols)),
      0,
    );
    if (others + metadataBytes(input.protocols) > c.groupMaxMetadataBytes) {
      return Promise.resolve(joinError('MESSAGE_TOO_LARGE', input.memberId));
    }
    // A group exists from its first join that was not refused.
    if (!this.#groups.has(group.groupId)) this.#groups.set(group.groupId, group);
    const input2 = {
      ...input,
      rebalanceTimeoutMs: input.rebalanceTimeoutMs < 0 ? input.sessionTimeoutMs : input.rebalanceTimeoutMs,
    };
    return input.memberId === ''
      ? this.#joinUnknownMember(group, input2)
      : this.#joinKnownMember(group, input2);
  }

  #joinUnknownMember(group: ClassicGroup, input: JoinGroupInput): Promise<JoinResult> {
    if (input.groupInstanceId !== null) {
      const newMemberId = `${input.groupInstanceId}-${this.newId()}`;
      const existing = group.staticMember(input.groupInstanceId);
      if (existing !== undefined)
        return this.#updateStaticMemberThenRebalanceOrCompleteJoin(group, existing, newMemberId, input);
      return this.#addMemberThenRebalanceOrCompleteJoin(group, newMemberId, input);
    }
    const newMemberId = `${input.clientId}-${this.newId()}`;
    if (input.requireKnownMemberId) {
      // KIP-394: the member comes back with this id; until then it is pending, and expires like a member.
      group.pendingMembers.add(newMemberId);
      this.timer.schedule(this.#pendingKey(group, newMemberId), input.sessionTimeoutMs, () => {
        if (!group.pendingMembers.delete(newMemberId)) return;
        this.onEvent(
          `group ${group.groupId}: pending member ${newMemberId} did not rejoin within its session timeout`,
        );
        if (group.is('PreparingRebalance')) this.#maybeCompleteJoinPhase(group);
      });
      return Promise.resolve(joinError('MEMBER_ID_REQUIRED', newMemberId));
    }
    return this.#addMemberThenRebalanceOrCompleteJoin(group, newMemberId, input);
  }

  #joinKnownMember(group: ClassicGroup, input: JoinGroupInput): Promise<JoinResult> {
    const { memberId } = input;
    if (group.pendingMembers.delete(memberId)) {
      this.timer.cancel(this.#pendingKey(group, memberId));
      return this.#addMemberThenRebalanceOrCompleteJoin(group, memberId, input);
    }
    const fenced = this.#validateMember(group, memberId, input.groupInstanceId);
    if (fenced !== undefined) return Promise.resolve(joinError(fenced, memberId));
    const member = group.members.get(memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        return this.#updateMemberThenRebalanceOrCompleteJoin(group, member, input, 'member rejoined');
      case 'CompletingRebalance':
        if (member.matches(input.protocols)) return Promise.resolve(this.#currentJoinResult(group, member));
        return this.#updateMemberThenRebalanceOrCompleteJoin(
          group,
          member,
          input,
          'member changed its protocols',
        );
      case 'Stable':
        if (group.leaderId === memberId || !member.matches(input.protocols)) {
          return this.#updateMemberThenRebalanceOrCompleteJoin(
            group,
            member,
            input,
            group.leaderId === memberId ? 'leader rejoined' : 'member changed its protocols',
          );
        }
        return Promise.resolve(this.#currentJoinResult(group, member));
      default:
        return Promise.resolve(joinError('UNKNOWN_MEMBER_ID', memberId));
    }
  }

  /** UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID, or undefined for a member of the group (Kafka's `validateMember`). */
  #validateMember(
    group: ClassicGroup,
    memberId: string,
    groupInstanceId: string | null,
  ): ErrorName | undefined {
    if (groupInstanceId !== null) {
      const holder = group.staticMembers.get(groupInstanceId);
      if (holder !== undefined && holder !== memberId) return 'FENCED_INSTANCE_ID';
    }
    return group.members.has(memberId) ? undefined : 'UNKNOWN_MEMBER_ID';
  }

  #currentJoinResult(group: ClassicGroup, member: ClassicGroupMember): JoinResult {
    const isLeader = group.leaderId === member.memberId;
    return {
      errorCode: 'NONE',
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      members: isLeader ? this.#memberMetadata(group) : [],
    };
  }

  #memberMetadata(group: ClassicGroup): JoinResult['members'] {
    const protocol = group.protocolName!;
    return [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(protocol)!,
    }));
  }

  #addMemberThenRebalanceOrCompleteJoin(
    group: ClassicGroup,
    memberId: string,
    input: JoinGroupInput,
  ): Promise<JoinResult> {
    return new Promise((resolve) => {
      const member = new ClassicGroupMember(
        memberId,
        input.groupInstanceId,
        input.clientId,
        input.clientHost,
        input.rebalanceTimeoutMs,
        input.sessionTimeoutMs,
        input.protocolType,
        input.protocols,
      );
      member.isNew = true;
      member.awaitingJoin = resolve;
      // InitialDelayedJoin waits again while members keep coming.
      if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true;
      group.add(member);
      // A new member's join cannot be seen to disconnect while it waits: it times out instead (Kafka's
      // new member join timeout), and a client that is still there joins again.
      this.#scheduleHeartbeat(group, member, this.#config.newMemberJoinTimeoutMs);
      this.#maybePrepareRebalanceOrCompleteJoin(group, `member ${memberId} joined`);
    });
  }

  #updateMemberThenRebalanceOrCompleteJoin(
    group: ClassicGroup,
    member: ClassicGroupMember,
    input: JoinGroupInput,
    reason: string,
  ): Promise<JoinResult> {
    return new Promise((resolve) => {
      member.protocols = input.protocols;
      member.rebalanceTimeoutMs = input.rebalanceTimeoutMs;
      member.sessionTimeoutMs = input.sessionTimeoutMs;
      // A second JoinGroup of the same member (its first connection timed out): the first gets an answer.
      member.awaitingJoin?.(joinError('REBALANCE_IN_PROGRESS', member.memberId));
      member.awaitingJoin = resolve;
      this.#maybePrepareRebalanceOrCompleteJoin(group, `${reason} (${member.memberId})`);
    });
  }

  /** Kafka's `updateStaticMemberThenRebalanceOrCompleteJoin`: a static member back with no member id. */
  #updateStaticMemberThenRebalanceOrCompleteJoin(
    group: ClassicGroup,
    existing: ClassicGroupMember,
    newMemberId: string,
    input: JoinGroupInput,
  ): Promise<JoinResult> {
    const oldMemberId = existing.memberId;
    const instanceId = input.groupInstanceId!;
    // The old incarnation is fenced: its waiting requests are answered so.
    existing.awaitingJoin?.(joinError('FENCED_INSTANCE_ID', oldMemberId));
    existing.awaitingJoin = undefined;
    existing.awaitingSync?.(syncError('FENCED_INSTANCE_ID'));
    existing.awaitingSync = undefined;
    this.timer.cancel(this.#heartbeatKey(group, oldMemberId));
    const unchanged = existing.matches(input.protocols);
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.onEvent(
      `group ${group.groupId}: static member ${instanceId} rejoined as ${newMemberId} (was ${oldMemberId})`,
    );
    if (group.is('Stable') && unchanged && group.leaderId !== newMemberId) {
      // Nothing changed: no rebalance, the member carries on with its assignment (KIP-345).
      member.sessionTimeoutMs = input.sessionTimeoutMs;
      member.rebalanceTimeoutMs = input.rebalanceTimeoutMs;
      this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      return Promise.resolve(this.#currentJoinResult(group, member));
    }
    return this.#updateMemberThenRebalanceOrCompleteJoin(group, member, input, 'static member rejoined');
  }

  #maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup, reason: string): void {
    if (group.canRebalance()) this.#prepareRebalance(group, reason);
    else if (group.is('PreparingRebalance')) this.#maybeCompleteJoinPhase(group);
  }

  #prepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance'))
      this.#resetAndPropagateAssignmentWithError(group, 'REBALANCE_IN_PROGRESS');
    this.timer.cancel(this.#syncKey(group));
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.timer.now());
    this.onEvent(
      `group ${group.groupId}: preparing to rebalance generation ${group.generationId}: ${reason}`,
    );
    const delay = this.#config.groupInitialRebalanceDelayMs;
    if (initial && delay > 0) {
      group.newMemberAdded = false;
      this.#initialDelay.add(group);
      this.#scheduleInitialDelayedJoin(group, delay, Math.max(group.rebalanceTimeoutMs() - delay, 0));
      return;
    }
    this.timer.schedule(this.#joinKey(group), group.rebalanceTimeoutMs(), () => this.#completeJoin(group));
    this.#maybeCompleteJoinPhase(group);
  }

  /** Kafka's `InitialDelayedJoin`: wait `delay`, and again while new members keep coming, within the rebalance timeout. */
  #scheduleInitialDelayedJoin(group: ClassicGroup, delay: number, remaining: number): void {
    this.timer.schedule(this.#joinKey(group), delay, () => {
      if (group.newMemberAdded && remaining > 0) {
        group.newMemberAdded = false;
        const next = Math.min(this.#config.groupInitialRebalanceDelayMs, remaining);
        this.#scheduleInitialDelayedJoin(group, next, Math.max(remaining - next, 0));
      } else {
        this.#completeJoin(group);
      }
    });
  }

  #maybeCompleteJoinPhase(group: ClassicGroup): void {
    // An initial delay is never cut short (Kafka's `InitialDelayedJoin.tryComplete`): it is there to let more members come.
    if (group.is('PreparingRebalance') && !this.#initialDelay.has(group) && group.hasAllMembersJoined())
      this.#completeJoin(group);
  }

  /** Groups whose first rebalance waits out `group.initial.rebalance.delay.ms`. */
  readonly #initialDelay = new WeakSet<ClassicGroup>();

  /** Kafka's `onCompleteJoin`: members that did not rejoin are out, a new generation starts. */
  #completeJoin(group: ClassicGroup): void {
    if (!group.is('PreparingRebalance')) return;
    this.timer.cancel(this.#joinKey(group));
    this.#initialDelay.delete(group);
    for (const m of [...group.members.values()]) {
      if (m.awaitingJoin === undefined) {
        this.onEvent(`group ${group.groupId}: member ${m.memberId} did not rejoin in time and is removed`);
        this.timer.cancel(this.#heartbeatKey(group, m.memberId));
        group.remove(m.memberId);
      }
    }
    group.initNextGeneration(this.timer.now());
    if (group.is('Empty')) {
      this.onEvent(`group ${group.groupId}: generation ${group.generationId} is empty`);
      this.#tryWriteGroup(group, new Map());
      return;
    }
    this.onEvent(
      `group ${group.groupId}: generation ${group.generationId} (${group.protocolType}/${group.protocolName}) with ${group.members.size} member(s), leader ${group.leaderId}`,
    );
    const leaderMembers = this.#memberMetadata(group);
    for (const m of group.members.values()) {
      const resolve = m.awaitingJoin!;
      m.awaitingJoin = undefined;
      m.isNew = false;
      this.#scheduleHeartbeat(group, m, m.sessionTimeoutMs);
      resolve({
        errorCode: 'NONE',
        generationId: group.generationId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        leader: group.leaderId!,
        memberId: m.memberId,
        members: m.memberId === group.leaderId ? leaderMembers : [],
      });
    }
    const generation = group.generationId;
    this.timer.schedule(this.#syncKey(group), group.rebalanceTimeoutMs(), () =>
      this.#onSyncTimeout(group, generation),
    );
  }

  /** Members that did not send their SyncGroup within the rebalance timeout are removed (Kafka's sync timeout). */
  #onSyncTimeout(group: ClassicGroup, generation: number): void {
    if (group.generationId !== generation || !(group.is('CompletingRebalance') || group.is('Stable'))) return;
    if (group.pendingSyncMembers.size === 0) return;
    const late = [...group.pendingSyncMembers];
    for (const id of late) {
      const m = group.members.get(id);
      if (m === undefined) continue;
      this.timer.cancel(this.#heartbeatKey(group, id));
      m.awaitingSync?.(syncError('UNKNOWN_MEMBER_ID'));
      group.remove(id);
    }
    this.#prepareRebalance(group, `members ${late.join(', ')} did not sync within the rebalance timeout`);
  }

  #resetAndPropagateAssignmentWithError(group: ClassicGroup, error: ErrorName): void {
    for (const m of group.members.values()) {
      m.assignment = EMPTY_BYTES;
      const resolve = m.awaitingSync;
      m.awaitingSync = undefined;
      resolve?.(syncError(error));
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Heartbeats and member expiry

  #scheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember, timeoutMs: number): void {
    const memberId = member.memberId;
    this.timer.schedule(this.#heartbeatKey(group, memberId), timeoutMs, () => {
      const m = group.members.get(memberId);
      if (m === undefined || m.hasSatisfiedHeartbeat()) return;
      this.onEvent(
        `group ${group.groupId}: member ${memberId} expired (no heartbeat within ${timeoutMs} ms)`,
      );
      this.#removeMemberAndUpdateGroup(group, m, 'UNKNOWN_MEMBER_ID');
    });
  }

  #removeMemberAndUpdateGroup(group: ClassicGroup, member: ClassicGroupMember, error: ErrorName): void {
    member.awaitingJoin?.(joinError(error, member.memberId));
    member.awaitingJoin = undefined;
    member.awaitingSync?.(syncError(error));
    member.awaitingSync = undefined;
    this.timer.cancel(this.#heartbeatKey(group, member.memberId));
    group.remove(member.memberId);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.#prepareRebalance(group, `member ${member.memberId} left`);
        break;
      case 'PreparingRebalance':
        this.#maybeCompleteJoinPhase(group);
        break;
      default:
        break;
    }
  }

  heartbeat(input: HeartbeatInput): ErrorName {
    if (this.#closed) return 'NOT_COORDINATOR';
    const group = this.#groups.get(input.groupId);
    if (group === undefined) return 'UNKNOWN_MEMBER_ID';
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    const invalid = this.#validateMember(group, input.memberId, input.groupInstanceId);
    if (invalid !== undefined) return invalid;
    if (input.generationId !== group.generationId) return 'ILLEGAL_GENERATION';
    const member = group.members.get(input.memberId)!;
    switch (group.state) {
      case 'Empty':
        return 'UNKNOWN_MEMBER_ID';
      case 'PreparingRebalance':
        this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return 'REBALANCE_IN_PROGRESS';
      default:
        // CompletingRebalance too: a member may heartbeat while its leader computes the assignment.
        this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return 'NONE';
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // SyncGroup

  sync(input: SyncGroupInput): Promise<SyncResult> {
    if (this.#closed) return Promise.resolve(syncError('NOT_COORDINATOR'));
    const group = this.#groups.get(input.groupId);
    if (group === undefined) return Promise.resolve(syncError('UNKNOWN_MEMBER_ID'));
    if (group.is('Dead')) return Promise.resolve(syncError('COORDINATOR_NOT_AVAILABLE'));
    const invalid = this.#validateMember(group, input.memberId, input.groupInstanceId);
    if (invalid !== undefined) return Promise.resolve(syncError(invalid));
    if (input.generationId !== group.generationId) return Promise.resolve(syncError('ILLEGAL_GENERATION'));
    if (
      (input.protocolType !== null && input.protocolType !== group.protocolType) ||
      (input.protocolName !== null && input.protocolName !== group.protocolName)
    ) {
      return Promise.resolve(syncError('INCONSISTENT_GROUP_PROTOCOL'));
    }
    const member = group.members.get(input.memberId)!;
    switch (group.state) {
      case 'Empty':
        return Promise.resolve(syncError('UNKNOWN_MEMBER_ID'));
      case 'PreparingRebalance':
        return Promise.resolve(syncError('REBALANCE_IN_PROGRESS'));
      case 'Stable':
        group.pendingSyncMembers.delete(member.memberId);
        this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return Promise.resolve(this.#syncResult(group, member.assignment));
      default:
        break;
    }
    // CompletingRebalance: wait for the leader's assignment.
    return new Promise((resolve) => {
      member.awaitingSync?.(syncError('REBALANCE_IN_PROGRESS'));
      member.awaitingSync = resolve;
      group.pendingSyncMembers.delete(member.memberId);
      if (group.pendingSyncMembers.size === 0) this.timer.cancel(this.#syncKey(group));
      this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      if (group.leaderId !== member.memberId) return;
      const given = new Map(input.assignments.map((a) => [a.memberId, a.assignment]));
      const assignment = new Map<string, Uint8Array>();
      for (const id of group.members.keys()) assignment.set(id, given.get(id) ?? EMPTY_BYTES);
      const error = this.#tryWriteGroup(group, assignment);
      if (error !== undefined) {
        this.#resetAndPropagateAssignmentWithError(group, error);
        this.#prepareRebalance(group, `its metadata could not be written (${error})`);
        return;
      }
      for (const m of group.members.values()) {
        m.assignment = assignment.get(m.memberId)!;
        const done = m.awaitingSync;
        m.awaitingSync = undefined;
        done?.(this.#syncResult(group, m.assignment));
      }
      group.transitionTo('Stable', this.timer.now());
      this.onEvent(`group ${group.groupId}: generation ${group.generationId} is stable`);
    });
  }

  #syncResult(group: ClassicGroup, assignment: Uint8Array): SyncResult {
    return {
      errorCode: 'NONE',
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      assignment,
    };
  }

  // ---------------------------------------------------------------------------------------------------
  // LeaveGroup

  leave(
    groupId: string,
    members: readonly { memberId: string; groupInstanceId: string | null }[],
  ): LeaveGroupResult {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', members: [] };
    const group = this.#groups.get(groupId);
    if (group === undefined) return { errorCode: 'UNKNOWN_MEMBER_ID', members: [] };
    if (group.is('Dead')) return { errorCode: 'COORDINATOR_NOT_AVAILABLE', members: [] };
    const results = members.map(({ memberId, groupInstanceId }) => {
      let errorCode: ErrorName = 'NONE';
      if (groupInstanceId !== null) {
        const holder = group.staticMembers.get(groupInstanceId);
        if (holder === undefined) errorCode = 'UNKNOWN_MEMBER_ID';
        else if (memberId !== '' && memberId !== holder) errorCode = 'FENCED_INSTANCE_ID';
        else {
          this.onEvent(`group ${groupId}: static member ${groupInstanceId} (${holder}) left`);
          this.#removeMemberAndUpdateGroup(group, group.members.get(holder)!, 'UNKNOWN_MEMBER_ID');
        }
      } else if (group.pendingMembers.delete(memberId)) {
        this.timer.cancel(this.#pendingKey(group, memberId));
        if (group.is('PreparingRebalance')) this.#maybeCompleteJoinPhase(group);
      } else {
        const m = group.members.get(memberId);
        if (m === undefined) errorCode = 'UNKNOWN_MEMBER_ID';
        else {
          this.onEvent(`group ${groupId}: member ${memberId} left`);
          this.#removeMemberAndUpdateGroup(group, m, 'UNKNOWN_MEMBER_ID');
        }
      }
      return { memberId, groupInstanceId, errorCode };
    });
    return { errorCode: 'NONE', members: results };
  }

  // ---------------------------------------------------------------------------------------------------
  // Offsets

  /** Kafka's `ClassicGroup.validateOffsetCommit`. */
  #validateCommit(group: ClassicGroup, input: CommitInput): ErrorName | undefined {
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    // A commit from outside the group protocol (an admin tool, a consumer with assign()): no generation.
    if (input.generationId < 0 && group.is('Empty')) return undefined;
    const invalid = this.#validateMember(group, input.memberId, input.groupInstanceId);
    if (invalid !== undefined) return invalid;
    if (input.generationId !== group.generationId) return 'ILLEGAL_GENERATION';
    if (group.is('CompletingRebalance')) return 'REBALANCE_IN_PROGRESS';
    return undefined;
  }

  commit(input: CommitInput): TopicPartitionErrors[] {
    const all = (errorCode: ErrorName): TopicPartitionErrors[] =>
      input.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      }));
    if (this.#closed) return all('NOT_COORDINATOR');
    if (input.groupId === '') return all('INVALID_GROUP_ID');
    let group = this.#groups.get(input.groupId);
    let created = false;
    if (group === undefined) {
      if (input.generationId >= 0 || input.memberId !== '') return all('ILLEGAL_GENERATION');
      group = new ClassicGroup(input.groupId, this.timer.now());
      created = true;
    }
    const invalid = this.#validateCommit(group, input);
    if (invalid !== undefined) return all(invalid);
    const now = this.timer.now();
    const records: OffsetsRecord[] = [];
    const accepted: { topic: string; partition: number; value: CommittedOffset }[] = [];
    const results: TopicPartitionErrors[] = input.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        let errorCode: ErrorName = 'NONE';
        const metadata = p.committedMetadata ?? '';
        if (!this.partitionExists(t.name, p.partitionIndex)) errorCode = 'UNKNOWN_TOPIC_OR_PARTITION';
        else if (Buffer.byteLength(metadata) > this.#config.offsetMetadataMaxBytes)
          errorCode = 'OFFSET_METADATA_TOO_LARGE';
        else {
          const value: CommittedOffset = {
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata,
            // As Kafka's OffsetAndMetadata.fromRequest: v1's own commit time if it sent one.
            commitTimestamp:
              p.commitTimestamp === undefined || p.commitTimestamp === -1 ? now : p.commitTimestamp,
            expireTimestamp: input.retentionTimeMs > 0 ? now + input.retentionTimeMs : -1,
          };
          accepted.push({ topic: t.name, partition: p.partitionIndex, value });
          records.push({
            key: encodeOffsetCommitKey(input.groupId, t.name, p.partitionIndex),
            value: encodeOffsetCommitValue(value),
          });
        }
        return { partitionIndex: p.partitionIndex, errorCode };
      }),
    }));
    if (records.length === 0) return results;
    const error = this.#append(input.groupId, records);
    if (error !== undefined) {
      const code: ErrorName =
        error === 'MESSAGE_TOO_LARGE' || error === 'RECORD_LIST_TOO_LARGE'
          ? 'INVALID_COMMIT_OFFSET_SIZE'
          : 'COORDINATOR_NOT_AVAILABLE';
      for (const t of results) for (const p of t.partitions) if (p.errorCode === 'NONE') p.errorCode = code;
      return results;
    }
    if (created) this.#groups.set(group.groupId, group);
    for (const a of accepted) this.#setOffset(input.groupId, a.topic, a.partition, a.value);
    const member = group.members.get(input.memberId);
    if (member !== undefined && group.is('Stable'))
      this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    return results;
  }

  /** OffsetFetch: the committed offsets asked for (null: all of the group's), -1 where none is. */
  fetchOffsets(
    groupId: string,
    topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
  ): FetchedOffsets {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', topics: [] };
    const byTopic = this.#offsets.get(groupId);
    if (topics === null) {
      return {
        errorCode: 'NONE',
        topics: [...(byTopic ?? new Map<string, Map<number, CommittedOffset>>())].map(([name, parts]) => ({
          name,
          partitions: [...parts]
            .sort((a, b) => a[0] - b[0])
            .map(([partitionIndex, o]) => ({ partitionIndex, errorCode: 'NONE' as ErrorName, ...o })),
        })),
      };
    }
    return {
      errorCode: 'NONE',
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({
          partitionIndex,
          errorCode: 'NONE' as ErrorName,
          ...(byTopic?.get(t.name)?.get(partitionIndex) ?? NO_OFFSET),
        })),
      })),
    };
  }

  /** OffsetDelete (KIP-496): only offsets of topics the group does not consume now. */
  deleteOffsets(
    groupId: string,
    topics: readonly { name: string; partitions: readonly number[] }[],
  ): { errorCode: ErrorName; topics: TopicPartitionErrors[] } {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', topics: [] };
    if (groupId === '') return { errorCode: 'INVALID_GROUP_ID', topics: [] };
    const group = this.#groups.get(groupId);
    if (group === undefined || group.is('Dead')) return { errorCode: 'GROUP_ID_NOT_FOUND', topics: [] };
    const subscribed = this.#subscribedTopics(group);
    const records: OffsetsRecord[] = [];
    const deleted: [string, number][] = [];
    const results = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partitionIndex) => {
        if (subscribed.has(t.name))
          return { partitionIndex, errorCode: 'GROUP_SUBSCRIBED_TO_TOPIC' as ErrorName };
        if (this.#offsets.get(groupId)?.get(t.name)?.has(partitionIndex)) {
          records.push({ key: encodeOffsetCommitKey(groupId, t.name, partitionIndex), value: null });
          deleted.push([t.name, partitionIndex]);
        }
        return { partitionIndex, errorCode: 'NONE' as ErrorName };
      }),
    }));
    if (records.length > 0) {
      const error = this.#append(groupId, records);
      if (error !== undefined) return { errorCode: 'COORDINATOR_NOT_AVAILABLE', topics: [] };
      for (const [topic, p] of deleted) this.#deleteOffset(groupId, topic, p);
    }
    return { errorCode: 'NONE', topics: results };
  }

  /** Topics a non-empty `consumer` group subscribes to; every topic if a subscription cannot be read. */
  #subscribedTopics(group: ClassicGroup): { has(topic: string): boolean } {
    if (group.is('Empty') || group.protocolType !== 'consumer' || group.protocolName === null)
      return new Set<string>();
    const topics = new Set<string>();
    for (const m of group.members.values()) {
      const t = consumerSubscriptionTopics(m.metadata(group.protocolName) ?? EMPTY_BYTES);
      if (t === undefined) return { has: () => true };
      for (const name of t) topics.add(name);
    }
    return topics;
  }

  #setOffset(groupId: string, topic: string, partition: number, value: CommittedOffset): void {
    let byTopic = this.#offsets.get(groupId);
    if (byTopic === undefined) {
      byTopic = new Map();
      this.#offsets.set(groupId, byTopic);
    }
    let parts = byTopic.get(topic);
    if (parts === undefined) {
      parts = new Map();
      byTopic.set(topic, parts);
    }
    parts.set(partition, value);
  }

  #deleteOffset(groupId: string, topic: string, partition: number): void {
    const byTopic = this.#offsets.get(groupId);
    const parts = byTopic?.get(topic);
    if (parts === undefined) return;
    parts.delete(partition);
    if (parts.size === 0) byTopic!.delete(topic);
    if (byTopic!.size === 0) this.#offsets.delete(groupId);
  }

  /**
   * Kafka's offset expiry (`offsets.retention.minutes`, checked every `offsets.retention.check.interval.ms`):
   * an Empty group's offsets go once it has been Empty that long (a group with no protocol — offsets only —
   * counts from each commit), and an offset committed with a retention time goes at its expire time;
   * then an Empty group with no offsets left is deleted. Tombstones say so in the log. Returns how many
   * offsets expired.
   */
  expireOffsets(): number {
    if (this.#closed) return 0;
    const now = this.timer.now();
    const retention = this.#config.offsetsRetentionMs;
    let expired = 0;
    for (const group of [...this.#groups.values()]) {
      const byTopic = this.#offsets.get(group.groupId);
      const records: OffsetsRecord[] = [];
      const gone: [string, number][] = [];
      if (byTopic !== undefined) {
        for (const [topic, parts] of byTopic) {
          for (const [partition, o] of parts) {
            const due =
              o.expireTimestamp >= 0
                ? now >= o.expireTimestamp
                : group.is('Empty') &&
                  now - (group.protocolType === null ? o.commitTimestamp : group.stateTimestamp) >= retention;
            if (due) {
              records.push({ key: encodeOffsetCommitKey(group.groupId, topic, partition), value: null });
              gone.push([topic, partition]);
            }
          }
        }
      }
      const deleteGroup =
        group.is('Empty') &&
        gone.length === (byTopic === undefined ? 0 : [...byTopic.values()].reduce((n, p) => n + p.size, 0));
      if (deleteGroup) records.push({ key: encodeGroupMetadataKey(group.groupId), value: null });
      if (records.length === 0) continue;
      if (this.#append(group.groupId, records) !== undefined) continue;
      for (const [t, p] of gone) this.#deleteOffset(group.groupId, t, p);
      expired += gone.length;
      if (deleteGroup) this.#dropGroup(group);
      this.onEvent(
        `group ${group.groupId}: ${gone.length} offset(s) expired${deleteGroup ? ', group deleted' : ''}`,
      );
    }
    return expired;
  }

  // ---------------------------------------------------------------------------------------------------
  // Admin: ListGroups, DescribeGroups, DeleteGroups

  listGroups(
    statesFilter: readonly string[],
    typesFilter: readonly string[],
  ): { groupId: string; protocolType: string; state: GroupState }[] {
    const states = new Set(statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(typesFilter.map((s) => s.toLowerCase()));
    if (types.size > 0 && !types.has('classic')) return [];
    return [...this.#groups.values()]
      .filter((g) => !g.is('Dead') && (states.size === 0 || states.has(g.state.toLowerCase())))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state }));
  }

  describe(groupId: string): DescribedGroup | undefined {
    const g = this.#groups.get(groupId);
    if (g === undefined) return undefined;
    const stable = g.is('Stable');
    return {
      groupId,
      state: g.state,
      protocolType: g.protocolType ?? '',
      protocolName: stable ? (g.protocolName ?? '') : '',
      generationId: g.generationId,
      leader: g.leaderId,
      // Kafka shows metadata and assignments only once they mean something: in a Stable group.
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable ? (m.metadata(g.protocolName!) ?? EMPTY_BYTES) : EMPTY_BYTES,
        assignment: stable ? m.assignment : EMPTY_BYTES,
      })),
    };
  }

  deleteGroups(groupIds: readonly string[]): { groupId: string; errorCode: ErrorName }[] {
    return groupIds.map((groupId) => {
      if (this.#closed) return { groupId, errorCode: 'NOT_COORDINATOR' as ErrorName };
      if (groupId === '') return { groupId, errorCode: 'INVALID_GROUP_ID' as ErrorName };
      const group = this.#groups.get(groupId);
      if (group === undefined || group.is('Dead'))
        return { groupId, errorCode: 'GROUP_ID_NOT_FOUND' as ErrorName };
      if (!group.is('Empty')) return { groupId, errorCode: 'NON_EMPTY_GROUP' as ErrorName };
      const records: OffsetsRecord[] = [];
      for (const [topic, parts] of this.#offsets.get(groupId) ?? []) {
        for (const p of parts.keys())
          records.push({ key: encodeOffsetCommitKey(groupId, topic, p), value: null });
      }
      records.push({ key: encodeGroupMetadataKey(groupId), value: null });
      const error = this.#append(groupId, records);
      if (error !== undefined) return { groupId, errorCode: 'COORDINATOR_NOT_AVAILABLE' as ErrorName };
      this.#offsets.delete(groupId);
      this.#dropGroup(group);
      this.onEvent(`group ${groupId}: deleted`);
      return { groupId, errorCode: 'NONE' as ErrorName };
    });
  }

  #dropGroup(group: ClassicGroup): void {
    group.transitionTo('Dead', this.timer.now());
    this.timer.cancel(this.#joinKey(group));
    this.timer.cancel(this.#syncKey(group));
    for (const id of group.pendingMembers) this.timer.cancel(this.#pendingKey(group, id));
    this.#groups.delete(group.groupId);
  }

  // ---------------------------------------------------------------------------------------------------
  // The log: writing, and loading back

  /** The group's metadata record: its members and their assignment (Kafka's `newGroupMetadataRecord`). */
  #tryWriteGroup(group: ClassicGroup, assignment: ReadonlyMap<string, Uint8Array>): ErrorName | undefined {
    const protocol = group.protocolName;
    const value = encodeGroupMetadataValue({
      protocolType: group.protocolType ?? '',
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
    const error = this.#append(group.groupId, [{ key: encodeGroupMetadataKey(group.groupId), value }]);
    // Kafka's SyncGroup answers a record it cannot write (too large) with UNKNOWN_SERVER_ERROR.
    if (error === 'MESSAGE_TOO_LARGE' || error === 'RECORD_LIST_TOO_LARGE') return 'UNKNOWN_SERVER_ERROR';
    return error === undefined ? undefined : 'COORDINATOR_NOT_AVAILABLE';
  }

  #append(groupId: string, records: readonly OffsetsRecord[]): ErrorName | undefined {
    try {
      this.log.append(groupId, records);
      return undefined;
    } catch (error) {
      if (error instanceof GroupLogError) {
        this.onEvent(`group ${groupId}: could not write to __consumer_offsets: ${error.message}`);
        return error.code;
      }
      throw error;
    }
  }

  /**
   * Applies one record read back from `__consumer_offsets`, in log order (Kafka's `replay`). Throws
   * ProtocolDecodeError on a record that is not one of Kafka's.
   */
  replay(key: Uint8Array, value: Uint8Array | null): void {
    const k = decodeOffsetsRecordKey(key);
    if (k.kind === 'offsetCommit') {
      if (value === null) {
        this.#deleteOffset(k.group, k.topic, k.partition);
        return;
      }
      const v = decodeOffsetCommitValue(value);
      if (!this.#groups.has(k.group)) this.#groups.set(k.group, new ClassicGroup(k.group, v.commitTimestamp));
      this.#setOffset(k.group, k.topic, k.partition, {
        offset: v.offset,
        leaderEpoch: v.leaderEpoch,
        metadata: v.metadata,
        commitTimestamp: v.commitTimestamp,
        expireTimestamp: v.expireTimestamp,
      });
      return;
    }
    if (value === null) {
      this.#groups.delete(k.group);
      return;
    }
    const v = decodeGroupMetadataValue(value);
    const group = new ClassicGroup(
      k.group,
      v.currentStateTimestamp >= 0 ? v.currentStateTimestamp : this.timer.now(),
    );
    group.generationId = v.generation;
    group.protocolType = v.protocolType === '' ? null : v.protocolType;
    group.protocolName = v.protocol;
    for (const m of v.members) {
      const member = new ClassicGroupMember(
        m.memberId,
        m.groupInstanceId,
        m.clientId,
        m.clientHost,
        m.rebalanceTimeout < 0 ? m.sessionTimeout : m.rebalanceTimeout,
        m.sessionTimeout,
        v.protocolType,
        [{ name: v.protocol ?? '', metadata: m.subscription }],
      );
      member.assignment = m.assignment;
      group.add(member);
    }
    group.leaderId = v.leader;
    group.state = v.members.length > 0 ? 'Stable' : 'Empty';
    this.#groups.set(k.group, group);
  }

  /** After the replay: members of loaded groups must heartbeat within their session timeout, as after a rebalance. */
  loaded(): void {
    for (const group of this.#groups.values()) {
      for (const m of group.members.values()) this.#scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
  }

  /** Shutdown: waiting joins and syncs are answered NOT_COORDINATOR (a client finds the coordinator again), timers stop. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const group of this.#groups.values()) {
      for (const m of group.members.values()) {
        m.awaitingJoin?.(joinError('NOT_COORDINATOR', m.memberId));
        m.awaitingJoin = undefined;
        m.awaitingSync?.(syncError('NOT_COORDINATOR'));
        m.awaitingSync = undefined;
      }
    }
    this.timer.cancelAll();
  }

  #heartbeatKey(group: ClassicGroup, memberId: string): string {
    return `heartbeat\u0000${group.groupId}\u0000${memberId}`;
  }

  #pendingKey(group: ClassicGroup, memberId: string): string {
    return `pending-member\u0000${group.groupId}\u0000${memberId}`;
  }

  #joinKey(group: ClassicGroup): string {
    return `join\u0000${group.groupId}`;
  }

  #syncKey(group: ClassicGroup): string {
    return `sync\u0000${group.groupId}`;
  }
}
