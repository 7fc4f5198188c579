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
import type {
  ConsumerGroup,
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  DescribedConsumerGroup,
  RequestContext,
  TopicsImage,
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
export { DEFAULT_GROUP_CONFIG, type GroupCoordinatorConfig } from './group-coordinator-config.js';
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
   * Kafka's `classicGroupJoin` beside a consumer group of the same id: an empty one is deleted first
   * (`maybeDeleteEmptyConsumerGroup`: its tombstones written) and the join goes on as classic; a
   * non-empty one refuses with INCONSISTENT_GROUP_PROTOCOL, where Kafka 4.1 would take the member into
   * the consumer group (`classicGroupJoinToConsumerGroup`, not built in klog).
   */
  join(input: JoinGroupInput): Promise<JoinResult> {
    if (this.#closed) return Promise.resolve(joinError('NOT_COORDINATOR', input.memberId));
    const consumer = this.#groups.consumerGroup(input.groupId);
    if (consumer !== undefined) {
      if (!consumer.isEmpty()) {
        this.#refusals.log(
          'info',
          'JoinGroup INCONSISTENT_GROUP_PROTOCOL',
          `group ${input.groupId}: JoinGroup refused with INCONSISTENT_GROUP_PROTOCOL: it is a consumer group (KIP-848) with ${consumer.members.size} member(s); klog takes no classic member into one`,
        );
        return Promise.resolve(joinError('INCONSISTENT_GROUP_PROTOCOL', input.memberId));
      }
      const records = consumer.createGroupTombstoneRecords().map(encodeConsumerGroupRecord);
      if (!this.write(input.groupId, { records, response: true }, () => false))
        return Promise.resolve(joinError('COORDINATOR_NOT_AVAILABLE', input.memberId));
      this.onEvent(`group ${input.groupId}: converted the empty consumer group to a classic group`);
    }
    return this.#groups.classic.join(input);
  }

  sync(input: SyncGroupInput): Promise<SyncResult> {
    if (this.#closed) return Promise.resolve(syncError('NOT_COORDINATOR'));
    if (this.#refuseClassicToConsumerGroup('SyncGroup', input.groupId))
      return Promise.resolve(syncError('UNKNOWN_MEMBER_ID'));
    return this.#groups.classic.sync(input);
  }

  heartbeat(input: HeartbeatInput): ErrorName {
    if (this.#closed) return 'NOT_COORDINATOR';
    if (this.#refuseClassicToConsumerGroup('Heartbeat', input.groupId)) return 'UNKNOWN_MEMBER_ID';
    return this.#groups.classic.heartbeat(input);
  }

  leave(
    groupId: string,
    members: readonly { memberId: string; groupInstanceId: string | null }[],
  ): LeaveGroupResult {
    if (this.#closed) return { errorCode: 'NOT_COORDINATOR', members: [] };
    if (this.#refuseClassicToConsumerGroup('LeaveGroup', groupId))
      return { errorCode: 'UNKNOWN_MEMBER_ID', members: [] };
    return this.#groups.classic.leave(groupId, members);
  }

  /**
   * A classic Heartbeat, SyncGroup or LeaveGroup to a consumer group: Kafka 4.1 routes it to the group's
   * classic members (`classicGroupHeartbeatToConsumerGroup` and its siblings); klog's consumer groups have
   * none, so the member is unknown (UNKNOWN_MEMBER_ID), with one log line.
   */
  #refuseClassicToConsumerGroup(api: string, groupId: string): boolean {
    if (this.#groups.consumerGroup(groupId) === undefined) return false;
    this.#refusals.log(
      'info',
      `${api} UNKNOWN_MEMBER_ID`,
      `group ${groupId}: ${api} refused with UNKNOWN_MEMBER_ID: it is a consumer group (KIP-848), which has no classic members in klog`,
    );
    return true;
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
    // empty one deletes it (`maybeDeleteEmptyClassicGroup`, its tombstone first in the same write).
    const records: OffsetsRecord[] = [];
    const classic = this.#groups.group(req.groupId);
    if (classic !== undefined) {
      if (req.memberEpoch !== 0 || !classic.isEmpty()) {
        const message = this.#notConvertible(classic, req.memberEpoch);
        this.#refusals.log(
          'info',
          'ConsumerGroupHeartbeat GROUP_ID_NOT_FOUND',
          `group ${req.groupId}: ConsumerGroupHeartbeat refused with GROUP_ID_NOT_FOUND: ${message}`,
        );
        return { kind: 'error', code: 'GROUP_ID_NOT_FOUND', message };
      }
      this.#groups.createGroupTombstoneRecords(req.groupId, records);
    }
    const result = this.#groups.consumer.heartbeat(req, ctx);
    if (result.response.kind === 'error') return result.response;
    records.push(...result.records.map(encodeConsumerGroupRecord));
    if (classic !== undefined)
      this.onEvent(`group ${req.groupId}: converted the empty classic group to a consumer group`);
    return this.write(
      req.groupId,
      { records, response: result.response },
      (e): ConsumerGroupHeartbeatResponse => ({
        kind: 'error',
        code: 'COORDINATOR_NOT_AVAILABLE',
        message: `The group's records could not be written: ${e}.`,
      }),
    );
  }

  /**
   * Why a classic group is not made a consumer group, in Kafka's words: a heartbeat past the join is
   * "not a consumer group"; a join to a non-empty group would be Kafka's online upgrade
   * (`validateOnlineUpgrade`), which klog does not build, so it answers as Kafka does under
   * `group.consumer.migration.policy=disabled`, or for a group that does not use the consumer protocol.
   */
  #notConvertible(classic: ClassicGroup, memberEpoch: number): string {
    const id = classic.groupId;
    if (memberEpoch !== 0) return `Group ${id} is not a consumer group.`;
    if (classic.protocolType() !== 'consumer')
      return `Cannot upgrade classic group ${id} to consumer group because the group does not use the consumer embedded protocol.`;
    return `Cannot upgrade classic group ${id} to consumer group because online upgrade is disabled.`;
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
