import type { ApiCodec } from './apis/api-codec.js';
import { API_CODECS, type ApiMessages } from './apis/index.js';
import { ApiVersions } from './apis/metadata/api-versions.js';
import { ProtocolDecodeError } from './errors.js';
import {
  peekApiKeyAndVersion,
  type RequestHeader,
  readRequestHeader,
  requestHeaderVersion,
} from './headers.js';
import { Reader } from './wire/reader.js';

/** An API key klog has codecs for. */
export type ApiKey = keyof ApiMessages;
/** The request type of API `K`: `ApiRequest<0>` is ProduceRequest. */
export type ApiRequest<K extends ApiKey> = ApiMessages[K]['request'];
/** The response type of API `K`. */
export type ApiResponse<K extends ApiKey> = ApiMessages[K]['response'];

/**
 * A request read, discriminated by `apiKey`: narrowing the key types the body and the codec. With `K` the
 * one API's request; without, the union of every API's (a mapped type, so a handler generic in `K` gets
 * the body and response of its own key).
 */
export type KafkaRequest<K extends ApiKey = ApiKey> = {
  [P in K]: {
    readonly kind: 'request';
    readonly apiKey: P;
    readonly header: RequestHeader;
    readonly codec: ApiCodec<ApiRequest<P>, ApiResponse<P>, P>;
    readonly body: ApiRequest<P>;
  };
}[K];

/**
 * What one request frame is, decided as Kafka's SocketServer / RequestContext decide it:
 * - `request`: an API and version klog serves, header and body read (a KafkaRequest);
 * - `apiVersionsTooNew`: ApiVersions in a version klog does not serve — not parsed beyond its header; the
 *   answer is a version 0 body with UNSUPPORTED_VERSION and the supported ranges (KIP-511), so the client
 *   can retry with one it shares;
 * - `unsupportedVersion` / `unknownApi`: Kafka throws UnsupportedVersionException / InvalidRequestException
 *   for these and closes the connection.
 * Bytes that are not a request throw ProtocolDecodeError (Kafka: InvalidRequestException, connection closed).
 */
export type ParsedRequest =
  | KafkaRequest
  | { readonly kind: 'apiVersionsTooNew'; readonly header: RequestHeader }
  | {
      readonly kind: 'unsupportedVersion';
      readonly header: RequestHeader;
      readonly codec: ApiCodec<unknown, never>;
    }
  | {
      readonly kind: 'unknownApi';
      readonly apiKey: number;
      readonly apiVersion: number;
      /** The header as far as every version agrees (key, version, correlation id, client id). */
      readonly header: RequestHeader;
    };

/**
 * `codecs`: the APIs served and their versions — all klog has codecs for unless told (the broker passes
 * those it has handlers for, in the versions they serve). Each must be the generated codec of its key (or
 * one with its range narrowed): that is what makes the body the type its `apiKey` says.
 */
export function parseRequest(
  frame: Uint8Array,
  codecs: ReadonlyMap<number, ApiCodec<unknown, never>> = API_CODECS,
): ParsedRequest {
  const peek = peekApiKeyAndVersion(frame);
  if (peek === undefined) {
    throw new ProtocolDecodeError(
      'header',
      0,
      `a request header needs at least 8 bytes, the frame has ${frame.length}`,
    );
  }
  const codec = codecs.get(peek.apiKey);
  const r = new Reader(frame);
  if (codec === undefined) {
    // Header v1's fields open v2 too: enough to say who asked (the tagged fields after them are not read).
    const header = readRequestHeader(r, 1);
    return { kind: 'unknownApi', apiKey: peek.apiKey, apiVersion: peek.apiVersion, header };
  }
  const header = readRequestHeader(r, requestHeaderVersion(codec, peek.apiVersion));
  if (peek.apiVersion < codec.minVersion || peek.apiVersion > codec.maxVersion) {
    if (codec.apiKey === ApiVersions.apiKey && peek.apiVersion > codec.maxVersion) {
      return { kind: 'apiVersionsTooNew', header };
    }
    return { kind: 'unsupportedVersion', header, codec };
  }
  const body = codec.readRequest(peek.apiVersion, r);
  return { kind: 'request', apiKey: codec.apiKey, header, codec, body } as KafkaRequest;
}
