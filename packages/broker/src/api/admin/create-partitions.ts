import {
  CreatePartitions,
  type CreatePartitionsResponse,
  ErrorCode,
  type ErrorName,
  errorName,
} from '@klog/protocol';
import { addPartitions, partitionLimitRefusal } from '../../log/topic-creation.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type Result = CreatePartitionsResponse.CreatePartitionsTopicResult;

/**
 * CreatePartitions, checked as Kafka's controller checks it (`ReplicationControlManager.createPartitions`):
 * the new count must be more than the topic has; an assignment, if given, one list per new partition, each
 * this broker alone. The partitions the whole request adds are bounded at once, as Kafka's controller
 * bounds one operation's records: past `max.partitions.per.request` or `max.broker.partitions` every topic
 * that would grow is answered POLICY_VIOLATION and none grows. Records keyed to a partition go elsewhere
 * once the count grows, as in Kafka.
 */
export const createPartitionsApi = defineApi({
  codec: CreatePartitions,
  versions: { min: 0, max: 3 },
  handle(ctx: Pick<BrokerContext, 'config' | 'log' | 'logger' | 'topicConfigs'>, _header, request) {
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // Each topic's own checks first; null: it would grow.
    const checked = request.topics.map((t): { code: ErrorName; message: string } | null => {
      const fail = (code: ErrorName, message: string) => ({ code, message });
      if ((counts.get(t.name) ?? 0) > 1) return fail('INVALID_REQUEST', 'Duplicate topic name.');
      const now = ctx.log.topics().get(t.name);
      if (now === undefined)
        return fail('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${t.name}' does not exist.`);
      if (t.count < now) {
        return fail(
          'INVALID_PARTITIONS',
          `The topic ${t.name} currently has ${now} partition(s); ${t.count} would not be an increase.`,
        );
      }
      if (t.count === now) return fail('INVALID_PARTITIONS', `Topic already has ${now} partition(s).`);
      if (t.assignments !== null) {
        if (t.assignments.length !== t.count - now) {
          return fail(
            'INVALID_REPLICA_ASSIGNMENT',
            `Attempted to add ${t.count - now} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`,
          );
        }
        const elsewhere = t.assignments.find(
          (a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== ctx.config.nodeId,
        );
        if (elsewhere !== undefined) {
          return fail(
            'INVALID_REPLICA_ASSIGNMENT',
            `An assignment to [${elsewhere.brokerIds.join(', ')}]: the only broker is ${ctx.config.nodeId}.`,
          );
        }
      }
      return null;
    });
    const adding = request.topics.reduce(
      (sum, t, i) => (checked[i] === null ? sum + (t.count - (ctx.log.topics().get(t.name) ?? 0)) : sum),
      0,
    );
    const over = partitionLimitRefusal(ctx, adding);
    const results = request.topics.map((t, i): Result => {
      const failed = checked[i] ?? (over === undefined ? null : { code: over.code, message: over.message });
      if (failed !== null)
        return { name: t.name, errorCode: ErrorCode[failed.code], errorMessage: failed.message };
      const added = addPartitions(ctx, t.name, t.count, 'CreatePartitions', request.validateOnly);
      if (added.kind === 'refused') {
        return { name: t.name, errorCode: ErrorCode[added.code], errorMessage: added.message };
      }
      return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
    });
    return { throttleTimeMs: 0, results };
  },
  summary: (_, response) =>
    response.results.map((r) => `${r.name} ${errorName(r.errorCode)}`).join(', ') || 'none',
});
