import {
  ErrorCode,
  errorName,
  Metadata,
  type MetadataRequest,
  type MetadataResponse,
  type RequestHeader,
} from '@klog/protocol';
import { isInternalTopic } from '../../group/offsets-topic.js';
import { LogError, NO_TOPIC_ID } from '../../log/log-port.js';
import { createTopic } from '../../log/topic-creation.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type TopicMetadata = MetadataResponse.MetadataResponseTopic;

/** "No authorized operations were asked for" (Kafka's `Int.MinValue` default). */
export const NO_OPERATIONS = -2147483648;
/**
 * Without an authorizer every operation a resource supports is allowed: the bits of Kafka's AclOperation
 * codes in its `AclEntry.supportedOperations` — a topic's (READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7,
 * DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11) and the cluster's (CREATE 5, ALTER 7, DESCRIBE 8,
 * CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12; no WRITE).
 */
export const TOPIC_OPERATIONS = [3, 4, 5, 6, 7, 8, 10, 11].reduce((bits, op) => bits | (1 << op), 0);
export const CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12].reduce((bits, op) => bits | (1 << op), 0);

/**
 * Metadata: this one broker (at the address clients can reach), the controller (also this broker: KafkaJS
 * sends InitProducerId to the controller), and the topics asked for — all of them for a null list (or,
 * in version 0, an empty one). With auto-creation on, a topic asked for that does not exist is created
 * through the one creation path (topic-creation.ts) with `numPartitions` partitions, as Kafka's
 * `auto.create.topics.enable` does — `__consumer_offsets` with the group coordinator's partitions and
 * configs, as Kafka's `AutoTopicCreationManager.creatableTopic` makes it.
 */
function handleMetadata(
  ctx: Pick<
    BrokerContext,
    'advertised' | 'clusterId' | 'config' | 'log' | 'logger' | 'offsetsTopic' | 'topicConfigs'
  >,
  header: RequestHeader,
  request: MetadataRequest,
): MetadataResponse {
  const version = header.apiVersion;
  const all = request.topics === null || (version === 0 && request.topics.length === 0);
  // Versions 10 and 11 carry a TopicId but cannot ask by it (Kafka's `KafkaApis.handleTopicMetadataRequest`):
  // the whole request is refused, as `MetadataRequest.getErrorResponse` answers it.
  if (!all && version < 12) {
    for (const t of request.topics ?? []) {
      // Kafka's messages: "Topic name can not be null…", "Topic IDs are not supported in requests…".
      if (t.name === null || t.topicId !== NO_TOPIC_ID) return refused(request);
    }
  }
  const known = ctx.log.topics();
  const topics: TopicMetadata[] = [];
  // From version 12 a topic may be asked for by id (a null name): any id asked for makes it a request by
  // ids, as in Kafka, answering an unknown id UNKNOWN_TOPIC_ID with no name, before the topics found.
  const ids = all ? [] : (request.topics ?? []).map((t) => t.topicId).filter((id) => id !== NO_TOPIC_ID);
  let names: string[];
  if (all) names = [...known.keys()].sort();
  else if (ids.length > 0) {
    names = [];
    for (const id of new Set(ids)) {
      const name = ctx.log.topicName(id);
      if (name !== undefined) names.push(name);
      else topics.push({ ...failedTopic(ErrorCode.UNKNOWN_TOPIC_ID, null), topicId: id });
    }
  } else names = (request.topics ?? []).flatMap((t) => (t.name === null ? [] : [t.name]));
  for (const name of names) topics.push(topicMetadata(ctx, request, name, known.get(name)));
  return {
    throttleTimeMs: 0,
    brokers: [
      { nodeId: ctx.config.nodeId, host: ctx.advertised.host, port: ctx.advertised.port, rack: null },
    ],
    clusterId: ctx.clusterId,
    controllerId: ctx.config.nodeId,
    topics,
    clusterAuthorizedOperations: request.includeClusterAuthorizedOperations
      ? CLUSTER_OPERATIONS
      : NO_OPERATIONS,
    errorCode: ErrorCode.NONE,
  };
}

/** A topic answered with an error: no partitions, the zero id (Kafka never tells the id of a topic it refuses). */
function failedTopic(errorCode: number, name: string | null): TopicMetadata {
  return {
    errorCode,
    name,
    topicId: NO_TOPIC_ID,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: NO_OPERATIONS,
  };
}

/**
 * The whole request refused with INVALID_REQUEST, as Kafka's `MetadataRequest.getErrorResponse` answers it:
 * each topic asked for with the error (a null name as ""), no brokers, the top-level ErrorCode from v13.
 */
function refused(request: MetadataRequest): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: (request.topics ?? []).map((t) => ({
      ...failedTopic(ErrorCode.INVALID_REQUEST, t.name ?? ''),
      topicId: t.topicId,
    })),
    clusterAuthorizedOperations: NO_OPERATIONS,
    errorCode: ErrorCode.INVALID_REQUEST,
  };
}

function topicMetadata(
  ctx: Pick<
    BrokerContext,
    'advertised' | 'clusterId' | 'config' | 'log' | 'logger' | 'offsetsTopic' | 'topicConfigs'
  >,
  request: MetadataRequest,
  name: string,
  partitions: number | undefined,
): TopicMetadata {
  const failed = (errorCode: number): TopicMetadata => failedTopic(errorCode, name);
  let count = partitions;
  if (count === undefined) {
    const invalid = ctx.log.invalidTopicName(name);
    if (invalid !== undefined) return failed(ErrorCode.INVALID_TOPIC_EXCEPTION);
    if (!(ctx.config.autoCreateTopics && request.allowAutoTopicCreation)) {
      return failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (isInternalTopic(name)) {
      try {
        ctx.offsetsTopic.ensure();
      } catch (error) {
        if (error instanceof LogError) return failed(ErrorCode[error.code]);
        throw error;
      }
    } else {
      const created = createTopic(ctx, {
        name,
        partitions: ctx.config.numPartitions,
        configs: [],
        reason: 'auto-create, asked by Metadata',
      });
      if (created.kind === 'refused') return failed(ErrorCode[created.code]);
    }
    count = ctx.log.topics().get(name) ?? ctx.config.numPartitions;
  }
  const node = ctx.config.nodeId;
  return {
    errorCode: ErrorCode.NONE,
    name,
    topicId: ctx.log.topicId(name) ?? NO_TOPIC_ID,
    isInternal: isInternalTopic(name),
    partitions: Array.from({ length: count }, (_, partitionIndex) => ({
      errorCode: ErrorCode.NONE,
      partitionIndex,
      leaderId: node,
      leaderEpoch: 0,
      replicaNodes: [node],
      isrNodes: [node],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: request.includeTopicAuthorizedOperations ? TOPIC_OPERATIONS : NO_OPERATIONS,
  };
}

export const metadataApi = defineApi({
  codec: Metadata,
  versions: { min: 0, max: 13 },
  handle: handleMetadata,
  summary(_, response) {
    const topics = response.topics.map(
      (t) =>
        `${t.name ?? t.topicId}${t.errorCode === 0 ? `(${t.partitions.length})` : ` ${errorName(t.errorCode)}`}`,
    );
    return `topics: ${topics.join(', ') || 'none'}`;
  },
});
