import type { ApiCodec } from './apis/api-codec.js';
import { requestHeaderVersion, responseHeaderVersion } from './headers.js';
import { Reader } from './wire/reader.js';
import { concatBytes, Writer } from './wire/writer.js';

/**
 * The client's side of one exchange, for klog's own tools (`klog topics`): a request frame with its
 * header (v1, or v2 for a flexible version), and the body of the response frame that answers it.
 */
export function encodeRequest<Req>(
  codec: ApiCodec<Req, unknown>,
  apiVersion: number,
  correlationId: number,
  clientId: string,
  body: Req,
): Uint8Array {
  const w = new Writer(256);
  w.int32(0, 'size');
  w.int16(codec.apiKey, 'header.requestApiKey').int16(apiVersion, 'header.requestApiVersion');
  w.int32(correlationId, 'header.correlationId').nullableString(clientId, 'header.clientId');
  if (requestHeaderVersion(codec, apiVersion) === 2) w.uvarint(0, 'header._tagged_fields');
  codec.writeRequest(apiVersion, w, body);
  const frame = concatBytes(w.finish());
  new DataView(frame.buffer, frame.byteOffset, 4).setInt32(0, frame.length - 4);
  return frame;
}

/** Reads a response frame (without its size prefix): the correlation id and the body of `apiVersion`. */
export function decodeResponse<Res>(
  codec: ApiCodec<unknown, Res>,
  apiVersion: number,
  frame: Uint8Array,
): { correlationId: number; body: Res } {
  const r = new Reader(frame);
  const correlationId = r.int32('header.correlationId');
  if (responseHeaderVersion(codec, apiVersion) === 1) r.skipTaggedFields('header._tagged_fields');
  return { correlationId, body: codec.readResponse(apiVersion, r) };
}
