import { DeleteRecords, type DeleteRecordsResponse, ErrorCode, errorName } from '@klog/protocol';
import { LogError } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type PartitionResult = DeleteRecordsResponse.DeleteRecordsPartitionResult;

/** Kafka's `DeleteRecordsRequest.HIGH_WATERMARK`: delete everything up to the high watermark. */
const HIGH_WATERMARK = -1;

/**
 * DeleteRecords (Kafka's `ReplicaManager.deleteRecords`): each partition's log start offset moves up to the
 * offset asked (−1: the high watermark); segments wholly below it are deleted, ListOffsets earliest answers
 * it, and a fetch below it gets OFFSET_OUT_OF_RANGE. An offset past the high watermark is
 * OFFSET_OUT_OF_RANGE; one below the log start changes nothing. The answer is the new low watermark.
 */
export const deleteRecordsApi = defineApi({
  codec: DeleteRecords,
  versions: { min: 0, max: 2 },
  handle(ctx: Pick<BrokerContext, 'log' | 'logger'>, _header, request) {
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p): PartitionResult => {
        const partition = ctx.log.partition(t.name, p.partitionIndex);
        const fail = (code: keyof typeof ErrorCode): PartitionResult => ({
          partitionIndex: p.partitionIndex,
          lowWatermark: -1,
          errorCode: ErrorCode[code],
        });
        if (partition === undefined) return fail('UNKNOWN_TOPIC_OR_PARTITION');
        const target = p.offset === HIGH_WATERMARK ? partition.highWatermark : p.offset;
        if (target < 0 || target > partition.highWatermark) return fail('OFFSET_OUT_OF_RANGE');
        try {
          const lowWatermark = partition.advanceLogStartOffset(target);
          ctx.logger.info(
            `${t.name}-${p.partitionIndex}: log start offset now ${lowWatermark} (DeleteRecords)`,
          );
          return { partitionIndex: p.partitionIndex, lowWatermark, errorCode: ErrorCode.NONE };
        } catch (error) {
          if (error instanceof LogError) return fail(error.code);
          throw error;
        }
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
  summary: (_, response) =>
    response.topics
      .flatMap((t) =>
        t.partitions.map(
          (p) => `${t.name}-${p.partitionIndex} ${errorName(p.errorCode)} low ${p.lowWatermark}`,
        ),
      )
      .join(', ') || 'none',
});
