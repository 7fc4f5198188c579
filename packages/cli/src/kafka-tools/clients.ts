// The pieces of Kafka's Java clients the console tools need, over klog's one-request-at-a-time client:
// metadata with auto-creation, the default partitioner's murmur2, ListOffsets, Fetch decoding, and a
// classic-protocol group member (JoinGroup, SyncGroup with the range assignor, Heartbeat, OffsetCommit,
// LeaveGroup) and a consumer-protocol one (ConsumerGroupHeartbeat, KIP-848) — the broker answers for
// everything, as klog serve is one node.
import { randomBytes } from 'node:crypto';
import {
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatResponse,
  consumerAssignmentPartitions,
  Fetch,
  FindCoordinator,
  Heartbeat,
  InitProducerId,
  JoinGroup,
  LeaveGroup,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  type OffsetFetchRequest,
  SyncGroup,
  Writer,
} from '@klog/protocol';
import type { Record } from '@klog/storage';
import { CONTROL_FLAG, decodeRecordBatch, LOG_OVERHEAD } from '@klog/storage/internals';
import type { AdminClient } from '../topics/admin-client.js';
import { javaHashOrder, topicPartitionHash } from './java-order.js';
import { KafkaApiError } from './kafka-errors.js';

/** Kafka's retriable coordinator errors (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR). */
const RETRIABLE_COORDINATOR_ERRORS = new Set([14, 15, 16]);
/** The consumer's retry.backoff.ms and max.poll.interval.ms (a classic member's rebalance timeout). */
const RETRY_BACKOFF_MS = 100;
const REBALANCE_TIMEOUT_MS = 300_000;

/** Kafka's `Uuid.ZERO_UUID`: no topic id (a topic asked for by name). */
const ZERO_TOPIC_ID = '00000000-0000-0000-0000-000000000000';

/** Kafka's `Utils.murmur2`: the default partitioner's hash of a record key. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const seed = 0x9747b28c;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (seed ^ length) | 0;
  const length4 = length >> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k =
      (data[i4]! & 0xff) +
      ((data[i4 + 1]! & 0xff) << 8) +
      ((data[i4 + 2]! & 0xff) << 16) +
      ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = length & ~3;
  // The tail bytes, as murmur2's switch takes them by falling through from case 3 to case 1.
  const tail = length % 4;
  if (tail >= 3) h ^= (data[rest + 2]! & 0xff) << 16;
  if (tail >= 2) h ^= (data[rest + 1]! & 0xff) << 8;
  if (tail >= 1) {
    h ^= data[rest]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** BuiltInPartitioner.partitionForKey: murmur2, made positive, modulo the partition count. */
export function partitionForKey(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

/** The topic's partition count (Metadata; `autoCreate` as a producer asks), waiting out a new topic's leaders. */
export async function partitionCount(
  client: AdminClient,
  topic: string,
  autoCreate: boolean,
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const res = await client.request(Metadata, {
      topics: [{ name: topic, topicId: ZERO_TOPIC_ID }],
      allowAutoTopicCreation: autoCreate,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const t = res.topics[0];
    // LEADER_NOT_AVAILABLE (5) is a topic being created: Kafka's clients ask again.
    if (t !== undefined && t.errorCode === 5 && attempt < 50) {
      await new Promise((done) => setTimeout(done, 100));
      continue;
    }
    if (t === undefined || t.errorCode !== 0) throw new KafkaApiError(t?.errorCode ?? 3, null);
    return t.partitions.length;
  }
}

/** A producer without idempotence: no id, no epoch (RecordBatch's -1s). */
export const NO_PRODUCER_ID = { producerId: -1, producerEpoch: -1 } as const;

/** InitProducerId without a transactional id: an idempotent producer's id and epoch (Kafka's Sender asks first). */
export async function initProducerId(
  client: AdminClient,
): Promise<{ readonly producerId: number; readonly producerEpoch: number }> {
  const init = await client.request(InitProducerId, {
    transactionalId: null,
    transactionTimeoutMs: 60_000,
    producerId: -1,
    producerEpoch: -1,
  });
  if (init.errorCode !== 0) throw new KafkaApiError(init.errorCode, null);
  return { producerId: init.producerId, producerEpoch: init.producerEpoch };
}

/** Kafka's `Topic.isInternal`. */
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set([
  '__consumer_offsets',
  '__transaction_state',
  '__share_group_state',
]);

/** Every topic the broker has, with its partition ids (Admin.listTopics, then describeTopics, in one Metadata). */
export async function listTopicPartitions(
  client: AdminClient,
  includeInternal: boolean,
): Promise<{ name: string; partitions: number[] }[]> {
  const metadata = await client.request(Metadata, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return metadata.topics
    .filter((t) => t.errorCode === 0 && t.name !== null)
    .filter((t) => includeInternal || !(t.isInternal || INTERNAL_TOPICS.has(t.name!)))
    .map((t) => ({
      name: t.name!,
      partitions: t.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b),
    }));
}

/** ListOffsets for one partition: -2 earliest, -1 latest, else the first offset at or after a timestamp. */
export async function listOffset(
  client: AdminClient,
  topic: string,
  partition: number,
  timestamp: number,
): Promise<number> {
  const res = await client.request(ListOffsets, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 30_000,
    topics: [
      {
        name: topic,
        partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }],
      },
    ],
  });
  const p = res.topics[0]?.partitions[0];
  if (p === undefined || p.errorCode !== 0) throw new KafkaApiError(p?.errorCode ?? 3, null);
  return p.offset >= 0 ? p.offset : (p.oldStyleOffsets[0] ?? -1);
}

export interface FetchedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  readonly record: Record;
}

/** One Fetch of `positions` (topic, partition, offset); the records at or past each position, in order. */
export async function fetchOnce(
  client: AdminClient,
  positions: readonly { topic: string; partition: number; offset: number }[],
  maxWaitMs: number,
  partitionMaxBytes = 1_048_576,
): Promise<{ records: FetchedRecord[]; errors: { topic: string; partition: number; code: number }[] }> {
  const byTopic = new Map<string, { partition: number; offset: number }[]>();
  for (const p of positions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
  // Fetch 13+ names topics by id (KIP-516), as Kafka's consumer does: the ids from Metadata first.
  const ids = new Map<string, string>();
  if (client.versionOf(Fetch as never) >= 13) {
    const meta = await client.request(Metadata, {
      topics: [...byTopic.keys()].map((name) => ({ name, topicId: ZERO_TOPIC_ID })),
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    for (const t of meta.topics) if (t.name !== null && t.errorCode === 0) ids.set(t.name, t.topicId);
  }
  const nameOf = new Map([...ids].map(([name, id]) => [id, name]));
  const res = await client.request(Fetch, {
    clusterId: null,
    replicaId: -1,
    maxWaitMs,
    minBytes: 1,
    maxBytes: 52_428_800,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [...byTopic].map(([topic, ps]) => ({
      topic,
      topicId: ids.get(topic) ?? ZERO_TOPIC_ID,
      partitions: ps.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: -1,
        fetchOffset: p.offset,
        lastFetchedEpoch: -1,
        logStartOffset: -1,
        partitionMaxBytes,
      })),
    })),
    forgottenTopicsData: [],
    rackId: '',
  } as never);
  if (res.errorCode !== 0) throw new KafkaApiError(res.errorCode, null);
  const records: FetchedRecord[] = [];
  const errors: { topic: string; partition: number; code: number }[] = [];
  for (const r of res.responses) {
    const t = { ...r, topic: nameOf.get(r.topicId) ?? r.topic };
    for (const p of t.partitions) {
      if (p.errorCode !== 0) {
        errors.push({ topic: t.topic, partition: p.partitionIndex, code: p.errorCode });
        continue;
      }
      const from =
        positions.find((x) => x.topic === t.topic && x.partition === p.partitionIndex)?.offset ?? 0;
      const bytes = p.records ?? new Uint8Array(0);
      let pos = 0;
      while (pos + LOG_OVERHEAD <= bytes.length) {
        const size = LOG_OVERHEAD + new DataView(bytes.buffer, bytes.byteOffset + pos + 8, 4).getInt32(0);
        // A partial batch at the end of a fetch is cut by maxBytes: the next fetch reads it whole.
        if (pos + size > bytes.length) break;
        const batch = decodeRecordBatch(bytes, pos);
        pos += size;
        if ((batch.attributes & CONTROL_FLAG) !== 0) continue;
        const logAppendTime = (batch.attributes & 0x08) !== 0;
        for (const r of batch.records) {
          const offset = batch.baseOffset + r.offsetDelta;
          if (offset < from) continue;
          records.push({
            topic: t.topic,
            partition: p.partitionIndex,
            offset,
            timestamp: logAppendTime ? batch.maxTimestamp : batch.baseTimestamp + r.timestampDelta,
            timestampType: logAppendTime ? 'LogAppendTime' : 'CreateTime',
            record: r,
          });
        }
      }
    }
  }
  return { records, errors };
}

/** ConsumerProtocolSubscription v0: the topics a member wants. */
function encodeSubscription(topics: readonly string[]): Uint8Array {
  const w = new Writer();
  w.int16(0, 'version').arrayLength(topics.length, 'topics');
  for (const t of topics) w.string(t, 'topics[]');
  w.nullableBytes(null, 'userData');
  return w.toBytes();
}

/** ConsumerProtocolAssignment v0: the partitions the leader gives a member. */
function encodeAssignment(assigned: ReadonlyMap<string, readonly number[]>): Uint8Array {
  const w = new Writer();
  w.int16(0, 'version').arrayLength(assigned.size, 'assignedPartitions');
  for (const [topic, partitions] of assigned) {
    w.string(topic, 'topic').arrayLength(partitions.length, 'partitions');
    for (const p of partitions) w.int32(p, 'partitions[]');
  }
  w.nullableBytes(null, 'userData');
  return w.toBytes();
}

/** Kafka's RangeAssignor: each topic's partitions cut into consecutive ranges, members sorted by id. */
export function rangeAssign(
  members: readonly string[],
  partitionsOf: ReadonlyMap<string, number>,
): Map<string, Map<string, number[]>> {
  const out = new Map(members.map((m) => [m, new Map<string, number[]>()]));
  const sorted = [...members].sort();
  for (const [topic, count] of partitionsOf) {
    const per = Math.floor(count / sorted.length);
    const extra = count % sorted.length;
    sorted.forEach((m, i) => {
      const start = per * i + Math.min(i, extra);
      const length = per + (i < extra ? 1 : 0);
      if (length > 0)
        out.get(m)!.set(
          topic,
          Array.from({ length }, (_, k) => start + k),
        );
    });
  }
  return out;
}

/**
 * A member of a classic consumer group (Kafka's ConsumerCoordinator, in brief): joins, leads with the
 * range assignor when chosen, syncs, heartbeats between fetches, commits, leaves.
 */
export class ClassicGroupMember implements GroupMember {
  readonly incremental = false;
  /** A classic member heartbeats once per poll: an idle poll waits at most half a second. */
  pollWaitMs(): number {
    return 500;
  }
  memberId = '';
  generationId = -1;
  assignment: { topic: string; partitions: number[] }[] = [];

  constructor(
    private readonly client: AdminClient,
    readonly groupId: string,
    readonly topics: readonly string[],
    readonly sessionTimeoutMs = 45_000,
  ) {}

  async join(): Promise<void> {
    // A coordinator that is loading, moving or shutting down (COORDINATOR_LOAD_IN_PROGRESS,
    // COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR) is asked again after retry.backoff.ms, for at most the
    // rebalance timeout (AbstractCoordinator also looks it up again; klog has one broker, the coordinator).
    const until = Date.now() + REBALANCE_TIMEOUT_MS;
    const retry = async (code: number) => {
      if (!RETRIABLE_COORDINATOR_ERRORS.has(code) || Date.now() > until) throw new KafkaApiError(code, null);
      await new Promise((done) => setTimeout(done, RETRY_BACKOFF_MS));
    };
    // Version 4 asks in CoordinatorKeys, the ones before in Key.
    const batched = this.client.versionOf(FindCoordinator as never) >= 4;
    for (;;) {
      const found = await this.client.request(FindCoordinator, {
        key: batched ? '' : this.groupId,
        keyType: 0,
        coordinatorKeys: batched ? [this.groupId] : [],
      });
      const code = found.coordinators[0]?.errorCode ?? found.errorCode;
      if (code === 0) break;
      await retry(code);
    }
    for (;;) {
      const joined = await this.client.request(JoinGroup, {
        groupId: this.groupId,
        sessionTimeoutMs: this.sessionTimeoutMs,
        rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: encodeSubscription(this.topics) }],
        reason: null,
      } as never);
      // MEMBER_ID_REQUIRED (79): join again with the id the coordinator gave.
      if (joined.errorCode === 79) {
        this.memberId = joined.memberId;
        continue;
      }
      if (joined.errorCode === 27) continue;
      // UNKNOWN_MEMBER_ID: the coordinator no longer knows this id; join as a new member (JoinGroupResponseHandler).
      if (joined.errorCode === 25 && this.memberId !== '') {
        this.memberId = '';
        continue;
      }
      if (joined.errorCode !== 0) {
        await retry(joined.errorCode);
        continue;
      }
      this.memberId = joined.memberId;
      this.generationId = joined.generationId;
      let assignments: { memberId: string; assignment: Uint8Array }[] = [];
      if (joined.leader === joined.memberId) {
        const wanted = new Set<string>();
        const subscriptions = new Map<string, string[]>();
        for (const m of joined.members) {
          const topics = decodeSubscription(m.metadata);
          subscriptions.set(m.memberId, topics);
          for (const t of topics) wanted.add(t);
        }
        const counts = new Map<string, number>();
        for (const t of [...wanted].sort()) counts.set(t, await partitionCount(this.client, t, false));
        const plan = rangeAssign([...subscriptions.keys()], counts);
        assignments = [...plan].map(([memberId, a]) => ({ memberId, assignment: encodeAssignment(a) }));
      }
      const synced = await this.client.request(SyncGroup, {
        groupId: this.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments,
      } as never);
      if (synced.errorCode === 27) continue;
      // The generation ended between JoinGroup and SyncGroup (ILLEGAL_GENERATION), or the member was
      // removed (UNKNOWN_MEMBER_ID, a new id needed): join again, as joinGroupIfNeeded does.
      if (synced.errorCode === 22 || synced.errorCode === 25) {
        this.#leaveGeneration(synced.errorCode);
        continue;
      }
      if (synced.errorCode !== 0) {
        await retry(synced.errorCode);
        continue;
      }
      this.assignment = consumerAssignmentPartitions(synced.assignment) ?? [];
      return;
    }
  }

  /**
   * A heartbeat: false when the member must join again. REBALANCE_IN_PROGRESS keeps its generation (a commit
   * before the rejoin still counts); ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID end it, and UNKNOWN_MEMBER_ID
   * (the coordinator removed the member) its member id too, so the rejoin asks for a new one
   * (AbstractCoordinator.resetGenerationOnResponseError).
   */
  async heartbeat(): Promise<boolean> {
    const res = await this.client.request(Heartbeat, {
      groupId: this.groupId,
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: null,
    });
    if (res.errorCode === 27) return false;
    // The coordinator is moving or shutting down: beat again at the next poll (AbstractCoordinator marks it
    // unknown and finds it again).
    if (RETRIABLE_COORDINATOR_ERRORS.has(res.errorCode)) return true;
    if (res.errorCode === 22 || res.errorCode === 25) {
      this.#leaveGeneration(res.errorCode);
      return false;
    }
    if (res.errorCode !== 0) throw new KafkaApiError(res.errorCode, null);
    return true;
  }

  /** ILLEGAL_GENERATION ends the generation; UNKNOWN_MEMBER_ID the member id too, so a rejoin asks anew. */
  #leaveGeneration(code: 22 | 25): void {
    this.generationId = -1;
    if (code === 25) this.memberId = '';
  }

  async commit(offsets: ReadonlyMap<string, number>): Promise<CommitFailure | undefined> {
    if (offsets.size === 0) return undefined;
    // ConsumerCoordinator.sendOffsetCommitRequest: a member out of its generation does not commit at all (the
    // broker would take generation -1 as an admin's commit and overwrite what the group's new owner commits).
    if (this.generationId < 0) return NOT_IN_GROUP;
    return commitFailure(
      await commitOffsets(this.client, this.groupId, offsets, this.generationId, this.memberId),
    );
  }

  async leave(): Promise<void> {
    // Version 3 names the leaving members in Members, the ones before in MemberId.
    const batched = this.client.versionOf(LeaveGroup as never) >= 3;
    await this.client.request(LeaveGroup, {
      groupId: this.groupId,
      memberId: batched ? '' : this.memberId,
      members: batched ? [{ memberId: this.memberId, groupInstanceId: null, reason: null }] : [],
    } as never);
  }
}

/** What the console tools ask of a group member, whichever protocol it speaks. */
export interface GroupMember {
  readonly assignment: readonly { topic: string; partitions: number[] }[];
  /**
   * Whether a new assignment keeps the partitions it shares with the last one (the consumer protocol's
   * incremental reconciliation), so their positions stay; a classic (eager) rebalance revokes all.
   */
  readonly incremental: boolean;
  /** How long a poll with nothing to fetch may wait before this member must heartbeat. */
  pollWaitMs(): number;
  /** Joins (classic: a rebalance; consumer protocol: the first heartbeat, or the assignment the last one brought). */
  join(): Promise<void>;
  /** False when the member must commit and `join()` again: its assignment changed, or it was fenced. */
  heartbeat(): Promise<boolean>;
  /**
   * Commits `offsets` (by tpKey) as this member; why it failed as Kafka's consumer would say, undefined
   * when it succeeded or there was nothing to commit.
   */
  commit(offsets: ReadonlyMap<string, number>): Promise<CommitFailure | undefined>;
  leave(): Promise<void>;
}

/** CommitFailedException's message for a member outside any generation (ConsumerCoordinator.sendOffsetCommitRequest). */
const NOT_IN_GROUP: CommitFailure = {
  retriable: false,
  message:
    'Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.',
};

/** Why a commit failed: the message of the exception Kafka's consumer raises, and whether it is retriable. */
export interface CommitFailure {
  readonly message: string;
  /** RetriableCommitFailedException: an automatic commit says so only at debug level and tries again later. */
  readonly retriable: boolean;
}

/** Codes ConsumerCoordinator.OffsetCommitResponseHandler raises as a RetriableCommitFailedException. */
const RETRIABLE_COMMIT_ERRORS = new Set([3, 7, 14, 15, 16]);

/**
 * What Kafka's consumer raises for a commit's first failed partition (ConsumerCoordinator.
 * OffsetCommitResponseHandler): a rebalanced-away member's CommitFailedException, a rebalance's
 * RebalanceInProgressException, a retriable one, else "Unexpected error in commit". Undefined when none failed.
 */
export function commitFailure(errors: ReadonlyMap<string, number>): CommitFailure | undefined {
  const [code] = errors.values();
  if (code === undefined) return undefined;
  if (code === 22 || code === 25)
    return {
      retriable: false,
      message:
        'Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member. This means that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time message processing. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.',
    };
  if (code === 27)
    return {
      retriable: false,
      message:
        'Offset commit cannot be completed since the consumer group is executing a rebalance at the moment. You can try completing the rebalance by calling poll() and then retry commit again',
    };
  if (RETRIABLE_COMMIT_ERRORS.has(code))
    return {
      retriable: true,
      message:
        'Offset commit failed with a retriable exception. You should retry committing the latest consumed offsets.',
    };
  return {
    retriable: false,
    message: `Unexpected error in commit: ${new KafkaApiError(code, null).message}`,
  };
}

/**
 * The warning Kafka's consumer logs when an automatic commit fails (ConsumerCoordinator's
 * maybeAutoCommitOffsetsAsync / maybeAutoCommitOffsetsSync): the offsets as Java prints a map of
 * OffsetAndMetadata, then the exception's message. Asynchronous: the commit every auto.commit.interval.ms;
 * synchronous: the one before a rejoin or at close.
 */
export function autoCommitFailedLine(
  kind: 'Asynchronous' | 'Synchronous',
  consumer: { readonly clientId: string; readonly groupId: string },
  offsets: ReadonlyMap<string, number>,
  message: string,
): string {
  // The consumer's HashMap<TopicPartition, OffsetAndMetadata>, printed in its iteration order.
  const parts = javaHashOrder(
    [...offsets].map(([k, offset]) => ({ tp: fromTpKey(k), offset })),
    ({ tp: [t, p] }) => topicPartitionHash(t, p),
  ).map(
    ({ tp: [t, p], offset }) =>
      `${t}-${p}=OffsetAndMetadata{offset=${offset}, leaderEpoch=null, metadata=''}`,
  );
  return `WARN [Consumer clientId=${consumer.clientId}, groupId=${consumer.groupId}] ${kind} auto-commit of offsets {${parts.join(', ')}} failed: ${message} (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)`;
}

/**
 * The WARN lines of Kafka's consumer that the consumer tools print on stderr, for one consumer: NetworkClient's
 * failed connection, ConsumerCoordinator's failed auto-commit.
 */
export class ConsumerWarnings {
  constructor(
    private readonly err: (line: string) => void,
    readonly clientId: string,
    readonly groupId: string,
  ) {}

  /** NetworkClient's line for an attempt to connect that failed (`address` as host/ip:port). */
  readonly notConnected = (address: string): void =>
    this.err(
      `WARN [Consumer clientId=${this.clientId}, groupId=${this.groupId}] Connection to node -1 (${address}) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)`,
    );

  /**
   * An auto-commit of `offsets` as `member`, its failure said as ConsumerCoordinator says it: a retriable
   * failure of an asynchronous one only at debug level (the next one tries again), so not here.
   */
  async autoCommit(
    member: GroupMember,
    kind: 'Asynchronous' | 'Synchronous',
    offsets: ReadonlyMap<string, number>,
  ): Promise<void> {
    const failed = await member.commit(offsets);
    if (failed !== undefined && !(failed.retriable && kind === 'Asynchronous'))
      this.err(autoCommitFailedLine(kind, this, offsets, failed.message));
  }
}

/** ConsumerConfig's group.protocol, case-insensitive: classic (Kafka 4.1's default) or consumer (KIP-848). */
export type GroupProtocol = 'classic' | 'consumer';

/** The protocol a `group.protocol` value names, or the line ConsumerConfig's validator throws for another. */
export function groupProtocolOf(value: string | undefined): GroupProtocol | { readonly invalid: string } {
  const v = (value ?? 'classic').toLowerCase();
  if (v === 'classic' || v === 'consumer') return v;
  return {
    invalid: `Invalid value ${value} for configuration group.protocol: String must be one of (case insensitive): CLASSIC, CONSUMER`,
  };
}

/** A member of `groupId` subscribed to `topics`, speaking `protocol`. */
export function newGroupMember(
  protocol: GroupProtocol,
  client: AdminClient,
  groupId: string,
  topics: readonly string[],
): GroupMember {
  return protocol === 'consumer'
    ? new ConsumerProtocolMember(client, groupId, topics)
    : new ClassicGroupMember(client, groupId, topics);
}

/** Kafka's `Uuid.randomUuid().toString()`: 16 random bytes in URL-safe base64, the member id a KIP-1082 client makes. */
function newMemberId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * A member of a consumer group under Kafka 4's protocol (KIP-848; Kafka's `ConsumerMembershipManager`, in
 * brief): the broker assigns; the member heartbeats at the interval the broker gives, adopts each new
 * assignment (committing first, as the loop does before `join()`), acknowledges it by sending what it owns
 * in its next heartbeat, and leaves with epoch -1. Fenced (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID), it drops
 * its partitions and joins again at epoch 0, as the Java consumer does.
 */
export class ConsumerProtocolMember implements GroupMember {
  readonly incremental = true;
  memberId = newMemberId();
  memberEpoch = 0;
  assignment: { topic: string; partitions: number[] }[] = [];
  #pending: ConsumerGroupHeartbeatResponse.Assignment | null = null;
  /** What `assignment` holds, by topic id: what the heartbeat acknowledges. */
  #ownedIds: ConsumerGroupHeartbeatResponse.TopicPartitions[] = [];
  #acknowledge = false;
  #intervalMs = 5_000;
  #lastHeartbeat = 0;

  constructor(
    private readonly client: AdminClient,
    readonly groupId: string,
    readonly topics: readonly string[],
    readonly rebalanceTimeoutMs = 300_000,
  ) {}

  async join(): Promise<void> {
    for (let attempt = 0; this.memberEpoch === 0; attempt++) {
      const res = await this.#send();
      if (res.errorCode === 0) break;
      // A coordinator loading or moving: asked again after a backoff, as Java's heartbeat manager does.
      if (!RETRIABLE_COORDINATOR_ERRORS.has(res.errorCode) || attempt >= 50)
        throw new KafkaApiError(res.errorCode, res.errorMessage);
      await new Promise((done) => setTimeout(done, 200));
    }
    if (this.#pending !== null) {
      this.assignment = await this.#named(this.#pending);
      this.#pending = null;
      this.#acknowledge = true;
    }
  }

  async heartbeat(): Promise<boolean> {
    if (!this.#acknowledge && Date.now() - this.#lastHeartbeat < this.#intervalMs) return true;
    const res = await this.#send();
    // FENCED_MEMBER_EPOCH (110), UNKNOWN_MEMBER_ID (25): everything owned is lost; join again at epoch 0.
    if (res.errorCode === 110 || res.errorCode === 25) {
      this.memberEpoch = 0;
      this.assignment = [];
      this.#ownedIds = [];
      this.#pending = null;
      return false;
    }
    // Retriable: the next call asks again (after the interval, or at once with an acknowledgement due).
    if (RETRIABLE_COORDINATOR_ERRORS.has(res.errorCode)) return true;
    if (res.errorCode !== 0) throw new KafkaApiError(res.errorCode, res.errorMessage);
    return this.#pending === null;
  }

  /** How long until the next heartbeat is due (0 when an acknowledgement waits): what a poll may wait. */
  pollWaitMs(): number {
    if (this.#acknowledge) return 0;
    return Math.max(0, this.#lastHeartbeat + this.#intervalMs - Date.now());
  }

  async commit(offsets: ReadonlyMap<string, number>): Promise<CommitFailure | undefined> {
    // A fenced member (epoch 0 until it rejoins) has lost its partitions and commits nothing, as
    // ConsumerMembershipManager drops them without a commit.
    if (offsets.size === 0 || this.memberEpoch <= 0) return undefined;
    return commitFailure(
      await commitOffsets(this.client, this.groupId, offsets, this.memberEpoch, this.memberId),
    );
  }

  async leave(): Promise<void> {
    if (this.memberEpoch <= 0) return;
    this.memberEpoch = -1;
    await this.#send();
  }

  /** One ConsumerGroupHeartbeat: the subscription on joining, what the member owns when it acknowledges. */
  async #send(): Promise<ConsumerGroupHeartbeatResponse> {
    const joining = this.memberEpoch === 0;
    const owned = joining || this.#acknowledge ? this.#ownedIds : null;
    this.#acknowledge = false;
    this.#lastHeartbeat = Date.now();
    const res = await this.client.request(ConsumerGroupHeartbeat, {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: joining ? this.rebalanceTimeoutMs : -1,
      subscribedTopicNames: joining ? [...this.topics] : null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: owned,
    });
    if (res.errorCode !== 0) return res;
    // A broker on ConsumerGroupHeartbeat v0 names the member itself.
    if (res.memberId !== null && res.memberId !== '' && res.memberId !== this.memberId)
      this.memberId = res.memberId;
    if (this.memberEpoch !== -1) this.memberEpoch = res.memberEpoch;
    if (res.heartbeatIntervalMs > 0) this.#intervalMs = res.heartbeatIntervalMs;
    if (res.assignment !== null) this.#pending = res.assignment;
    return res;
  }

  /**
   * An assignment by topic id, named through Metadata (a topic it cannot name is left for the next one);
   * the ids it named are kept, so the acknowledgement sends them back without asking Metadata again.
   */
  async #named(
    a: ConsumerGroupHeartbeatResponse.Assignment,
  ): Promise<{ topic: string; partitions: number[] }[]> {
    const ids = await topicIds(this.client);
    const named = a.topicPartitions.filter((t) => ids.has(t.topicId));
    this.#ownedIds = named.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] }));
    return named.map((t) => ({
      topic: ids.get(t.topicId)!,
      partitions: [...t.partitions].sort((x, y) => x - y),
    }));
  }
}

/** Every topic's id and name (Metadata for all topics, v10 and later carrying ids). */
async function topicIds(client: AdminClient): Promise<Map<string, string>> {
  const res = await client.request(Metadata, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return new Map(res.topics.filter((t) => t.name !== null).map((t) => [t.topicId, t.name!]));
}

function decodeSubscription(bytes: Uint8Array): string[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 2;
  const n = dv.getInt32(pos);
  pos += 4;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = dv.getInt16(pos);
    pos += 2;
    out.push(new TextDecoder().decode(bytes.subarray(pos, pos + len)));
    pos += len;
  }
  return out;
}

/** `topic\0partition` → offset, the key the tools use for a partition. */
export const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;
export const fromTpKey = (key: string): [string, number] => {
  const [t, p] = key.split('\u0000') as [string, string];
  return [t, Number(p)];
};

/** OffsetCommit of `offsets` (by tpKey), as a member (generation, member id) or as an admin (-1, ''). */
export async function commitOffsets(
  client: AdminClient,
  groupId: string,
  offsets: ReadonlyMap<string, number>,
  generationId = -1,
  memberId = '',
): Promise<Map<string, number>> {
  const byTopic = new Map<string, { partitionIndex: number; committedOffset: number }[]>();
  for (const [k, offset] of offsets) {
    const [t, p] = fromTpKey(k);
    byTopic.set(t, [...(byTopic.get(t) ?? []), { partitionIndex: p, committedOffset: offset }]);
  }
  const res = await client.request(OffsetCommit, {
    groupId,
    generationIdOrMemberEpoch: generationId,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [...byTopic].map(([name, ps]) => ({
      name,
      partitions: ps.map((p) => ({
        ...p,
        committedLeaderEpoch: -1,
        commitTimestamp: -1,
        committedMetadata: '',
      })),
    })),
  });
  const errors = new Map<string, number>();
  for (const t of res.topics)
    for (const p of t.partitions)
      if (p.errorCode !== 0) errors.set(tpKey(t.name, p.partitionIndex), p.errorCode);
  return errors;
}

/** OffsetFetch of every committed offset of a group (by tpKey). */
export async function committedOffsets(client: AdminClient, group: string): Promise<Map<string, number>> {
  const version = client.versionOf(OffsetFetch as never);
  const body: OffsetFetchRequest =
    version >= 8
      ? {
          groupId: '',
          topics: [],
          groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: null }],
          requireStable: false,
        }
      : { groupId: group, topics: null, groups: [], requireStable: false };
  const res = await client.request(OffsetFetch, body);
  const topics = version >= 8 ? (res.groups[0]?.topics ?? []) : res.topics;
  const out = new Map<string, number>();
  for (const t of topics)
    for (const p of t.partitions)
      if (p.committedOffset >= 0) out.set(tpKey(t.name, p.partitionIndex), p.committedOffset);
  return out;
}
