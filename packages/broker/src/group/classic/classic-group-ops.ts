/**
 * The classic protocol's operations, as Kafka 4.1's `GroupMetadataManager` runs them for a `ClassicGroup`:
 * JoinGroup (`classicGroupJoin*`, `completeClassicGroupJoin`), the delayed joins, SyncGroup
 * (`classicGroupSync`), Heartbeat (`classicGroupHeartbeat`), LeaveGroup (`classicGroupLeave`), and the
 * heartbeat, pending-member and sync timeouts. As in Kafka, these operations change the in-memory group
 * themselves and write its GroupMetadata record with `replayRecords=false`: the record is replayed only
 * when the log is loaded.
 */
import type { ErrorName } from '@klog/protocol';
import { appendErrorToResponseError, type CoordinatorWriter } from '../coordinator-runtime.js';
import type { GroupCoordinatorConfig } from '../group-coordinator-config.js';
import { newGroupMetadataRecord } from '../record-helpers.js';
import type { CoordinatorTimer } from '../timer.js';
import {
  classicGroupHeartbeatKey,
  classicGroupJoinKey,
  classicGroupPendingMemberKey,
  classicGroupSyncKey,
} from '../timer-keys.js';
import {
  ClassicGroup,
  ClassicGroupMember,
  EMPTY_BYTES,
  type JoinResult,
  type Protocol,
  type SyncResult,
} from './classic-group.js';

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

export function joinError(errorCode: ErrorName, memberId = ''): JoinResult {
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

export function syncError(errorCode: ErrorName): SyncResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BYTES };
}

/**
 * The checks Kafka's `GroupCoordinatorService.joinGroup` makes before any group is looked at, for a join to
 * a group of either kind: a group id, and a session timeout within group.min/max.session.timeout.ms.
 */
export function invalidJoinRequest(
  input: JoinGroupInput,
  c: Pick<GroupCoordinatorConfig, 'groupMinSessionTimeoutMs' | 'groupMaxSessionTimeoutMs'>,
): ErrorName | undefined {
  if (input.groupId === '') return 'INVALID_GROUP_ID';
  if (
    input.sessionTimeoutMs < c.groupMinSessionTimeoutMs ||
    input.sessionTimeoutMs > c.groupMaxSessionTimeoutMs
  )
    return 'INVALID_SESSION_TIMEOUT';
  return undefined;
}

function metadataBytes(protocols: readonly Protocol[]): number {
  let n = 0;
  for (const p of protocols) n += p.metadata.length + p.name.length;
  return n;
}

/** The operations over the group map of the `GroupMetadataManager`; a closed coordinator answers before they run. */
export class ClassicGroupOps {
  constructor(
    private readonly groups: Map<string, ClassicGroup>,
    private readonly timer: CoordinatorTimer,
    private readonly runtime: CoordinatorWriter,
    private readonly config: GroupCoordinatorConfig,
    private readonly newId: () => string,
    private readonly onEvent: (line: string) => void,
  ) {}

  // ---------------------------------------------------------------------------------------------------
  // JoinGroup

  join(input: JoinGroupInput): Promise<JoinResult> {
    const invalid = invalidJoinRequest(input, this.config);
    if (invalid !== undefined) return Promise.resolve(joinError(invalid, input.memberId));
    const c = this.config;
    let group = this.groups.get(input.groupId);
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
    if (!this.groups.has(group.groupId)) this.groups.set(group.groupId, group);
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
      this.timer.schedule(
        classicGroupPendingMemberKey(group.groupId, newMemberId),
        input.sessionTimeoutMs,
        () => {
          if (!group.pendingMembers.delete(newMemberId)) return;
          this.onEvent(
            `group ${group.groupId}: pending member ${newMemberId} did not rejoin within its session timeout`,
          );
          if (group.is('PreparingRebalance')) this.#maybeCompleteJoinPhase(group);
        },
      );
      return Promise.resolve(joinError('MEMBER_ID_REQUIRED', newMemberId));
    }
    return this.#addMemberThenRebalanceOrCompleteJoin(group, newMemberId, input);
  }

  #joinKnownMember(group: ClassicGroup, input: JoinGroupInput): Promise<JoinResult> {
    const { memberId } = input;
    if (group.pendingMembers.delete(memberId)) {
      this.timer.cancel(classicGroupPendingMemberKey(group.groupId, memberId));
      return this.#addMemberThenRebalanceOrCompleteJoin(group, memberId, input);
    }
    const fenced = group.validateMember(memberId, input.groupInstanceId);
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

  #currentJoinResult(group: ClassicGroup, member: ClassicGroupMember): JoinResult {
    const isLeader = group.leaderId === member.memberId;
    return {
      errorCode: 'NONE',
      generationId: group.generationId,
      protocolType: group.protocolType(),
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
      this.scheduleHeartbeat(group, member, this.config.newMemberJoinTimeoutMs);
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
    this.timer.cancel(classicGroupHeartbeatKey(group.groupId, oldMemberId));
    const unchanged = existing.matches(input.protocols);
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.onEvent(
      `group ${group.groupId}: static member ${instanceId} rejoined as ${newMemberId} (was ${oldMemberId})`,
    );
    if (group.is('Stable') && unchanged && group.leaderId !== newMemberId) {
      // Nothing changed: no rebalance, the member carries on with its assignment (KIP-345).
      member.sessionTimeoutMs = input.sessionTimeoutMs;
      member.rebalanceTimeoutMs = input.rebalanceTimeoutMs;
      this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      return Promise.resolve(this.#currentJoinResult(group, member));
    }
    return this.#updateMemberThenRebalanceOrCompleteJoin(group, member, input, 'static member rejoined');
  }

  /** Kafka's `prepareRebalance`, for a group downgraded from the consumer protocol: its members must rejoin. */
  prepareRebalance(group: ClassicGroup, reason: string): void {
    this.#prepareRebalance(group, reason);
  }

  #maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup, reason: string): void {
    if (group.canRebalance()) this.#prepareRebalance(group, reason);
    else if (group.is('PreparingRebalance')) this.#maybeCompleteJoinPhase(group);
  }

  #prepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance'))
      this.#resetAndPropagateAssignmentWithError(group, 'REBALANCE_IN_PROGRESS');
    this.timer.cancel(classicGroupSyncKey(group.groupId));
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.timer.now());
    this.onEvent(
      `group ${group.groupId}: preparing to rebalance generation ${group.generationId}: ${reason}`,
    );
    const delay = this.config.groupInitialRebalanceDelayMs;
    if (initial && delay > 0) {
      group.newMemberAdded = false;
      this.#initialDelay.add(group);
      this.#scheduleInitialDelayedJoin(group, delay, Math.max(group.rebalanceTimeoutMs() - delay, 0));
      return;
    }
    this.timer.schedule(classicGroupJoinKey(group.groupId), group.rebalanceTimeoutMs(), () =>
      this.#completeJoin(group),
    );
    this.#maybeCompleteJoinPhase(group);
  }

  /** Kafka's `InitialDelayedJoin`: wait `delay`, and again while new members keep coming, within the rebalance timeout. */
  #scheduleInitialDelayedJoin(group: ClassicGroup, delay: number, remaining: number): void {
    this.timer.schedule(classicGroupJoinKey(group.groupId), delay, () => {
      if (group.newMemberAdded && remaining > 0) {
        group.newMemberAdded = false;
        const next = Math.min(this.config.groupInitialRebalanceDelayMs, remaining);
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
    this.timer.cancel(classicGroupJoinKey(group.groupId));
    this.#initialDelay.delete(group);
    for (const m of [...group.members.values()]) {
      if (m.awaitingJoin === undefined) {
        this.onEvent(`group ${group.groupId}: member ${m.memberId} did not rejoin in time and is removed`);
        this.timer.cancel(classicGroupHeartbeatKey(group.groupId, m.memberId));
        group.remove(m.memberId);
      }
    }
    group.initNextGeneration(this.timer.now());
    if (group.is('Empty')) {
      this.onEvent(`group ${group.groupId}: generation ${group.generationId} is empty`);
      // Kafka's replayRecords=false: the group changed above; the record is for the next load.
      this.runtime.write(
        group.groupId,
        { records: [newGroupMetadataRecord(group, new Map())], response: undefined, replayRecords: false },
        () => undefined,
      );
      return;
    }
    this.onEvent(
      `group ${group.groupId}: generation ${group.generationId} (${group.protocolType()}/${group.protocolName}) with ${group.members.size} member(s), leader ${group.leaderId}`,
    );
    const leaderMembers = this.#memberMetadata(group);
    for (const m of group.members.values()) {
      const resolve = m.awaitingJoin!;
      m.awaitingJoin = undefined;
      m.isNew = false;
      this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
      resolve({
        errorCode: 'NONE',
        generationId: group.generationId,
        protocolType: group.protocolType(),
        protocolName: group.protocolName,
        leader: group.leaderId!,
        memberId: m.memberId,
        members: m.memberId === group.leaderId ? leaderMembers : [],
      });
    }
    const generation = group.generationId;
    this.timer.schedule(classicGroupSyncKey(group.groupId), group.rebalanceTimeoutMs(), () =>
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
      this.timer.cancel(classicGroupHeartbeatKey(group.groupId, id));
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

  /** Kafka's `rescheduleClassicGroupMemberHeartbeat`: the member expires unless it is heard from within `timeoutMs`. */
  scheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember, timeoutMs: number): void {
    const memberId = member.memberId;
    this.timer.schedule(classicGroupHeartbeatKey(group.groupId, memberId), timeoutMs, () => {
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
    this.timer.cancel(classicGroupHeartbeatKey(group.groupId, member.memberId));
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
    const group = this.groups.get(input.groupId);
    if (group === undefined) return 'UNKNOWN_MEMBER_ID';
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    const invalid = group.validateMember(input.memberId, input.groupInstanceId);
    if (invalid !== undefined) return invalid;
    if (input.generationId !== group.generationId) return 'ILLEGAL_GENERATION';
    const member = group.members.get(input.memberId)!;
    switch (group.state) {
      case 'Empty':
        return 'UNKNOWN_MEMBER_ID';
      case 'PreparingRebalance':
        this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return 'REBALANCE_IN_PROGRESS';
      default:
        // CompletingRebalance too: a member may heartbeat while its leader computes the assignment.
        this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return 'NONE';
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // SyncGroup

  sync(input: SyncGroupInput): Promise<SyncResult> {
    const group = this.groups.get(input.groupId);
    if (group === undefined) return Promise.resolve(syncError('UNKNOWN_MEMBER_ID'));
    if (group.is('Dead')) return Promise.resolve(syncError('COORDINATOR_NOT_AVAILABLE'));
    const invalid = group.validateMember(input.memberId, input.groupInstanceId);
    if (invalid !== undefined) return Promise.resolve(syncError(invalid));
    if (input.generationId !== group.generationId) return Promise.resolve(syncError('ILLEGAL_GENERATION'));
    if (
      (input.protocolType !== null && input.protocolType !== group.protocolType()) ||
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
        this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return Promise.resolve(this.#syncResult(group, member.assignment));
      default:
        break;
    }
    // CompletingRebalance: wait for the leader's assignment.
    return new Promise((resolve) => {
      member.awaitingSync?.(syncError('REBALANCE_IN_PROGRESS'));
      member.awaitingSync = resolve;
      group.pendingSyncMembers.delete(member.memberId);
      if (group.pendingSyncMembers.size === 0) this.timer.cancel(classicGroupSyncKey(group.groupId));
      this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      if (group.leaderId !== member.memberId) return;
      const given = new Map(input.assignments.map((a) => [a.memberId, a.assignment]));
      const assignment = new Map<string, Uint8Array>();
      for (const id of group.members.keys()) assignment.set(id, given.get(id) ?? EMPTY_BYTES);
      // Kafka's replayRecords=false: the group takes the assignment below, once the record is written.
      const error = this.runtime.write<ErrorName | undefined>(
        group.groupId,
        { records: [newGroupMetadataRecord(group, assignment)], response: undefined, replayRecords: false },
        (code) => appendErrorToResponseError('sync', code),
      );
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
      protocolType: group.protocolType(),
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
    const group = this.groups.get(groupId);
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
        this.timer.cancel(classicGroupPendingMemberKey(group.groupId, memberId));
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
}
