import type { ApiCodec } from './apis/api-codec.js';
import {
  API_CODECS,
  type FetchRequest,
  type FetchResponse,
  type ProduceRequest,
  type ProduceResponse,
} from './apis/index.js';
import { encodeResponse, type ResponseFrame } from './framing.js';
import {
  type ApiKey,
  type ApiRequest,
  type ApiResponse,
  type KafkaRequest,
  parseRequest,
} from './request.js';

/**
 * Kafka's `AbstractRequest.getErrorResponse`, per API: the response that says only "this failed with
 * `errorCode`" — the top-level error code where the response has one, else every topic and partition the
 * request named, each with the code. What a broker answers when it can read a request but will not serve
 * it (a version it has codecs for but does not serve): the client then reports the code, not an EOF.
 * Only the APIs whose codecs reach beyond what klog serves need one (Produce 0–2, Fetch 0–3).
 */
type ErrorResponseOf<K extends ApiKey> = (request: ApiRequest<K>, errorCode: number) => ApiResponse<K> | null;

/** Kafka's ProduceRequest.getErrorResponse: no response at all for acks = 0 (the client expects none). */
function produceError(request: ProduceRequest, errorCode: number): ProduceResponse | null {
  if (request.acks === 0) return null;
  return {
    responses: request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({
        index: p.index,
        errorCode,
        baseOffset: -1,
        logAppendTimeMs: -1,
        logStartOffset: -1,
        recordErrors: [],
        errorMessage: null,
      })),
    })),
    throttleTimeMs: 0,
  };
}

const EMPTY_RECORDS = new Uint8Array(0);

/** Kafka's FetchRequest.getErrorResponse: each partition asked for, with the code and no records. */
function fetchError(request: FetchRequest, errorCode: number): FetchResponse {
  return {
    throttleTimeMs: 0,
    // The top-level code came with fetch sessions (v7): Kafka sets it too, alongside the partitions'.
    errorCode,
    sessionId: 0,
    responses: request.topics.map((t) => ({
      topic: t.topic,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partition,
        errorCode,
        highWatermark: -1,
        lastStableOffset: -1,
        logStartOffset: -1,
        abortedTransactions: null,
        preferredReadReplica: -1,
        // Empty rather than null (which the schema allows, and Kafka writes since 3.0): Sarama 1.22 cannot
        // read a null records field, and Kafka 2.x, which it was made against, wrote MemoryRecords.EMPTY.
        records: EMPTY_RECORDS,
      })),
    })),
  };
}

const ERROR_RESPONSES: { readonly [K in ApiKey]?: ErrorResponseOf<K> } = {
  0: produceError,
  1: fetchError,
};

/** Whether klog can build an error response for API `apiKey` (in every version it has codecs for). */
export function hasErrorResponse(apiKey: number): boolean {
  return Object.hasOwn(ERROR_RESPONSES, apiKey);
}

/**
 * What answering a request with only an error code comes to:
 * - `response`: the response frame, in the request's version and header version;
 * - `noResponse`: the request expects none (Produce with acks = 0), so there is nothing to send;
 * - `unanswerable`: klog cannot write a response in that version (no codec for the API or the version, or
 *   no error response defined for the API) — `reason` says which, for the log.
 */
export type ErrorResponse =
  | { readonly kind: 'response'; readonly frame: ResponseFrame; readonly request: KafkaRequest }
  | { readonly kind: 'noResponse'; readonly reason: string }
  | { readonly kind: 'unanswerable'; readonly reason: string };

/**
 * The error response to one request frame, its body read with the full codec of its API (`codecs`: all
 * klog has unless told). Throws ProtocolDecodeError on bytes that are not a request of that version.
 */
export function errorResponseFor(
  frame: Uint8Array,
  errorCode: number,
  codecs: ReadonlyMap<number, ApiCodec<unknown, never>> = API_CODECS,
): ErrorResponse {
  const parsed = parseRequest(frame, codecs);
  if (parsed.kind === 'unknownApi') {
    return { kind: 'unanswerable', reason: `klog has no definition of API key ${parsed.apiKey}` };
  }
  if (parsed.kind !== 'request') {
    const { apiVersion } = parsed.header;
    const codec = codecs.get(parsed.header.apiKey);
    const range = codec === undefined ? '' : ` (its codecs: v${codec.minVersion}–v${codec.maxVersion})`;
    return { kind: 'unanswerable', reason: `klog has no codec for v${apiVersion}${range}` };
  }
  return errorResponseOf(parsed, errorCode);
}

function errorResponseOf<K extends ApiKey>(request: KafkaRequest<K>, errorCode: number): ErrorResponse {
  // The one cast: ERROR_RESPONSES holds, under each key, the builder of that key's types.
  const build = ERROR_RESPONSES[request.apiKey] as ErrorResponseOf<K> | undefined;
  if (build === undefined) {
    return { kind: 'unanswerable', reason: `klog has no error response for ${request.codec.name}` };
  }
  const body = build(request.body, errorCode);
  if (body === null) return { kind: 'noResponse', reason: 'the request expects no response' };
  const { apiVersion, correlationId } = request.header;
  return {
    kind: 'response',
    frame: encodeResponse(request.codec, apiVersion, correlationId, body),
    request: request as KafkaRequest,
  };
}
