import {
  CreatePartitions,
  type CreatePartitionsResponse,
  ErrorCode,
  type ErrorName,
  errorName,
} from '@klog/protocol';
import { LogError } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type Result = CreatePartitionsResponse.CreatePartitionsTopicResult;

/**
 * CreatePartitions, checked as Kafka's controller checks it (`ReplicationControlManager.createPartitions`):
 * the new count must be more than the topic has; an assignment, if given, one list per new partition, each
 * this broker alone. Records keyed to a partition go elsewhere once the count grows, as in Kafka.
 */
export const createPartitionsApi = defineApi({
  codec: CreatePartitions,
  versions: { min: 0, max: 3 },
  handle(ctx: Pick<BrokerContext, 'config' | 'log' | 'logger'>, _header, request) {
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results = request.topics.map((t): Result => {
      const fail = (code: ErrorName, message: string): Result => ({
        name: t.name,
        errorCode: ErrorCode[code],
        errorMessage: message,
      });
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
      if (!request.validateOnly) {
        try {
          ctx.log.addPartitions(t.name, t.count);
        } catch (error) {
          if (error instanceof LogError) return fail(error.code, error.message);
          throw error;
        }
        ctx.logger.info(`topic ${t.name}: ${now} → ${t.count} partitions (CreatePartitions)`);
      }
      return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
    });
    return { throttleTimeMs: 0, results };
  },
  summary: (_, response) =>
    response.results.map((r) => `${r.name} ${errorName(r.errorCode)}`).join(', ') || 'none',
});
