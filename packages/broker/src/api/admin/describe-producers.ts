import { DescribeProducers, type DescribeProducersResponse, ErrorCode, errorName } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type PartitionResponse = DescribeProducersResponse.PartitionResponse;

/**
 * DescribeProducers (KIP-664, what `kafka-transactions.sh describe-producers` prints): the chapter's
 * window seen from outside — each producer a partition knows, its epoch, the last sequence and timestamp
 * of its newest batch. No coordinator epoch and no open transaction (-1): klog has no transactions.
 */
export const describeProducersApi = defineApi({
  codec: DescribeProducers,
  versions: { min: 0, max: 0 },
  handle(ctx: Pick<BrokerContext, 'log'>, _header, request) {
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((index): PartitionResponse => {
        const p = ctx.log.partition(t.name, index);
        if (p === undefined) {
          return {
            partitionIndex: index,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: `This server does not host ${t.name}-${index}.`,
            activeProducers: [],
          };
        }
        const activeProducers = p
          .producers()
          .sort((a, b) => a.producerId - b.producerId)
          .map((s) => ({ ...s, coordinatorEpoch: -1, currentTxnStartOffset: -1 }));
        return { partitionIndex: index, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
  summary: (_, response) =>
    response.topics
      .flatMap((t) =>
        t.partitions.map(
          (p) =>
            `${t.name}-${p.partitionIndex} ${errorName(p.errorCode)} ${p.activeProducers.length} producer(s)`,
        ),
      )
      .join(', ') || 'none',
});
