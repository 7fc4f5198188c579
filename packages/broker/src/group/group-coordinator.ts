/**
 * The group coordinator: Kafka 4.1's `GroupCoordinatorShard`, a thin façade over the groups
 * (`GroupMetadataManager`, group-metadata-manager.ts, with the classic protocol in classic/) and the
 * offsets (`OffsetMetadataManager`, offset-metadata-manager.ts). Pure: no I/O but the `GroupLog` it is
 * given, which appends records to `__consumer_offsets`; no time but its `CoordinatorTimer`.
 *
 * As in Kafka, a write operation returns records and a response (`CoordinatorResult`); `write` appends the
 * records and then replays them, and `replay` is also what loads the log at start, so that offsets and
 * deletions change state in one place. The classic JoinGroup and SyncGroup writes are Kafka's exception
 * (`replayRecords=false`): those operations change the group themselves.
 */
import { randomUUID } from 'node:crypto';
import { decodeOffsetsRecordKey, type ErrorName } from '@klog/protocol';
import { LOG_LINE_INTERVAL_MS } from '../config/config.js';
import { LogLimiter } from '../logging/log-limiter.js';
import { createLogger } from '../logging/logger.js';
import type { ClassicGroup, JoinResult, SyncResult } from './classic/classic-group.js';
import {
  type HeartbeatInput,
  invalidJoinRequest,
  type JoinGroupInput,
  joinError,
  type LeaveGroupResult,
  type SyncGroupInput,
  syncError,
} from './classic/classic-group-ops.js';
import { decodeConsumerGroupRecord, encodeConsumerGroupRecord } from './consumer-record-serde.js';
import {
  appendErrorToResponseError,
  type CoordinatorResult,
  CoordinatorRuntime,
  type GroupLog,
  type OffsetsRecord,
} from './coordinator-runtime.js';
import { DEFAULT_GROUP_CONFIG, type GroupCoordinatorConfig } from './group-coordinator-config.js';
import {
  type ConsumerGroupConfigLookup,
  type DescribedGroup,
  EMPTY_TOPICS_IMAGE,
  GroupMetadataManager,
  type ListedGroup,
} from './group-metadata-manager.js';
import {
  type ConsumerGroup,
  ConsumerGroupError,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type ConsumerGroupResult,
  type DescribedConsumerGroup,
  type RequestContext,
  type TopicsImage,
} from './modern/index.js';
import {
  type CommitInput,
  type FetchedOffsets,
  OffsetMetadataManager,
  type PartitionCheck,
  type TopicPartitionErrors,
} from './offset-metadata-manager.js';
import type { CoordinatorTimer } from './timer.js';

export type {
  HeartbeatInput,
  JoinGroupInput,
  LeaveGroupResult,
  SyncGroupInput,
} from './classic/classic-group-ops.js';
export {
  type AppendOp,
  appendErrorToResponseError,
  type CoordinatorResult,
  type GroupLog,
  GroupLogError,
  type OffsetsRecord,
} from './coordinator-runtime.js';
export {
  type ConsumerGroupMigrationPolicy,
  DEFAULT_GROUP_CONFIG,
  type GroupCoordinatorConfig,
} from './group-coordinator-config.js';
export type { ConsumerGroupConfigLookup, DescribedGroup, ListedGroup } from './group-metadata-manager.js';
export type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  DescribedConsumerGroup,
  RequestContext,
  TopicsImage,
} from './modern/index.js';
export type {
  CommitInput,
  CommittedOffset,
  FetchedOffsets,
  PartitionCheck,
  TopicPartitionErrors,
} from './offset-metadata-manager.js';

export class GroupCoordinator {
  readonly #config: GroupCoordinatorConfig;
  readonly #runtime: CoordinatorRuntime;
  readonly #refusals: LogLimiter;
  readonly #groups: GroupMetadataManager;
  readonly #offsets: OffsetMetadataManager;
  #closed = false;

  constructor(
    readonly timer: CoordinatorTimer,
    readonly log: GroupLog,
    config: Partial<GroupCoordinatorConfig> = {},
    readonly partitionExists: PartitionCheck = () => true,
    private readonly newId: () => string = randomUUID,
    private readonly onEvent: (line: string) => void = () => {},
    image: TopicsImage = EMPTY_TOPICS_IMAGE,
    groupConfig: ConsumerGroupConfigLookup = () => ({}),
  ) {
    this.#config = { ...DEFAULT_GROUP_CONFIG, ...config };
    this.#runtime = new CoordinatorRuntime(log, (r) => this.#replay(r), onEvent);
    // A client that keeps speaking the wrong protocol to a group retries every heartbeat: its refusals are
    // one line per API and answer every LOG_LINE_INTERVAL_MS, with how many were not logged (as the server's LogLimiter).
    this.#refusals = new LogLimiter(
      createLogger('info', (_level, line) => this.onEvent(line)),
      LOG_LINE_INTERVAL_MS,
      () => this.timer.now(),
    );
    this.#groups = new GroupMetadataManager(
      timer,
      this.#runtime,
      this.#config,
      this.newId,
      this.onEvent,
      image,
      groupConfig,
    );
    this.#offsets = new OffsetMetadataManager(this.#groups, timer, this.#config, partitionExists);
  }

  get config(): GroupCoordinatorConfig {
    return this.#config;
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.#groups.group(groupId);
  }

  consumerGroup(groupId: string): ConsumerGroup | undefined {
    return this.#groups.consumerGroup(groupId);
  }

  get groupCount(): number {
    return this.#groups.groupCount;
  }

  /**
   * Appends a result's records to the group's partition, then replays them (unless `replayRecords` is
   * false); an append that fails changes nothing and answers `onAppendError` (Kafka's `CoordinatorRuntime`).
   */
  write<T>(groupId: string, result: CoordinatorResult<T>, onAppendError: (e: ErrorName) => T): T {
    return this.#runtime.write(groupId, result, onAppendError);
  }

  // The classic protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup.

  /**
   * Kafka's `classicGroupJoin`: a non-empty consumer group takes the member in as a classic member
   * (`classicGroupJoinToConsumerGroup`); an empty one is deleted first (`maybeDeleteEmptyConsumerGroup`:
   * its tombstones written) and the join goes on as classic.
   */
  join(input: JoinGroupInput): Promise<JoinResult> {
    if (this.#closed) return Promise.resolve(joinError('NOT_COORDINATOR', input.memberId));
    const consumer = this.#groups.consumerGroup(input.groupId);
    if (consumer !== undefined) {
      if (!consumer.isEmpty()) {
        const invalid = invalidJoinRequest(input, this.#config);
        if (invalid !== undefined) return Promise.resolve(joinError(invalid, input.memberId));
        const result = this.#groups.classicMembers.join(consumer, input);
        if (result.response.errorCode !== 'NONE')
          this.#logRefusal('JoinGroup', input.groupId, result.response.errorCode);
        return Promise.resolve(
          this.#writeConsumer(input.groupId, result, () =>
            joinError('COORDINATOR_NOT_AVAILABLE', input.memberId),
          ),
        );
      }
      const records = consumer.createGroupTombstoneRecords().map(encodeConsumerGroupRecord);
      if (!this.write(input.groupId, { records, response: true }, () => false))
        return Promise.resolve(joinError('COORDINATOR_NOT_AVAILABLE', input.memberId));
      this.onEvent(`group ${input.groupId}: converted the empty consumer group to a classic group`);
    }
    return this.#groups.classic.join(input);
  }

  /** Kafka's `classicGroupSync`: a consumer group's classic member gets its assignment from the broker. */
  sync(input: SyncGroupInput): Promise<SyncResult> {
    if (this.#closed) return Promise.resolve(syncError('NOT_COORDINATOR'));
    const consumer = this.#groups.consumerGroup(input.groupId);
    if (consumer !== undefined) {
      const result = this.#groups.classicMembers.sync(consumer, input);
      if (result.errorCode !== 'NONE') this.#logRefusal('SyncGroup', input.groupId, result.errorCode);
      return Promise.resolve(result);
    }
    return this.#groups.classic.sync(input);
  }

  heartbeat(input: HeartbeatInput): ErrorName {
    if (this.#closed) return 'NOT_COORDINATOR';
    const consumer = this.#groups.consumerGroup(input.groupId);
    if (consumer !== undefined) {
      const error = this.#groups.classicMembers.heartbeat(consumer, input);
      if (error !== 'NONE' && error !== 'REBALANCE_IN_PROGRESS')
        this.#logRefusal('Heartbeat', input.groupId, error);
      return error;
    }
    return this.#groups.classic.heartbeat(input);
  }

  leave(
    groupId: string,
    members: readonly { memberId: string; groupInstanceId: string | null }[],
  ): LeaveGroupResult {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', members: [] };
    const consumer = this.#groups.consumerGroup(groupId);
    if (consumer !== undefined) {
      const result = this.#groups.classicMembers.leave(consumer, members);
      for (const m of result.response.members)
        if (m.errorCode !== 'NONE') this.#logRefusal('LeaveGroup', groupId, m.errorCode);
      return this.#writeConsumer(groupId, result, (e) => ({
        errorCode: appendErrorToResponseError('leave', e),
        members: [],
      }));
    }
    return this.#groups.classic.leave(groupId, members);
  }

  /**
   * A consumer group's op result written: its records encoded, appended and replayed, then what it does
   * once written (Kafka's `appendFuture`); an append that fails changes nothing and answers `onAppendError`.
   */
  #writeConsumer<T>(groupId: string, result: ConsumerGroupResult<T>, onAppendError: (e: ErrorName) => T): T {
    return this.write(
      groupId,
      { ...result, records: result.records.map(encodeConsumerGroupRecord) },
      onAppendError,
    );
  }

  /**
   * A classic request a consumer group refused: one line per API and error, rate-limited (a client retries).
   * MEMBER_ID_REQUIRED and REBALANCE_IN_PROGRESS are the protocol's own steps, not refusals.
   */
  #logRefusal(api: string, groupId: string, error: ErrorName): void {
    if (error === 'MEMBER_ID_REQUIRED' || error === 'REBALANCE_IN_PROGRESS') return;
    this.#refusals.log(
      'info',
      `${api} ${error}`,
      `group ${groupId}: ${api} refused with ${error} (a consumer group, to which the request came as from a classic member)`,
    );
  }

  // The consumer protocol (KIP-848): ConsumerGroupHeartbeat, ConsumerGroupDescribe.

  /**
   * Kafka's `GroupCoordinatorShard.consumerGroupHeartbeat`: the engine's records, encoded at this edge,
   * written and replayed (consumer group records are replayed at write time, as in Kafka); an append that
   * fails changes nothing and answers COORDINATOR_NOT_AVAILABLE.
   */
  consumerGroupHeartbeat(
    req: ConsumerGroupHeartbeatRequest,
    ctx: RequestContext,
  ): ConsumerGroupHeartbeatResponse {
    if (this.#closed)
      return { kind: 'error', code: 'NOT_COORDINATOR', message: 'The coordinator is closed.' };
    // Kafka's `getOrMaybeCreateConsumerGroup` when the id names a classic group: a join (epoch 0) to an
    // empty one deletes it (`maybeDeleteEmptyClassicGroup`, its tombstone first in the same write); to a
    // non-empty one converts it, members and all, when the migration policy allows (online upgrade).
    const records: OffsetsRecord[] = [];
    const classic = this.#groups.group(req.groupId);
    let converted: ConsumerGroup | undefined;
    if (classic !== undefined) {
      try {
        if (req.memberEpoch !== 0)
          throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Group ${req.groupId} is not a consumer group.`);
        if (classic.isEmpty()) this.#groups.createGroupTombstoneRecords(req.groupId, records);
        else {
          const conversion = this.#groups.convertToConsumerGroup(classic);
          records.push(...conversion.records);
          converted = conversion.group;
        }
      } catch (e) {
        if (!(e instanceof ConsumerGroupError)) throw e;
        this.#refusals.log(
          'info',
          `ConsumerGroupHeartbeat ${e.code}`,
          `group ${req.groupId}: ConsumerGroupHeartbeat refused with ${e.code}: ${e.message}`,
        );
        return { kind: 'error', code: e.code, message: e.message };
      }
    }
    const result = this.#groups.consumer.heartbeat(req, ctx, converted);
    if (result.response.kind === 'error') return result.response;
    records.push(...result.records.map(encodeConsumerGroupRecord));
    const onWritten = () => {
      result.onWritten?.();
      if (converted !== undefined)
        this.onEvent(
          `group ${req.groupId}: converted the classic group to a consumer group (${classic!.members.size} classic member(s) kept)`,
        );
      else if (classic !== undefined)
        this.onEvent(`group ${req.groupId}: converted the empty classic group to a consumer group`);
    };
    return this.write(
      req.groupId,
      { records, response: result.response, onWritten },
      (e): ConsumerGroupHeartbeatResponse => ({
        kind: 'error',
        code: 'COORDINATOR_NOT_AVAILABLE',
        message: `The group's records could not be written: ${e}.`,
      }),
    );
  }

  /** Kafka's `consumerGroupDescribe`, one answer per group id asked. */
  consumerGroupDescribe(groupIds: readonly string[]): DescribedConsumerGroup[] {
    if (this.#closed)
      return groupIds.map((groupId) => ({
        kind: 'error',
        groupId,
        code: 'NOT_COORDINATOR',
        message: 'The coordinator is closed.',
      }));
    return this.#groups.consumer.describe(groupIds);
  }

  // Offsets: OffsetCommit, OffsetFetch, OffsetDelete, expiry.

  commit(input: CommitInput): TopicPartitionErrors[] {
    if (this.#closed) {
      return input.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: 'NOT_COORDINATOR' as ErrorName,
        })),
      }));
    }
    const result = this.#offsets.commitOffset(input);
    let written = result.records.length > 0;
    const response = this.write(input.groupId, result, (e) => {
      written = false;
      const code = appendErrorToResponseError('commit', e);
      for (const t of result.response)
        for (const p of t.partitions) if (p.errorCode === 'NONE') p.errorCode = code;
      return result.response;
    });
    // A commit is a sign of life: Kafka's `rescheduleClassicGroupMemberHeartbeat`.
    const group = this.#groups.group(input.groupId);
    const member = group?.members.get(input.memberId);
    if (written && member !== undefined && group!.is('Stable'))
      this.#groups.classic.scheduleHeartbeat(group!, member, member.sessionTimeoutMs);
    return response;
  }

  /** OffsetFetch: the committed offsets asked for (null: all of the group's), -1 where none is. */
  fetchOffsets(
    groupId: string,
    topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
    memberId: string | null = null,
    memberEpoch = -1,
  ): FetchedOffsets {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', topics: [] };
    return this.#offsets.fetchOffsets(groupId, topics, memberId, memberEpoch);
  }

  /** OffsetDelete (KIP-496): only offsets of topics the group does not consume now. */
  deleteOffsets(
    groupId: string,
    topics: readonly { name: string; partitions: readonly number[] }[],
  ): { errorCode: ErrorName; topics: TopicPartitionErrors[] } {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', topics: [] };
    return this.write(groupId, this.#offsets.deleteOffsets(groupId, topics), (e) => ({
      errorCode: appendErrorToResponseError('offsetDelete', e),
      topics: [],
    }));
  }

  /**
   * Kafka's `cleanupGroupMetadata` (every `offsets.retention.check.interval.ms`): per group, the expired
   * offsets' tombstones, and the group's own once it is Empty with no offsets left, in one write. Returns
   * how many offsets expired.
   */
  expireOffsets(): number {
    if (this.#closed) return 0;
    let expired = 0;
    for (const groupId of this.#groups.groupIds()) {
      const records: OffsetsRecord[] = [];
      const allExpired = this.#offsets.cleanupExpiredOffsets(groupId, records);
      const gone = records.length;
      const deleteGroup = allExpired && this.#groups.maybeDeleteGroup(groupId, records);
      if (records.length === 0) continue;
      if (!this.write(groupId, { records, response: true }, () => false)) continue;
      expired += gone;
      this.onEvent(`group ${groupId}: ${gone} offset(s) expired${deleteGroup ? ', group deleted' : ''}`);
    }
    return expired;
  }

  // Admin: ListGroups, DescribeGroups, DeleteGroups.

  listGroups(statesFilter: readonly string[], typesFilter: readonly string[]): ListedGroup[] {
    return this.#groups.listGroups(statesFilter, typesFilter);
  }

  describe(groupId: string): DescribedGroup | undefined {
    return this.#groups.describe(groupId);
  }

  /** Kafka's `GroupCoordinatorShard.deleteGroups`: each group's offsets' tombstones and its own, in one write. */
  deleteGroups(groupIds: readonly string[]): { groupId: string; errorCode: ErrorName }[] {
    return groupIds.map((groupId) => {
      if (this.#closed) return { groupId, errorCode: 'NOT_COORDINATOR' as ErrorName };
      if (groupId === '') return { groupId, errorCode: 'INVALID_GROUP_ID' as ErrorName };
      const group = this.#groups.anyGroup(groupId);
      const invalid = group === undefined ? 'GROUP_ID_NOT_FOUND' : group.validateDeleteGroup();
      if (invalid !== undefined) return { groupId, errorCode: invalid };
      const records: OffsetsRecord[] = [];
      this.#offsets.deleteAllOffsets(groupId, records);
      this.#groups.createGroupTombstoneRecords(groupId, records);
      const errorCode = this.write<ErrorName>(groupId, { records, response: 'NONE' }, (e) =>
        appendErrorToResponseError('deleteGroups', e),
      );
      if (errorCode === 'NONE') this.onEvent(`group ${groupId}: deleted`);
      return { groupId, errorCode };
    });
  }

  // The log: loading back, and closing.

  /**
   * Applies one record of `__consumer_offsets`, in log order (Kafka's `GroupCoordinatorShard.replay`): at
   * load, and after each write. Throws ProtocolDecodeError on a record that is not one of Kafka's.
   */
  replay(key: Uint8Array, value: Uint8Array | null): void {
    this.#replay({ key, value });
  }

  #replay(record: OffsetsRecord): void {
    const k = decodeOffsetsRecordKey(record.key);
    switch (k.kind) {
      case 'offsetCommit':
        this.#offsets.replay(k.group, k.topic, k.partition, record.value);
        return;
      case 'groupMetadata':
        this.#groups.replayClassic(k.group, record.value);
        return;
      default:
        // Kafka 4's consumer group records (types 3-8, 16): decoded here, at the coordinator's edge, and
        // replayed by the engine as typed records (Kafka's `GroupCoordinatorShard.replay` overloads).
        this.#groups.replayConsumer(decodeConsumerGroupRecord(k, record.value));
        return;
    }
  }

  /** After the replay (Kafka's `onLoaded`): members of loaded groups must heartbeat within their session timeout. */
  loaded(): void {
    this.#groups.onLoaded();
  }

  /** Shutdown: waiting joins and syncs are answered NOT_COORDINATOR (a client finds the coordinator again), timers stop. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#groups.onUnloaded();
    this.timer.cancelAll();
  }
}

/** Kafka's name for this class. */
export { GroupCoordinator as GroupCoordinatorShard };
