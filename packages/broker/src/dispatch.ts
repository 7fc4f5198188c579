import {
  ApiVersions,
  type ApiVersionsRequest,
  CreateTopics,
  type CreateTopicsRequest,
  encodeResponse,
  errorName,
  Fetch,
  type FetchRequest,
  type FetchResponse,
  InitProducerId,
  type InitProducerIdRequest,
  ListOffsets,
  type ListOffsetsRequest,
  Metadata,
  type MetadataRequest,
  type ParsedRequest,
  Produce,
  type ProduceRequest,
  type ProduceResponse,
  type RequestHeader,
  type ResponseFrame,
} from '@klog/protocol';
import { type BrokerContext, NO_RESPONSE } from './context.js';
import { apiVersionsTooNew, handleApiVersions } from './handlers/api-versions.js';
import { handleCreateTopics } from './handlers/create-topics.js';
import { handleFetch } from './handlers/fetch.js';
import { handleInitProducerId } from './handlers/init-producer-id.js';
import { handleListOffsets } from './handlers/list-offsets.js';
import { handleMetadata } from './handlers/metadata.js';
import { handleProduce } from './handlers/produce.js';

/**
 * What handling a request came to: a response to send, or none (acks = 0, or a response a teaching fault
 * drops); `close` says the connection is to be closed instead of answered (a fault), and why.
 */
export interface Handled {
  readonly frame: ResponseFrame | undefined;
  readonly summary: string;
  readonly close?: string;
}

type Request = Extract<ParsedRequest, { kind: 'request' | 'apiVersionsTooNew' }>;

function respond<Res>(codec: Parameters<typeof encodeResponse<Res>>[0], header: RequestHeader, body: Res, summary: string): Handled {
  return { frame: encodeResponse(codec, header.apiVersion, header.correlationId, body), summary };
}

function produceSummary(request: ProduceRequest, response: ProduceResponse | typeof NO_RESPONSE): string {
  const acks = `acks=${request.acks}`;
  if (response === NO_RESPONSE) return `${acks}, no response`;
  const parts = response.responses.flatMap((t) =>
    t.partitionResponses.map((p) => `${t.name}-${p.index} ${errorName(p.errorCode)}${p.errorCode === 0 ? ` at ${p.baseOffset}` : ''}`),
  );
  return `${acks}: ${parts.join(', ')}`;
}

function fetchSummary(request: FetchRequest, response: FetchResponse): string {
  const parts = response.responses.flatMap((t, i) =>
    t.partitions.map((p, j) => {
      const asked = request.topics[i]?.partitions[j]?.fetchOffset;
      return `${t.topic}-${p.partitionIndex}@${asked} ${errorName(p.errorCode)} ${p.records?.length ?? 0} B hw ${p.highWatermark}`;
    }),
  );
  return parts.join(', ') || errorName(response.errorCode);
}

/**
 * Runs the handler of one request and encodes its response (header version and body version as the
 * request's). Fetch may wait for data and CreateTopics yields to other connections while it works; every
 * other handler answers at once.
 */
export function dispatch(ctx: BrokerContext, request: Request, signal: AbortSignal): Handled | Promise<Handled> {
  const { header } = request;
  if (request.kind === 'apiVersionsTooNew') {
    // Version 0 body and header: what a client that knows nothing yet can read.
    const frame = encodeResponse(ApiVersions, 0, header.correlationId, apiVersionsTooNew());
    return { frame, summary: `UNSUPPORTED_VERSION (klog serves ${ApiVersions.minVersion}–${ApiVersions.maxVersion})` };
  }
  const body = request.body;
  switch (request.codec.apiKey) {
    case ApiVersions.apiKey: {
      const res = handleApiVersions(header, body as ApiVersionsRequest);
      return respond(ApiVersions, header, res, errorName(res.errorCode));
    }
    case Metadata.apiKey: {
      const res = handleMetadata(ctx, header, body as MetadataRequest);
      const topics = res.topics.map((t) => `${t.name}${t.errorCode === 0 ? `(${t.partitions.length})` : ` ${errorName(t.errorCode)}`}`);
      return respond(Metadata, header, res, `topics: ${topics.join(', ') || 'none'}`);
    }
    case InitProducerId.apiKey: {
      const res = handleInitProducerId(ctx, body as InitProducerIdRequest);
      return respond(InitProducerId, header, res, `${errorName(res.errorCode)} producer id ${res.producerId} epoch ${res.producerEpoch}`);
    }
    case CreateTopics.apiKey:
      return handleCreateTopics(ctx, header, body as CreateTopicsRequest).then((res) =>
        respond(CreateTopics, header, res, res.topics.map((t) => `${t.name} ${errorName(t.errorCode)}`).join(', ')),
      );
    case ListOffsets.apiKey: {
      const req = body as ListOffsetsRequest;
      const res = handleListOffsets(ctx, header, req);
      const parts = res.topics.flatMap((t, i) =>
        t.partitions.map((p, j) => `${t.name}-${p.partitionIndex} ts ${req.topics[i]?.partitions[j]?.timestamp} → ${p.offset >= 0 ? p.offset : (p.oldStyleOffsets[0] ?? -1)}`),
      );
      return respond(ListOffsets, header, res, parts.join(', '));
    }
    case Produce.apiKey: {
      const req = body as ProduceRequest;
      const { response, written } = handleProduce(ctx, header, req);
      const summary = produceSummary(req, response);
      if (response === NO_RESPONSE) return { frame: undefined, summary };
      // The batches are on the log; a teaching fault may now lose the answer (faults.ts).
      const fault = ctx.faults.afterAppend(written);
      if (fault.kind === 'drop') return { frame: undefined, summary: `${summary} (response dropped: ${fault.line})` };
      if (fault.kind === 'close') return { frame: undefined, summary, close: fault.line };
      return respond(Produce, header, response, summary);
    }
    case Fetch.apiKey: {
      const req = body as FetchRequest;
      return handleFetch(ctx, header, req, signal).then((res) => respond(Fetch, header, res, fetchSummary(req, res)));
    }
    default:
      throw new Error(`no handler for API key ${request.codec.apiKey}`);
  }
}
