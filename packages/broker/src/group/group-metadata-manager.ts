/**
 * The groups of one coordinator, as Kafka 4.1's `GroupMetadataManager` holds them: the group map, the
 * classic protocol's operations (classic/classic-group-ops.ts), ListGroups and DescribeGroups, the removal
 * of a group, its tombstones, the replay of its GroupMetadata record at load, and the timers started once
 * the log is loaded and stopped when the coordinator closes.
 */
import { decodeGroupMetadataValue } from '@klog/protocol';
import { ClassicGroup, ClassicGroupMember, EMPTY_BYTES, type GroupState } from './classic/classic-group.js';
import { ClassicGroupOps, joinError, syncError } from './classic/classic-group-ops.js';
import { encodeConsumerGroupRecord } from './consumer-record-serde.js';
import type { CoordinatorWriter, OffsetsRecord } from './coordinator-runtime.js';
import type { Group } from './group.js';
import {
  classicGroupRecordFromConsumer,
  consumerGroupRecordsFromClassic,
  onlineDowngradeRefusal,
  onlineUpgradeRefusal,
} from './group-conversion.js';
import type { GroupCoordinatorConfig } from './group-coordinator-config.js';
import {
  ClassicMemberOps,
  ConsumerGroup,
  ConsumerGroupError,
  type ConsumerGroupMember,
  ConsumerGroupOps,
  type ConsumerGroupRecord,
  replayConsumerGroupRecord,
  type TopicsImage,
} from './modern/index.js';
import { newGroupMetadataTombstoneRecord } from './record-helpers.js';
import type { CoordinatorTimer } from './timer.js';
import {
  classicGroupHeartbeatKey,
  classicGroupJoinKey,
  classicGroupPendingMemberKey,
  classicGroupSyncKey,
} from './timer-keys.js';

/** No topics: the image of a coordinator built without the broker's log (unit tests of the classic protocol). */
export const EMPTY_TOPICS_IMAGE: TopicsImage = {
  topicsVersion: 0,
  topics: () => new Map(),
  topicId: () => undefined,
  topicName: () => undefined,
};

/** A group's own `consumer.*` GROUP configs (Kafka's `GroupConfigManager`), where it has any. */
export type ConsumerGroupConfigLookup = (groupId: string) => {
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
};

/** One group as ListGroups lists it (Kafka's `ListGroupsResponseData.ListedGroup`). */
export interface ListedGroup {
  readonly groupId: string;
  readonly protocolType: string;
  readonly state: string;
  readonly groupType: 'classic' | 'consumer';
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

export class GroupMetadataManager {
  readonly #groups = new Map<string, ClassicGroup>();
  /**
   * The consumer (KIP-848) groups. Kafka keeps both kinds in one map; klog keeps two, and a group id is in
   * at most one of them (the conversion between them writes the one's tombstones with the other's records).
   */
  readonly #consumerGroups = new Map<string, ConsumerGroup>();
  /** JoinGroup, SyncGroup, Heartbeat, LeaveGroup of classic groups. */
  readonly classic: ClassicGroupOps;
  /** ConsumerGroupHeartbeat and ConsumerGroupDescribe of consumer groups, and their timers. */
  readonly consumer: ConsumerGroupOps;
  /** JoinGroup, SyncGroup, Heartbeat, LeaveGroup of classic members of consumer groups. */
  readonly classicMembers: ClassicMemberOps;

  constructor(
    private readonly timer: CoordinatorTimer,
    runtime: CoordinatorWriter,
    private readonly config: GroupCoordinatorConfig,
    newId: () => string,
    private readonly onEvent: (line: string) => void,
    image: TopicsImage = EMPTY_TOPICS_IMAGE,
    groupConfig: ConsumerGroupConfigLookup = () => ({}),
  ) {
    this.classic = new ClassicGroupOps(this.#groups, timer, runtime, config, newId, onEvent);
    this.consumer = new ConsumerGroupOps({
      groups: this.#consumerGroups,
      timer,
      config: {
        sessionTimeoutMs: config.consumerGroupSessionTimeoutMs,
        heartbeatIntervalMs: config.consumerGroupHeartbeatIntervalMs,
        assignors: config.consumerGroupAssignors,
        maxSize: config.consumerGroupMaxSize,
      },
      image,
      // A timer's fence goes through the runtime as any write: encoded, appended, then replayed.
      write: (groupId, records, onWritten) => {
        runtime.write(
          groupId,
          { records: records.map(encodeConsumerGroupRecord), response: undefined, onWritten },
          () => {},
        );
      },
      groupConfig,
      log: onEvent,
      maybeDowngrade: (group, fenced) => this.#maybeDowngrade(group, fenced),
      maybeDowngradeOnReplace: (group, replaced, joining, rebalance) =>
        this.#maybeDowngrade(group, [replaced], joining, rebalance),
    });
    this.classicMembers = new ClassicMemberOps(this.consumer);
    this.#image = image;
  }

  readonly #image: TopicsImage;

  /**
   * Kafka's `convertToConsumerGroup`, when a consumer-protocol member joins a non-empty classic group
   * (`getOrMaybeCreateConsumerGroup`): throws GROUP_ID_NOT_FOUND with Kafka's reason when the policy or the
   * group does not allow it. Returns the records (the classic tombstone, then the consumer group's), and
   * the consumer group they replay into, for the joining member's heartbeat to work on in the same write.
   * The classic members waiting in a rebalance are told REBALANCE_IN_PROGRESS, to join again; each member
   * is given its session timeout (a timer that finds no consumer group, if the write fails, does nothing).
   */
  convertToConsumerGroup(classic: ClassicGroup): { records: OffsetsRecord[]; group: ConsumerGroup } {
    const refusal = onlineUpgradeRefusal(
      classic,
      this.config.consumerGroupMigrationPolicy,
      this.config.consumerGroupMaxSize,
    );
    if (refusal !== undefined) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', refusal);
    const typed = consumerGroupRecordsFromClassic(classic, this.#image);
    const converted = new Map<string, ConsumerGroup>();
    for (const r of typed) replayConsumerGroupRecord(converted, r);
    const group = converted.get(classic.groupId) ?? new ConsumerGroup(classic.groupId);
    for (const m of classic.members.values()) {
      m.awaitingJoin?.(joinError('REBALANCE_IN_PROGRESS', m.memberId));
      m.awaitingJoin = undefined;
      m.awaitingSync?.(syncError('REBALANCE_IN_PROGRESS'));
      m.awaitingSync = undefined;
    }
    for (const m of group.members.values())
      this.consumer.scheduleSessionTimeout(group.groupId, m.memberId, m);
    return {
      records: [newGroupMetadataTombstoneRecord(classic.groupId), ...typed.map(encodeConsumerGroupRecord)],
      group,
    };
  }

  /**
   * Kafka's downgrade when members are fenced (`consumerGroupFenceMembers`): if only classic members are
   * left and the policy allows it, the consumer group's tombstones and a classic group's record; once
   * written, the classic members' heartbeats are watched and a rebalance starts, which they join.
   */
  #maybeDowngrade(
    group: ConsumerGroup,
    fenced: readonly ConsumerGroupMember[],
    joining?: ConsumerGroupMember,
    rebalance = true,
  ): { record: ConsumerGroupRecord; onWritten: () => void } | undefined {
    const refusal = onlineDowngradeRefusal(
      group,
      fenced,
      this.config.consumerGroupMigrationPolicy,
      this.config.groupMaxSize,
      joining !== undefined,
    );
    if (refusal === null) return undefined;
    if (refusal !== undefined) {
      this.onEvent(`group ${group.groupId}: ${refusal}`);
      return undefined;
    }
    const groupId = group.groupId;
    return {
      record: classicGroupRecordFromConsumer(group, fenced, this.#image, this.timer.now(), joining),
      onWritten: () => {
        const classic = this.#groups.get(groupId);
        if (classic === undefined) return;
        this.onEvent(`group ${groupId}: converted the consumer group to a classic group`);
        for (const m of classic.members.values())
          this.classic.scheduleHeartbeat(classic, m, m.sessionTimeoutMs);
        // A static member that took another's place with the same subscription goes on as it was.
        if (rebalance)
          this.classic.prepareRebalance(
            classic,
            joining === undefined
              ? `Downgrade group ${groupId} from consumer to classic for member leaving.`
              : `Downgrade group ${groupId} from consumer to classic for static member replacement with different subscription.`,
          );
      },
    };
  }

  consumerGroup(groupId: string): ConsumerGroup | undefined {
    return this.#consumerGroups.get(groupId);
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.#groups.get(groupId);
  }

  /**
   * Kafka's `GroupMetadataManager.group(groupId)`: the group of either protocol, as the `Group` interface
   * that the offsets and admin paths ask (a group id is in at most one of the two maps).
   */
  anyGroup(groupId: string): Group | undefined {
    return this.#groups.get(groupId) ?? this.#consumerGroups.get(groupId);
  }

  get groupCount(): number {
    return this.#groups.size + this.#consumerGroups.size;
  }

  /** The ids of every group, taken now (a caller may remove groups as it goes). */
  groupIds(): string[] {
    return [...this.#groups.keys(), ...this.#consumerGroups.keys()];
  }

  /** Kafka's `getOrMaybeCreateClassicGroup(groupId, true)`: the group, made Empty at `nowMs` if it is new. */
  getOrMaybeCreateClassicGroup(groupId: string, nowMs: number): ClassicGroup {
    let group = this.#groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, nowMs);
      this.#groups.set(groupId, group);
    }
    return group;
  }

  /**
   * Kafka's `listGroups`: every group but a Dead one, of either protocol, as `asListedGroup` lists it
   * (a consumer group's protocol type is `consumer`, its states Empty, Assigning, Reconciling, Stable),
   * filtered by state and by type, both case-insensitive; a type Kafka does not know matches no group.
   */
  listGroups(statesFilter: readonly string[], typesFilter: readonly string[]): ListedGroup[] {
    const states = new Set(statesFilter.map((s) => s.trim().toLowerCase()));
    const types = new Set(typesFilter.map((s) => s.toLowerCase()));
    const all: ListedGroup[] = [
      ...[...this.#groups.values()]
        .filter((g) => !g.is('Dead'))
        .map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType() ?? '',
          state: g.state as string,
          groupType: 'classic' as const,
        })),
      ...[...this.#consumerGroups.values()].map((g) => ({
        groupId: g.groupId,
        protocolType: g.protocolType(),
        state: g.stateAsString(),
        groupType: 'consumer' as const,
      })),
    ];
    return all.filter(
      (g) =>
        (states.size === 0 || states.has(g.state.toLowerCase())) &&
        (types.size === 0 || types.has(g.groupType)),
    );
  }

  /** Kafka's `describeGroups` for one classic group. */
  describe(groupId: string): DescribedGroup | undefined {
    const g = this.#groups.get(groupId);
    if (g === undefined) return undefined;
    const stable = g.is('Stable');
    return {
      groupId,
      state: g.state,
      protocolType: g.protocolType() ?? '',
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

  /**
   * Kafka's `createGroupTombstoneRecords`: a classic group's GroupMetadata tombstone, or a consumer group's
   * tombstones in `ConsumerGroup.createGroupTombstoneRecords`'s order (their replay removes the group).
   */
  createGroupTombstoneRecords(groupId: string, records: OffsetsRecord[]): void {
    const consumer = this.#consumerGroups.get(groupId);
    if (consumer === undefined) records.push(newGroupMetadataTombstoneRecord(groupId));
    else for (const r of consumer.createGroupTombstoneRecords()) records.push(encodeConsumerGroupRecord(r));
  }

  /** Kafka's `maybeDeleteGroup`: an empty group's tombstones, of either protocol; true if it is deleted. */
  maybeDeleteGroup(groupId: string, records: OffsetsRecord[]): boolean {
    const group = this.anyGroup(groupId);
    if (group === undefined || !group.isEmpty()) return false;
    this.createGroupTombstoneRecords(groupId, records);
    return true;
  }

  /** Kafka's `removeGroup`, run by the replay of a tombstone: the group is Dead, its timers stop, it is gone. */
  removeGroup(groupId: string): void {
    const group = this.#groups.get(groupId);
    if (group === undefined) return;
    group.transitionTo('Dead', this.timer.now());
    this.timer.cancel(classicGroupJoinKey(groupId));
    this.timer.cancel(classicGroupSyncKey(groupId));
    for (const id of group.pendingMembers) this.timer.cancel(classicGroupPendingMemberKey(groupId, id));
    for (const id of group.members.keys()) this.timer.cancel(classicGroupHeartbeatKey(groupId, id));
    this.#groups.delete(groupId);
  }

  /**
   * Kafka's `replay` of a GroupMetadata record (`ClassicGroup.fromRecord`): the group as its last
   * generation left it, Stable with members or Empty; a tombstone removes it.
   */
  replayClassic(groupId: string, value: Uint8Array | null): void {
    if (value === null) {
      this.removeGroup(groupId);
      return;
    }
    const v = decodeGroupMetadataValue(value);
    const group = new ClassicGroup(
      groupId,
      v.currentStateTimestamp >= 0 ? v.currentStateTimestamp : this.timer.now(),
    );
    group.generationId = v.generation;
    group.setProtocolType(v.protocolType === '' ? null : v.protocolType);
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
    this.#groups.set(groupId, group);
  }

  /**
   * Kafka's `replay` of a consumer group record (types 3-8, 16), at load and after each write: the engine's
   * replay changes the group; a group its epoch tombstone removed has its members' timers cancelled.
   */
  replayConsumer(record: ConsumerGroupRecord): void {
    // Kafka's `getOrMaybeCreatePersistedConsumerGroup`: a simple classic group (made by the replay of an
    // offset, with no records of its own) gives way to the consumer group whose records follow.
    const simple = this.#groups.get(record.group);
    if (record.value !== null && simple?.isEmpty() && simple.protocolType() === null)
      this.#groups.delete(record.group);
    const removed = replayConsumerGroupRecord(this.#consumerGroups, record);
    if (removed !== undefined) this.consumer.onGroupRemoved(removed);
  }

  /**
   * Kafka's `onLoaded`: members of loaded groups must heartbeat within their session timeout, as after a
   * rebalance; a consumer group's member also gets its rebalance timer back while it is revoking.
   */
  onLoaded(): void {
    for (const group of this.#groups.values()) {
      for (const m of group.members.values()) this.classic.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
    this.consumer.onLoaded();
  }

  /** Kafka's `onUnloaded`: waiting joins and syncs are answered NOT_COORDINATOR (a client finds the coordinator again). */
  onUnloaded(): void {
    for (const group of this.#groups.values()) {
      for (const m of group.members.values()) {
        m.awaitingJoin?.(joinError('NOT_COORDINATOR', m.memberId));
        m.awaitingJoin = undefined;
        m.awaitingSync?.(syncError('NOT_COORDINATOR'));
        m.awaitingSync = undefined;
      }
    }
  }
}
