import type { ApiCodec } from './apis/api-codec.js';
import { ApiVersions } from './apis/metadata/api-versions.js';
import type { Reader } from './wire/reader.js';
import type { Writer } from './wire/writer.js';

/**
 * Request header v1 (`request_api_key request_api_version correlation_id client_id`) and v2 (the same and a
 * TAG_BUFFER), Kafka's RequestHeader.json. The client id stays an INT16 NULLABLE_STRING in v2: the header
 * must be readable before the version that decides the body's form is known. A null client id is read as
 * '' (Kafka's `RequestHeader.parse` does the same).
 */
export interface RequestHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string;
  readonly headerVersion: 1 | 2;
}

/** The API key and version that open every request frame (what Kafka reads first, to pick the header). */
export function peekApiKeyAndVersion(frame: Uint8Array): { apiKey: number; apiVersion: number } | undefined {
  if (frame.length < 4) return undefined;
  const view = new DataView(frame.buffer, frame.byteOffset, 4);
  return { apiKey: view.getInt16(0), apiVersion: view.getInt16(2) };
}

/** What the header versions depend on: any API's codec, whatever its request and response types. */
export type CodecVersions = Pick<ApiCodec<unknown, never>, 'apiKey' | 'firstFlexibleVersion'>;

/** Flexible versions take request header v2, the others v1 (Kafka's `ApiMessageType.requestHeaderVersion`). */
export function requestHeaderVersion(codec: CodecVersions, apiVersion: number): 1 | 2 {
  return codec.firstFlexibleVersion >= 0 && apiVersion >= codec.firstFlexibleVersion ? 2 : 1;
}

/**
 * Flexible versions answer with response header v1 (with a TAG_BUFFER), the others v0 — except
 * ApiVersions, always v0: a client that does not yet know which versions the broker speaks must be able to
 * read the answer (Kafka's `ApiMessageType.responseHeaderVersion`).
 */
export function responseHeaderVersion(codec: CodecVersions, apiVersion: number): 0 | 1 {
  if (codec.apiKey === ApiVersions.apiKey) return 0;
  return codec.firstFlexibleVersion >= 0 && apiVersion >= codec.firstFlexibleVersion ? 1 : 0;
}

export function readRequestHeader(r: Reader, headerVersion: 1 | 2): RequestHeader {
  const apiKey = r.int16('header.requestApiKey');
  const apiVersion = r.int16('header.requestApiVersion');
  const correlationId = r.int32('header.correlationId');
  const clientId = r.nullableString('header.clientId') ?? '';
  if (headerVersion === 2) r.skipTaggedFields('header._tagged_fields');
  return { apiKey, apiVersion, correlationId, clientId, headerVersion };
}

/** Response header v0 (`correlation_id`) or v1 (`correlation_id TAG_BUFFER`), Kafka's ResponseHeader.json. */
export function writeResponseHeader(w: Writer, correlationId: number, headerVersion: 0 | 1): void {
  w.int32(correlationId, 'header.correlationId');
  if (headerVersion === 1) w.uvarint(0, 'header._tagged_fields');
}
