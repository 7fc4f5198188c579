import {
  ErrorCode,
  errorName,
  Fetch,
  type FetchRequest,
  type FetchResponse,
  type RequestHeader,
} from '@klog/protocol';
import { FetchPurgatory } from '../../log/fetch-purgatory.js';
import { LogError, NO_TOPIC_ID, partitionOrError } from '../../log/log-port.js';
import { type ClientInfo, defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type PartitionData = FetchResponse.PartitionData;

const NO_RECORDS = new Uint8Array(0);
/** Kafka's READ_COMMITTED isolation level. */
const READ_COMMITTED = 1;

/** A topic of the request with its name: from the request up to v12, from its id from v13 (undefined: unknown). */
interface FetchTopic {
  readonly name: string | undefined;
  readonly topicId: string;
  readonly partitions: readonly FetchRequest.FetchPartition[];
}

/**
 * The request's topics by name. From version 13 a topic is named by its id only (KIP-516): looked up in the
 * log's ids, as Kafka's `KafkaApis.handleFetchRequest` looks them up in its metadata cache; an id no topic
 * has is kept, to be answered UNKNOWN_TOPIC_ID.
 */
function resolveTopics(
  ctx: Pick<BrokerContext, 'log'>,
  version: number,
  request: FetchRequest,
): FetchTopic[] {
  return request.topics.map((t) => ({
    name: version >= 13 ? ctx.log.topicName(t.topicId) : t.topic,
    topicId: version >= 13 ? t.topicId : NO_TOPIC_ID,
    partitions: t.partitions,
  }));
}

interface Read {
  readonly response: FetchResponse;
  /** Record bytes in the response. */
  readonly bytes: number;
  /** Some partition answered with an error: Kafka answers at once then. */
  readonly anyError: boolean;
}

/**
 * One pass over the partitions asked for, in request order. The response carries at most the request's
 * MaxBytes (and the broker's fetch.max.bytes), each partition at most its PartitionMaxBytes — except that
 * the first batch found is returned whole even when larger (KIP-74), so a consumer never gets stuck on a
 * batch bigger than its limits. A fetch at the log end offset is NONE with no records. With one node and
 * no transactions the last stable offset is the high watermark is the log end offset, whatever the
 * isolation level (kcat reads read_committed by default).
 */
function readOnce(
  ctx: Pick<BrokerContext, 'config' | 'fetchWaits' | 'log' | 'readBuffers' | 'responseMemory'>,
  request: FetchRequest,
  topics: readonly FetchTopic[],
): Read {
  // And what the response pool has left (queued.max.request.bytes): a response is held until the kernel takes
  // it, so consumers that do not read pin at most the pool and one batch each, however many they are.
  let budget = Math.min(request.maxBytes, ctx.config.fetchMaxBytes, ctx.responseMemory.available);
  let bytes = 0;
  let anyError = false;
  let returnedData = false;
  const responses = topics.map((topic) => ({
    // Not sent from v13 (the id is), but the summary line names the partition by it.
    topic: topic.name ?? topic.topicId,
    topicId: topic.topicId,
    partitions: topic.partitions.map((p): PartitionData => {
      const base = {
        partitionIndex: p.partition,
        abortedTransactions: request.isolationLevel === READ_COMMITTED ? [] : null,
        preferredReadReplica: -1,
      };
      if (topic.name === undefined) {
        anyError = true;
        return {
          ...base,
          errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
          highWatermark: -1,
          lastStableOffset: -1,
          logStartOffset: -1,
          records: NO_RECORDS,
        };
      }
      const partition = partitionOrError(ctx.log, topic.name, p.partition);
      if (partition instanceof LogError) {
        anyError = true;
        return {
          ...base,
          errorCode: ErrorCode[partition.code],
          highWatermark: -1,
          lastStableOffset: -1,
          logStartOffset: -1,
          records: NO_RECORDS,
        };
      }
      if (partition === undefined) {
        anyError = true;
        return {
          ...base,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          highWatermark: -1,
          lastStableOffset: -1,
          logStartOffset: -1,
          records: NO_RECORDS,
        };
      }
      const offsets = {
        highWatermark: partition.highWatermark,
        lastStableOffset: partition.lastStableOffset,
        logStartOffset: partition.logStartOffset,
      };
      if (p.fetchOffset < partition.logStartOffset || p.fetchOffset > partition.logEndOffset) {
        anyError = true;
        return { ...base, ...offsets, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: NO_RECORDS };
      }
      const limit = Math.min(p.partitionMaxBytes, budget);
      if (p.fetchOffset === partition.logEndOffset || (returnedData && limit <= 0)) {
        return { ...base, ...offsets, errorCode: ErrorCode.NONE, records: NO_RECORDS };
      }
      try {
        const read = partition.fetch(p.fetchOffset, Math.max(1, limit), ctx.readBuffers.take);
        // Past the first batch returned, a batch that does not fit the budget waits for the next fetch.
        if (returnedData && read.records.length > budget) {
          return { ...base, ...offsets, errorCode: ErrorCode.NONE, records: NO_RECORDS };
        }
        if (read.records.length > 0) returnedData = true;
        budget -= read.records.length;
        bytes += read.records.length;
        return {
          ...base,
          errorCode: ErrorCode.NONE,
          highWatermark: read.highWatermark,
          lastStableOffset: read.lastStableOffset,
          logStartOffset: read.logStartOffset,
          records: read.records,
        };
      } catch (error) {
        if (!(error instanceof LogError)) throw error;
        anyError = true;
        return { ...base, ...offsets, errorCode: ErrorCode[error.code], records: NO_RECORDS };
      }
    }),
  }));
  return {
    response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses },
    bytes,
    anyError,
  };
}

/**
 * Fetch. No fetch sessions (KIP-227): a request that opens one (session id 0) is answered with session id
 * 0, which tells the client to go on sending full requests; one naming a session gets
 * FETCH_SESSION_ID_NOT_FOUND. With fewer than MinBytes at hand the fetch waits, up to MaxWaitMs, for an
 * append to one of its partitions (fetch-purgatory.ts).
 */
async function handleFetch(
  ctx: Pick<BrokerContext, 'config' | 'fetchWaits' | 'log' | 'readBuffers' | 'responseMemory'>,
  header: RequestHeader,
  request: FetchRequest,
  client: ClientInfo,
): Promise<FetchResponse> {
  if (request.sessionId !== 0) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
      sessionId: 0,
      responses: [],
    };
  }
  // Resolved once: a topic deleted while the fetch waits is then answered by its partitions' absence.
  const topics = resolveTopics(ctx, header.apiVersion, request);
  let read = readOnce(ctx, request, topics);
  if (read.bytes >= request.minBytes || request.maxWaitMs <= 0 || read.anyError) return read.response;
  const keys = topics.flatMap((t) =>
    t.name === undefined ? [] : t.partitions.map((p) => FetchPurgatory.key(t.name!, p.partition)),
  );
  const deadline = performance.now() + request.maxWaitMs;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return read.response;
    await ctx.fetchWaits.wait(keys, left, client.gone);
    // The connection has gone: no one to answer, and the log may be closing.
    if (client.gone.aborted) return read.response;
    read = readOnce(ctx, request, topics);
    if (read.bytes >= request.minBytes || read.anyError || ctx.fetchWaits.closed) return read.response;
  }
}

/**
 * Versions 4 to 18, Kafka 4.1.0's. The follower's fields of 15+ (ReplicaState, ReplicaDirectoryId, the
 * v18 HighWatermark) are read and ignored: a consumer sends their defaults. NodeEndpoints (16+) goes only
 * with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH, which one node never answers: never sent.
 */
export const fetchApi = defineApi({
  codec: Fetch,
  versions: { min: 4, max: 18 },
  handle: handleFetch,
  summary(request, response) {
    const parts = response.responses.flatMap((t, i) =>
      t.partitions.map((p, j) => {
        const asked = request.topics[i]?.partitions[j]?.fetchOffset;
        return `${t.topic}-${p.partitionIndex}@${asked} ${errorName(p.errorCode)} ${p.records?.length ?? 0} B hw ${p.highWatermark}`;
      }),
    );
    return parts.join(', ') || errorName(response.errorCode);
  },
});
