import type { ApiCodec } from './apis/api-codec.js';
import { API_CODECS } from './apis/index.js';
import { ApiVersions } from './apis/metadata/api-versions.js';
import { ProtocolDecodeError } from './errors.js';
import { peekApiKeyAndVersion, type RequestHeader, readRequestHeader, requestHeaderVersion } from './headers.js';
import { Reader } from './wire/reader.js';

/**
 * What one request frame is, decided as Kafka's SocketServer / RequestContext decide it:
 * - `request`: an API and version klog serves, header and body read;
 * - `apiVersionsTooNew`: ApiVersions in a version klog does not serve — not parsed beyond its header; the
 *   answer is a version 0 body with UNSUPPORTED_VERSION and the supported ranges (KIP-511), so the client
 *   can retry with one it shares;
 * - `unsupportedVersion` / `unknownApi`: Kafka throws UnsupportedVersionException / InvalidRequestException
 *   for these and closes the connection.
 * Bytes that are not a request throw ProtocolDecodeError (Kafka: InvalidRequestException, connection closed).
 */
export type ParsedRequest =
  | {
      readonly kind: 'request';
      readonly header: RequestHeader;
      readonly codec: ApiCodec<unknown, never>;
      readonly body: unknown;
    }
  | { readonly kind: 'apiVersionsTooNew'; readonly header: RequestHeader }
  | { readonly kind: 'unsupportedVersion'; readonly header: RequestHeader; readonly codec: ApiCodec<unknown, never> }
  | {
      readonly kind: 'unknownApi';
      readonly apiKey: number;
      readonly apiVersion: number;
      /** The header as far as every version agrees (key, version, correlation id, client id). */
      readonly header: RequestHeader;
    };

export function parseRequest(
  frame: Uint8Array,
  codecs: ReadonlyMap<number, ApiCodec<unknown, never>> = API_CODECS,
): ParsedRequest {
  const peek = peekApiKeyAndVersion(frame);
  if (peek === undefined) {
    throw new ProtocolDecodeError('header', 0, `a request header needs at least 8 bytes, the frame has ${frame.length}`);
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
  return { kind: 'request', header, codec, body: codec.readRequest(peek.apiVersion, r) };
}
