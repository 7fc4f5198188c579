import {
  CreateTopics,
  type CreateTopicsRequest,
  type CreateTopicsResponse,
  ErrorCode,
  type ErrorName,
  errorName,
  type RequestHeader,
} from '@klog/protocol';
import { describeTopicConfigs } from '../../config/describe.js';
import { isInternalTopic } from '../../group/offsets-topic.js';
import { NO_TOPIC_ID } from '../../log/log-port.js';
import {
  checkNewTopic,
  createTopic,
  type NewTopic,
  nameRefusal,
  partitionLimitRefusal,
} from '../../log/topic-creation.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type TopicResult = CreateTopicsResponse.CreatableTopicResult;

/**
 * CreateTopics, checked as Kafka's controller checks it: one replica on one broker, partitions from the
 * request or (−1) `numPartitions` — Kafka's controller takes −1 as the default in every version — a manual
 * assignment only onto this broker; then the one creation path (topic-creation.ts: the name, the topic
 * configs klog applies, stored before the topic's directories are made). v5+ answers the topic's configs
 * as DescribeConfigs would. `validateOnly` checks and creates nothing.
 */
async function handleCreateTopics(
  ctx: Pick<BrokerContext, 'config' | 'log' | 'logger' | 'topicConfigs'>,
  _header: RequestHeader,
  request: CreateTopicsRequest,
): Promise<CreateTopicsResponse> {
  const counts = new Map<string, number>();
  for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const plans = request.topics.map((t) => planTopic(ctx, counts, t));
  // The partitions of every topic that would be made are bounded at once, as Kafka's controller bounds the
  // records of one CreateTopics: past a limit each of them is refused, and none is made.
  const adding = plans.reduce((sum, p) => (p.kind === 'create' ? sum + p.topic.partitions : sum), 0);
  const over = partitionLimitRefusal(ctx, adding);
  const topics: TopicResult[] = [];
  // Each topic is directories and an fsync: a request of thousands yields to the other connections between
  // slices (its own connection waits, muted), where Kafka queues such work to its controller.
  for (let from = 0; from < plans.length; from += CREATE_TOPICS_SLICE) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const plan of plans.slice(from, from + CREATE_TOPICS_SLICE)) {
      if (plan.kind === 'refused') topics.push(plan.result);
      else if (over !== undefined) topics.push(failed(plan.topic.name, over.code, over.message));
      else topics.push(create(ctx, request.validateOnly, plan.topic));
    }
  }
  return { throttleTimeMs: 0, topics };
}

/** Topics created between two yields of a CreateTopics. */
const CREATE_TOPICS_SLICE = 50;

/** A topic of the request, checked on its own: the topic to make, or its answer. */
type TopicPlan =
  | { readonly kind: 'create'; readonly topic: NewTopic }
  | { readonly kind: 'refused'; readonly result: TopicResult };

function failed(name: string, code: ErrorName, message: string): TopicResult {
  return {
    name,
    topicId: NO_TOPIC_ID,
    errorCode: ErrorCode[code],
    errorMessage: message,
    numPartitions: -1,
    replicationFactor: -1,
    configs: null,
  };
}

function planTopic(
  ctx: Pick<BrokerContext, 'config' | 'log'>,
  counts: ReadonlyMap<string, number>,
  t: CreateTopicsRequest['topics'][number],
): TopicPlan {
  const fail = (code: ErrorName, message: string): TopicPlan => ({
    kind: 'refused',
    result: failed(t.name, code, message),
  });
  if ((counts.get(t.name) ?? 0) > 1) {
    return fail(
      'INVALID_REQUEST',
      `Create topics request contains multiple entries for the topic ${t.name}.`,
    );
  }
  const taken = nameRefusal(ctx.log, t.name);
  if (taken !== undefined) return fail(taken.code, taken.message);
  // Kafka's ZkAdminManager / ControllerApis: the coordinator makes its own topic, with its own settings.
  if (isInternalTopic(t.name))
    return fail('INVALID_REQUEST', `Creation of internal topic ${t.name} is prohibited.`);
  let partitions = t.numPartitions;
  if (t.assignments.length > 0) {
    if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
      return fail(
        'INVALID_REQUEST',
        'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
      );
    }
    const indexes = t.assignments.map((a) => a.partitionIndex).sort((a, b) => a - b);
    if (indexes.some((p, i) => p !== i)) {
      return fail(
        'INVALID_REPLICA_ASSIGNMENT',
        `Partitions must be numbered 0 to ${indexes.length - 1} without gaps: got ${indexes.join(', ')}.`,
      );
    }
    const elsewhere = t.assignments.find(
      (a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== ctx.config.nodeId,
    );
    if (elsewhere !== undefined) {
      return fail(
        'INVALID_REPLICA_ASSIGNMENT',
        `Partition ${elsewhere.partitionIndex} is assigned to [${elsewhere.brokerIds.join(', ')}]; the only broker is ${ctx.config.nodeId}.`,
      );
    }
    partitions = indexes.length;
  } else {
    if (partitions === -1) partitions = ctx.config.numPartitions;
    const rf = t.replicationFactor === -1 ? 1 : t.replicationFactor;
    if (rf !== 1) {
      return fail(
        'INVALID_REPLICATION_FACTOR',
        rf <= 0
          ? `Replication factor must be larger than 0, got ${rf}.`
          : `Unable to replicate the partition ${rf} time(s): The target replication factor of ${rf} cannot be reached because only 1 broker(s) are registered.`,
      );
    }
  }
  const topic: NewTopic = { name: t.name, partitions, configs: t.configs, reason: 'CreateTopics' };
  const checked = checkNewTopic(ctx.log, topic);
  if (checked.kind === 'refused') return fail(checked.code, checked.message);
  return { kind: 'create', topic };
}

function create(
  ctx: Pick<BrokerContext, 'config' | 'log' | 'logger' | 'topicConfigs'>,
  validateOnly: boolean,
  topic: NewTopic,
): TopicResult {
  const created = createTopic(ctx, topic, validateOnly);
  if (created.kind === 'refused') return failed(topic.name, created.code, created.message);
  const configs = describeTopicConfigs(5, created.configs, ctx.topicConfigs.brokerDefaults, null, false).map(
    (e) => ({
      name: e.name,
      value: e.value,
      readOnly: e.readOnly,
      configSource: e.configSource,
      isSensitive: e.isSensitive,
    }),
  );
  return {
    name: topic.name,
    // The id the log drew and keeps in each partition's `partition.metadata`; zero for validateOnly.
    topicId: created.topicId ?? NO_TOPIC_ID,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    numPartitions: created.partitions,
    replicationFactor: 1,
    configs,
  };
}

export const createTopicsApi = defineApi({
  codec: CreateTopics,
  versions: { min: 0, max: 7 },
  handle: handleCreateTopics,
  summary: (_, response) => response.topics.map((t) => `${t.name} ${errorName(t.errorCode)}`).join(', '),
});
