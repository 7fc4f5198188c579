import {
  DeleteTopics,
  type DeleteTopicsResponse,
  ErrorCode,
  type ErrorName,
  errorName,
} from '@klog/protocol';
import { isInternalTopic } from '../../group/offsets-topic.js';
import { LogError, NO_TOPIC_ID } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type Result = DeleteTopicsResponse.DeletableTopicResult;

/**
 * Deletes one topic as Kafka's controller does for a DeleteTopics: its partitions' files, then its configs.
 * Kafka answers once the deletion is done in the metadata; klog's is done when this returns (the files are
 * renamed away at once, then removed), so the timeout never matters.
 */
function deleteTopic(
  ctx: Pick<BrokerContext, 'log' | 'logger' | 'topicConfigs'>,
  name: string | null,
  id: string,
  withId: boolean,
): Result {
  // Version 6 may name a topic by id only (Kafka's `ReplicationControlManager.deleteTopics` by id).
  const topic = name ?? ctx.log.topicName(id) ?? null;
  // The id is read before the deletion drops it: the answer names the topic deleted by its id.
  const own = topic === null ? undefined : ctx.log.topicId(topic);
  const result = (code: ErrorName, message: string | null): Result => ({
    name: topic,
    topicId: topic === null ? id : (own ?? NO_TOPIC_ID),
    errorCode: ErrorCode[code],
    errorMessage: message,
  });
  if (topic === null) return result('UNKNOWN_TOPIC_ID', `No topic with id ${id}.`);
  if (name !== null && withId && id !== NO_TOPIC_ID && own !== id) {
    return result('INVALID_REQUEST', `Topic ${topic} does not have id ${id}.`);
  }
  if (isInternalTopic(topic)) {
    return result('INVALID_REQUEST', `${topic} is internal: the group coordinator's, it cannot be deleted.`);
  }
  if (!ctx.log.topics().has(topic)) {
    return result('UNKNOWN_TOPIC_OR_PARTITION', 'This server does not host this topic-partition.');
  }
  try {
    ctx.log.deleteTopic(topic);
  } catch (error) {
    if (error instanceof LogError) return result(error.code, error.message);
    throw error;
  }
  ctx.topicConfigs.delete(topic);
  ctx.logger.info(`deleted topic ${topic} (DeleteTopics)`);
  return result('NONE', null);
}

export const deleteTopicsApi = defineApi({
  codec: DeleteTopics,
  versions: { min: 0, max: 6 },
  handle(ctx, header, request) {
    const responses =
      header.apiVersion >= 6
        ? request.topics.map((t) => deleteTopic(ctx, t.name, t.topicId, true))
        : request.topicNames.map((t) => deleteTopic(ctx, t, NO_TOPIC_ID, false));
    return { throttleTimeMs: 0, responses };
  },
  summary: (_, response) =>
    response.responses.map((r) => `${r.name} ${errorName(r.errorCode)}`).join(', ') || 'none',
});
