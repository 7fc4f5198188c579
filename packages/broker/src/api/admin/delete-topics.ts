import {
  DeleteTopics,
  type DeleteTopicsResponse,
  ErrorCode,
  type ErrorName,
  errorName,
} from '@klog/protocol';
import { isInternalTopic } from '../../group/offsets-topic.js';
import { LogError } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';
import { topicId } from './create-topics.js';

type Result = DeleteTopicsResponse.DeletableTopicResult;

const NO_TOPIC_ID = '00000000-0000-0000-0000-000000000000';

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
  const result = (topic: string | null, code: ErrorName, message: string | null): Result => ({
    name: topic,
    topicId: topic === null ? id : topicId(topic),
    errorCode: ErrorCode[code],
    errorMessage: message,
  });
  let topic = name;
  if (topic === null) {
    // Version 6 may name a topic by id only: klog's ids are a hash of the name (create-topics.ts).
    topic = [...ctx.log.topics().keys()].find((t) => topicId(t) === id) ?? null;
    if (topic === null) return result(null, 'UNKNOWN_TOPIC_ID', `No topic with id ${id}.`);
  } else if (withId && id !== NO_TOPIC_ID && topicId(topic) !== id) {
    return result(topic, 'INVALID_REQUEST', `Topic ${topic} does not have id ${id}.`);
  }
  if (isInternalTopic(topic)) {
    return result(
      topic,
      'INVALID_REQUEST',
      `${topic} is internal: the group coordinator's, it cannot be deleted.`,
    );
  }
  if (!ctx.log.topics().has(topic)) {
    return result(topic, 'UNKNOWN_TOPIC_OR_PARTITION', 'This server does not host this topic-partition.');
  }
  try {
    ctx.log.deleteTopic(topic);
  } catch (error) {
    if (error instanceof LogError) return result(topic, error.code, error.message);
    throw error;
  }
  ctx.topicConfigs.delete(topic);
  ctx.logger.info(`deleted topic ${topic} (DeleteTopics)`);
  return result(topic, 'NONE', null);
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
