import {
  ErrorCode,
  ListOffsets,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type RequestHeader,
} from '@klog/protocol';
import { LogError, partitionOrError } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type PartitionResponse = ListOffsetsResponse.ListOffsetsPartitionResponse;

/** ListOffsets' special timestamps (Kafka's `ListOffsetsRequest`). */
const LATEST = -1;
const EARLIEST = -2;
/** v7+ (KIP-734): the record with the largest timestamp. */
const MAX_TIMESTAMP = -3;
/** v8+: the first offset still on local disk: the log start offset, on a broker without tiered storage. */
const EARLIEST_LOCAL = -4;
/** v9+ (KIP-1005): the last offset uploaded to tiered storage: none here, so −1, as Kafka answers without it. */
const LATEST_TIERED = -5;

/**
 * ListOffsets: the log start offset for EARLIEST (−2), the log end offset for LATEST (−1) — which is also
 * the last stable offset and the high watermark on one node without transactions — and for a timestamp
 * the first offset whose batch has a timestamp at least that, through the time index (offset −1 when
 * there is none). Version 0 answers a list of offsets (here one, or none). v7–v10's lookups (max timestamp,
 * earliest local, latest tiered) are answered as a Kafka 4.1 broker without tiered storage answers them;
 * v10's TimeoutMs bounds remote lookups, of which there are none.
 */
function handleListOffsets(
  ctx: Pick<BrokerContext, 'log'>,
  header: RequestHeader,
  request: ListOffsetsRequest,
): ListOffsetsResponse {
  const v0 = header.apiVersion === 0;
  const answer = (
    partitionIndex: number,
    errorCode: number,
    offset: number,
    timestamp: number,
  ): PartitionResponse => ({
    partitionIndex,
    errorCode,
    oldStyleOffsets: v0 && offset >= 0 ? [offset] : [],
    timestamp: v0 ? -1 : timestamp,
    offset: v0 ? -1 : offset,
    leaderEpoch: -1,
  });
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitions.map((p) => {
        const partition = partitionOrError(ctx.log, topic.name, p.partitionIndex);
        if (partition instanceof LogError) return answer(p.partitionIndex, ErrorCode[partition.code], -1, -1);
        if (partition === undefined)
          return answer(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1);
        if (p.timestamp === EARLIEST)
          return answer(p.partitionIndex, ErrorCode.NONE, partition.logStartOffset, -1);
        if (p.timestamp === LATEST)
          return answer(p.partitionIndex, ErrorCode.NONE, partition.lastStableOffset, -1);
        if (p.timestamp === EARLIEST_LOCAL)
          return answer(p.partitionIndex, ErrorCode.NONE, partition.logStartOffset, -1);
        if (p.timestamp === LATEST_TIERED) return answer(p.partitionIndex, ErrorCode.NONE, -1, -1);
        if (p.timestamp === MAX_TIMESTAMP) {
          const max = partition.offsetOfMaxTimestamp();
          return answer(p.partitionIndex, ErrorCode.NONE, max?.offset ?? -1, max?.timestamp ?? -1);
        }
        if (p.timestamp < 0) {
          // A special timestamp of a later Kafka (−6, EARLIEST_PENDING_UPLOAD, is v11: Kafka 4.2).
          return answer(p.partitionIndex, ErrorCode.UNSUPPORTED_VERSION, -1, -1);
        }
        const found = partition.offsetForTimestamp(p.timestamp);
        return found === undefined
          ? answer(p.partitionIndex, ErrorCode.NONE, -1, -1)
          : answer(p.partitionIndex, ErrorCode.NONE, found.offset, found.timestamp);
      }),
    })),
  };
}

export const listOffsetsApi = defineApi({
  codec: ListOffsets,
  versions: { min: 0, max: 10 },
  handle: handleListOffsets,
  summary(request, response) {
    const parts = response.topics.flatMap((t, i) =>
      t.partitions.map(
        (p, j) =>
          `${t.name}-${p.partitionIndex} ts ${request.topics[i]?.partitions[j]?.timestamp} → ${p.offset >= 0 ? p.offset : (p.oldStyleOffsets[0] ?? -1)}`,
      ),
    );
    return parts.join(', ');
  },
});
