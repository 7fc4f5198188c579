import {
  ErrorCode,
  type ErrorName,
  errorName,
  Produce,
  type ProduceRequest,
  type ProduceResponse,
  type RequestHeader,
} from '@klog/protocol';
import { isInternalTopic } from '../../group/offsets-topic.js';
import { FetchPurgatory } from '../../log/fetch-purgatory.js';
import { inspectProducedRecords, LogError, partitionOrError } from '../../log/log-port.js';
import type { WrittenBatch } from '../../teaching/faults.js';
import { defineApi, Unanswered } from '../api-handler.js';
import { type BrokerContext, CloseConnection, NO_RESPONSE } from '../context.js';

type PartitionResponse = ProduceResponse.PartitionProduceResponse;

/** A Produce request handled: its response (none for acks = 0) and the batches it appended, in order. */
export interface ProduceOutcome {
  readonly response: ProduceResponse | typeof NO_RESPONSE;
  /** Empty when nothing was written: every partition a duplicate or an error. */
  readonly written: readonly WrittenBatch[];
}

function failed(
  index: number,
  code: ErrorName,
  message: string | null,
  recordErrors: LogError['recordErrors'] = [],
): PartitionResponse {
  return {
    index,
    errorCode: ErrorCode[code],
    baseOffset: -1,
    logAppendTimeMs: -1,
    logStartOffset: -1,
    // Kafka's RecordErrors (v8+): the records refused one by one, by their index in the batch.
    recordErrors: recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
    errorMessage: message,
  };
}

/** A disk that fails (full, read-only, gone) is the operator's to see, not only the client's: an ERROR line. */
function logStorageError(ctx: Pick<BrokerContext, 'limited'>, error: LogError, what: string): void {
  if (error.code !== 'KAFKA_STORAGE_ERROR') return;
  ctx.limited.log('error', 'storage', `${what}, answered KAFKA_STORAGE_ERROR: ${error.message}`);
}

/**
 * One partition's batch: Kafka's checks of the request (exactly one v2 batch; no transactions, which klog
 * does not build), then the append under Kafka's producer rules. A retry of a batch already written gets
 * NONE and the base offset it was first written at (never DUPLICATE_SEQUENCE_NUMBER); a gap gets
 * OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch INVALID_PRODUCER_EPOCH.
 */
function producePartition(
  ctx: Pick<BrokerContext, 'faults' | 'fetchWaits' | 'limited' | 'log' | 'now' | 'topicConfigs'>,
  version: number,
  topic: string,
  data: ProduceRequest.PartitionProduceData,
  written: WrittenBatch[],
): PartitionResponse {
  const partition = partitionOrError(ctx.log, topic, data.index);
  if (partition instanceof LogError) {
    logStorageError(ctx, partition, `${topic}-${data.index}: cannot open`);
    return failed(data.index, partition.code, partition.message);
  }
  if (partition === undefined) {
    return failed(
      data.index,
      'UNKNOWN_TOPIC_OR_PARTITION',
      `This server does not host ${topic}-${data.index}.`,
    );
  }
  // Kafka's ReplicaManager: only the coordinator writes its internal topic.
  if (isInternalTopic(topic))
    return failed(data.index, 'INVALID_TOPIC_EXCEPTION', `Cannot append to internal topic ${topic}`);
  const batch = inspectProducedRecords(data.records);
  if (batch.kind === 'invalid') return failed(data.index, batch.code, batch.message);
  if (batch.transactional || batch.control) {
    return failed(
      data.index,
      'INVALID_TXN_STATE',
      'klog does not build transactions: a transactional or control batch cannot be appended',
    );
  }
  // Produce below version 7 may not carry zstd (KIP-110).
  if (batch.compression === 'zstd' && version < 7) {
    return failed(
      data.index,
      'UNSUPPORTED_COMPRESSION_TYPE',
      'Produce requests below version 7 cannot carry zstd',
    );
  }
  try {
    const now = ctx.now();
    const { logAppendTime } = ctx.topicConfigs.effective(topic);
    const result = partition.appendProducerBatch(batch.batch, now, logAppendTime);
    switch (result.kind) {
      case 'Append':
        ctx.fetchWaits.notify(FetchPurgatory.key(topic, data.index));
        written.push({
          topic,
          partition: data.index,
          firstOffset: result.firstOffset,
          lastOffset: result.lastOffset,
        });
        return {
          index: data.index,
          errorCode: ErrorCode.NONE,
          baseOffset: result.firstOffset,
          logAppendTimeMs: result.logAppendTimeMs,
          logStartOffset: result.logStartOffset,
          recordErrors: [],
          errorMessage: null,
        };
      case 'Duplicate':
        // Kafka answers a retry of a batch it holds with the offsets it was written at, as a success.
        return {
          index: data.index,
          errorCode: ErrorCode.NONE,
          baseOffset: result.firstOffset,
          logAppendTimeMs: -1,
          logStartOffset: result.logStartOffset,
          recordErrors: [],
          errorMessage: null,
        };
      case 'OutOfOrderSequence':
        return failed(
          data.index,
          'OUT_OF_ORDER_SEQUENCE_NUMBER',
          `Out of order sequence number for producer ${batch.producerId} at ${topic}-${data.index}: ` +
            `${result.got} (incoming seq. number), ${result.expected} (expected)`,
        );
      case 'InvalidProducerEpoch':
        return failed(
          data.index,
          'INVALID_PRODUCER_EPOCH',
          `Epoch of producer ${batch.producerId} at ${topic}-${data.index} is ${result.current}, which is larger than the epoch ${result.got} of the batch`,
        );
    }
  } catch (error) {
    if (error instanceof LogError) {
      logStorageError(ctx, error, `${topic}-${data.index}: append failed`);
      return failed(data.index, error.code, error.message, error.recordErrors);
    }
    throw error;
  }
}

function handleProduce(
  ctx: Pick<BrokerContext, 'faults' | 'fetchWaits' | 'limited' | 'log' | 'now' | 'topicConfigs'>,
  header: RequestHeader,
  request: ProduceRequest,
): ProduceOutcome {
  const written: WrittenBatch[] = [];
  // One answer per partition: the whole request refused (bad acks, a transactional id), or each appended.
  const answer: (topic: string, p: ProduceRequest.PartitionProduceData) => PartitionResponse =
    request.acks !== -1 && request.acks !== 0 && request.acks !== 1
      ? (_, p) => failed(p.index, 'INVALID_REQUIRED_ACKS', null)
      : request.transactionalId !== null
        ? (_, p) =>
            failed(p.index, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'klog does not build transactions')
        : (topic, p) => producePartition(ctx, header.apiVersion, topic, p, written);
  const responses: ProduceResponse['responses'] = request.topicData.map((t) => ({
    name: t.name,
    partitionResponses: t.partitionData.map((p) => answer(t.name, p)),
  }));
  if (request.acks === 0) {
    // No response for acks = 0; a failure closes the connection, Kafka's only way to tell such a producer.
    const errors = responses.flatMap((t) =>
      t.partitionResponses.filter((p) => p.errorCode !== ErrorCode.NONE),
    );
    if (errors.length > 0) {
      throw new CloseConnection(
        `acks=0 produce failed (${errors.map((e) => e.errorMessage ?? e.errorCode).join('; ')})`,
      );
    }
    return { response: NO_RESPONSE, written };
  }
  return { response: { responses, throttleTimeMs: 0 }, written };
}

function produceSummary(request: ProduceRequest, response: ProduceResponse): string {
  const parts = response.responses.flatMap((t) =>
    t.partitionResponses.map(
      (p) =>
        `${t.name}-${p.index} ${errorName(p.errorCode)}${p.errorCode === 0 ? ` at ${p.baseOffset}` : ''}`,
    ),
  );
  return `acks=${request.acks}: ${parts.join(', ')}`;
}

/**
 * Served from 3, advertised from 0 as Kafka 4 does (`ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION`,
 * KAFKA-18659): librdkafka only compresses when the range it is shown contains Produce v0. A Produce
 * request below v3 is not served: no negotiating client picks one (each takes the highest it shares), and
 * one that does is answered UNSUPPORTED_VERSION per partition in its version (connection.ts), where Kafka
 * closes the connection.
 */
export const produceApi = defineApi({
  codec: Produce,
  versions: { min: 3, max: 8 },
  advertised: { min: 0, max: 8 },
  handle(ctx, header, request) {
    const { response, written } = handleProduce(ctx, header, request);
    if (response === NO_RESPONSE) return new Unanswered(`acks=${request.acks}, no response`);
    // The batches are on the log; a teaching fault may now lose the answer (faults.ts).
    const fault = ctx.faults.afterAppend(written);
    if (fault.kind === 'drop') {
      return new Unanswered(`${produceSummary(request, response)} (response dropped: ${fault.line})`);
    }
    if (fault.kind === 'close') return new Unanswered(produceSummary(request, response), fault.line);
    return response;
  },
  summary: produceSummary,
});
