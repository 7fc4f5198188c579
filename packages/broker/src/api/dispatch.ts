import {
  type ApiCodec,
  type ApiKey,
  type ApiResponse,
  ApiVersions,
  encodeResponse,
  encodeResponseBody,
  frameResponseBody,
  type KafkaRequest,
  type ParsedRequest,
  type ResponseFrame,
} from '@klog/protocol';
import { ADVERTISED_APIS } from './advertised.js';
import { type ApiHandler, type ClientInfo, encodedBodiesOf, Unanswered } from './api-handler.js';
import type { BrokerContext } from './context.js';
import { API_HANDLERS } from './index.js';
import { apiVersionsTooNew } from './metadata/api-versions.js';

/**
 * What handling a request came to: a response to send, or none (acks = 0, or a response a teaching fault
 * drops); `close` says the connection is to be closed instead of answered (a fault), and why.
 */
export interface Handled {
  readonly frame: ResponseFrame | undefined;
  /** The debug line's text: read only when that line is kept, so a getter may build it then. */
  readonly summary: string;
  readonly close?: string;
}

/**
 * A response's Handled, its summary built only when read: the debug line is the one reader, and a Produce's
 * summary (a string per partition) was a measurable part of its CPU with the line off (issue 44).
 */
class Answered<K extends ApiKey> implements Handled {
  constructor(
    readonly frame: ResponseFrame,
    private readonly handler: ApiHandler<K>,
    private readonly request: KafkaRequest<K>['body'],
    private readonly response: ApiResponse<K>,
  ) {}

  get summary(): string {
    return this.handler.summary(this.request, this.response);
  }
}

/** Node's pooled memory for a small frame: one slab shared by many, not an allocation of its own. */
const allocatePooled = (size: number): Uint8Array => Buffer.allocUnsafe(size);

/**
 * A response's frame: its body encoded now, or, for one the same for every request (`sameForEveryRequest`),
 * encoded once per version and framed for this request.
 */
function encodeFrame<Res extends object>(
  codec: ApiCodec<unknown, Res>,
  apiVersion: number,
  correlationId: number,
  response: Res,
): ResponseFrame {
  const bodies = encodedBodiesOf(response);
  if (bodies === undefined) return encodeResponse(codec, apiVersion, correlationId, response);
  let body = bodies.get(apiVersion);
  if (body === undefined) {
    body = encodeResponseBody(codec, apiVersion, response);
    bodies.set(apiVersion, body);
  }
  return frameResponseBody(codec, apiVersion, correlationId, body, allocatePooled);
}

type AnyHandler = (typeof API_HANDLERS)[number];

/** Handlers by API key: one per key, or the broker does not start. */
export function handlersByKey<H extends ApiHandler<ApiKey>>(handlers: readonly H[]): ReadonlyMap<number, H> {
  const byKey = new Map<number, H>();
  for (const h of handlers) {
    const other = byKey.get(h.codec.apiKey);
    if (other !== undefined) throw new Error(`two handlers for API key ${h.codec.apiKey} (${h.codec.name})`);
    byKey.set(h.codec.apiKey, h);
  }
  return byKey;
}

/**
 * What `parseRequest` is to read: the codec of each API handled, its range narrowed to the versions its
 * handler serves, so a request in another version is `unsupportedVersion` — and one for an API without a
 * handler `unknownApi` — before any body is read.
 */
export function servedCodecs(
  handlers: readonly ApiHandler<ApiKey>[],
): ReadonlyMap<number, ApiCodec<unknown, never>> {
  return new Map(
    [...handlersByKey(handlers)].map(([key, h]) => {
      const codec = { ...h.codec, minVersion: h.versions.min, maxVersion: h.versions.max };
      return [key, codec as ApiCodec<unknown, never>];
    }),
  );
}

const HANDLERS: ReadonlyMap<number, AnyHandler> = handlersByKey(API_HANDLERS);
export const SERVED_CODECS = servedCodecs(API_HANDLERS);
const API_VERSIONS = HANDLERS.get(ApiVersions.apiKey);

function run<K extends ApiKey>(
  ctx: BrokerContext,
  request: KafkaRequest<K>,
  client: ClientInfo,
): Handled | Promise<Handled> {
  // The one cast: HANDLERS holds, under each key, the handler declared with that key's codec.
  const handler = HANDLERS.get(request.apiKey) as ApiHandler<K> | undefined;
  if (handler === undefined) throw new Error(`no handler for API key ${request.apiKey}`);
  const { header, body } = request;
  const answered = (response: ApiResponse<K> | Unanswered): Handled => {
    if (response instanceof Unanswered) {
      const { summary, close } = response;
      return close === undefined ? { frame: undefined, summary } : { frame: undefined, summary, close };
    }
    const frame = encodeFrame(request.codec, header.apiVersion, header.correlationId, response);
    return new Answered(frame, handler, body, response);
  };
  const response = handler.handle(ctx, header, body, client);
  return response instanceof Promise ? response.then(answered) : answered(response);
}

/**
 * Runs the handler of one request (api/index.ts lists them) and encodes its response, header version
 * and body version as the request's. Only a handler that may wait (Fetch, JoinGroup, SyncGroup) takes time.
 */
export function dispatch(
  ctx: BrokerContext,
  request: Extract<ParsedRequest, { kind: 'request' | 'apiVersionsTooNew' }>,
  client: ClientInfo,
): Handled | Promise<Handled> {
  if (request.kind === 'request') return run(ctx, request, client);
  // Version 0 body and header: what a client that knows nothing yet can read.
  const frame = encodeFrame(ApiVersions, 0, request.header.correlationId, apiVersionsTooNew(ADVERTISED_APIS));
  const served =
    API_VERSIONS === undefined ? 'none' : `${API_VERSIONS.versions.min}–${API_VERSIONS.versions.max}`;
  return { frame, summary: `UNSUPPORTED_VERSION (klog serves ${served})` };
}
