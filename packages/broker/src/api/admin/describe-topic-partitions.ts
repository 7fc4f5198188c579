import {
  DescribeTopicPartitions,
  type DescribeTopicPartitionsResponse,
  ErrorCode,
  errorName,
} from '@klog/protocol';
import { NO_TOPIC_ID } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';
import { NO_OPERATIONS, TOPIC_OPERATIONS } from '../metadata/metadata.js';

type Topic = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic;

/**
 * DescribeTopicPartitions (KIP-966): what Kafka 4's `kafka-topics.sh --describe` sends — each topic's
 * partitions, leader and replicas (this broker), paged: at most ResponsePartitionLimit partitions, from the
 * cursor on, with NextCursor where the next page starts. An empty topic list asks for every topic, by name.
 */
export const describeTopicPartitionsApi = defineApi({
  codec: DescribeTopicPartitions,
  versions: { min: 0, max: 0 },
  handle(ctx: Pick<BrokerContext, 'config' | 'log'>, _header, request) {
    const known = ctx.log.topics();
    let names = request.topics.length === 0 ? [...known.keys()] : request.topics.map((t) => t.name);
    names = [...new Set(names)].sort();
    const cursor = request.cursor;
    if (cursor !== null) names = names.filter((n) => n >= cursor.topicName);
    let budget = Math.max(1, request.responsePartitionLimit);
    const node = ctx.config.nodeId;
    const topics: Topic[] = [];
    let nextCursor: DescribeTopicPartitionsResponse.Cursor | null = null;
    for (const name of names) {
      const count = known.get(name);
      if (count === undefined) {
        const invalid = ctx.log.invalidTopicName(name);
        topics.push({
          errorCode:
            invalid === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION,
          name,
          topicId: NO_TOPIC_ID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: NO_OPERATIONS,
        });
        continue;
      }
      const from = cursor !== null && name === cursor.topicName ? cursor.partitionIndex : 0;
      if (budget === 0) {
        nextCursor = { topicName: name, partitionIndex: from };
        break;
      }
      const to = Math.min(count, from + budget);
      budget -= to - from;
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: ctx.log.topicId(name) ?? NO_TOPIC_ID,
        isInternal: name.startsWith('__'),
        partitions: Array.from({ length: Math.max(0, to - from) }, (_, i) => ({
          errorCode: ErrorCode.NONE,
          partitionIndex: from + i,
          leaderId: node,
          leaderEpoch: 0,
          replicaNodes: [node],
          isrNodes: [node],
          eligibleLeaderReplicas: [],
          lastKnownElr: [],
          offlineReplicas: [],
        })),
        topicAuthorizedOperations: TOPIC_OPERATIONS,
      });
      if (to < count) {
        nextCursor = { topicName: name, partitionIndex: to };
        break;
      }
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
  summary: (_, response) =>
    response.topics
      .map((t) => `${t.name}${t.errorCode === 0 ? `(${t.partitions.length})` : ` ${errorName(t.errorCode)}`}`)
      .join(', ') || 'none',
});
