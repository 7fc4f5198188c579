/**
 * Two real Kafka clients' own protocol code, by deep import: what they send (their request encoders and
 * their framing of the request header) and how they read what klog answers (their response decoders).
 */
import { createRequire } from 'node:module';
import {
  apiVersionsV3,
  createTopicsV7,
  fetchV12,
  fetchV17,
  initProducerIdV3,
  initProducerIdV4,
  listOffsetsV5,
  metadataV9,
  metadataV12,
  Reader as PlatformaticReader,
  Writer as PlatformaticWriter,
  produceV7,
  produceV8,
} from '@platformatic/kafka';
import {
  API_CODECS,
  type ApiCodec,
  concatBytes,
  encodeResponse,
  FrameDecoder,
  peekApiKeyAndVersion,
  Reader,
  type RequestHeader,
  readRequestHeader,
  requestHeaderVersion,
} from '../src/index.js';

const require = createRequire(import.meta.url);

interface KafkaJsApi {
  protocol(o: { version: number }): (args: unknown) => {
    request: { apiKey: number; apiVersion: number; encode(): Promise<{ buffer: Buffer }> };
    response: { decode(b: Buffer): Promise<unknown>; parse(d: unknown): Promise<unknown> };
  };
}
const kafkajsRequest = require('kafkajs/src/protocol/request.js') as (o: {
  correlationId: number;
  clientId: string;
  request: unknown;
}) => Promise<{ buffer: Buffer }>;

/** What the broker side makes of one request frame. */
export interface Decoded<Req> {
  readonly header: RequestHeader;
  readonly body: Req;
  /** Bytes of the frame the body did not read (Kafka ignores them; a correct reader leaves none). */
  readonly trailing: number;
}

export function decodeFrame<Req>(frame: Uint8Array): Decoded<Req> {
  const frames = new FrameDecoder();
  frames.push(frame);
  const body = frames.next();
  if (body === undefined || frames.bufferedBytes !== 0) throw new Error('not exactly one frame');
  const peek = peekApiKeyAndVersion(body)!;
  const codec = API_CODECS.get(peek.apiKey) as ApiCodec<Req, unknown>;
  const r = new Reader(body);
  const header = readRequestHeader(
    r,
    requestHeaderVersion(codec as ApiCodec<unknown, never>, peek.apiVersion),
  );
  const decoded = codec.readRequest(peek.apiVersion, r);
  return { header, body: decoded, trailing: r.remaining };
}

/** KafkaJS's `requests/<api>/index.js`, version `version`, built from `args`; its whole request frame. */
export async function kafkajsFrame(api: string, version: number, args: unknown, correlationId = 7) {
  const mod = require(`kafkajs/src/protocol/requests/${api}/index.js`) as KafkaJsApi;
  const { request, response } = mod.protocol({ version })(args);
  const encoded = await kafkajsRequest({ correlationId, clientId: 'kafkajs-test', request });
  return { frame: new Uint8Array(encoded.buffer), response };
}

/** klog's response frame as KafkaJS's connection hands it to the decoder: after size and correlation id. */
export function kafkajsPayload(chunks: Uint8Array[]): Buffer {
  const all = concatBytes(chunks);
  return Buffer.from(all.subarray(8));
}

type PlatformaticApi = {
  createRequest(...args: unknown[]): { buffer: Buffer };
  parseResponse(correlationId: number, apiKey: number, apiVersion: number, reader: unknown): unknown;
  api: { key: number; version: number };
};

const PLATFORMATIC = {
  apiVersionsV3,
  metadataV9,
  metadataV12,
  initProducerIdV3,
  initProducerIdV4,
  produceV7,
  produceV8,
  fetchV12,
  fetchV17,
  listOffsetsV5,
  createTopicsV7,
};

/** @platformatic/kafka's `<api>V<n>` module, its request made from `args`, framed as its Connection.send does. */
export function platformaticFrame(
  name: keyof typeof PLATFORMATIC,
  args: unknown[],
  headerTaggedFields: boolean,
  correlationId = 9,
) {
  const mod = PLATFORMATIC[name] as unknown as PlatformaticApi;
  const payload = mod.createRequest(...args);
  const w = PlatformaticWriter.create();
  w.appendInt16(mod.api.key)
    .appendInt16(mod.api.version)
    .appendInt32(correlationId)
    .appendString('plt-test', false);
  if (headerTaggedFields) w.appendTaggedFields();
  w.appendFrom(payload as never).prependLength();
  return { frame: new Uint8Array(w.buffer), mod };
}

/** Reads klog's response with the module's parser, as platformatic's connection does (header skipped). */
export function platformaticParse(mod: PlatformaticApi, chunks: Uint8Array[], headerTaggedFields: boolean) {
  const all = Buffer.from(concatBytes(chunks));
  const body = all.subarray(8 + (headerTaggedFields ? 1 : 0));
  return mod.parseResponse(9, mod.api.key, mod.api.version, PlatformaticReader.from(body));
}

export function respond<Res>(
  codec: ApiCodec<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
) {
  return encodeResponse(codec, version, correlationId, body).chunks;
}
