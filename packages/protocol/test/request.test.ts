import { describe, expect, it } from 'vitest';
import {
  type ApiCodec,
  CreateTopics,
  concatBytes,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  FrameDecoder,
  Metadata,
  Produce,
  ProtocolDecodeError,
  parseRequest,
} from '../src/index.js';
import { Writer } from '../src/wire/writer.js';

function request(
  apiKey: number,
  version: number,
  correlationId: number,
  headerTags: boolean,
  body: (w: Writer) => void,
) {
  const w = new Writer();
  w.int16(apiKey, 'k').int16(version, 'v').int32(correlationId, 'c').nullableString('cli', 'id');
  if (headerTags) w.uvarint(0, 't');
  body(w);
  return w.toBytes();
}

describe('parseRequest: what a frame is, as Kafka decides it', () => {
  it('a served API and version: header and body', () => {
    const parsed = parseRequest(request(3, 1, 42, false, (w) => w.int32(-1, 'topics')));
    expect(parsed.kind).toBe('request');
    if (parsed.kind !== 'request') return;
    expect(parsed.header).toEqual({
      apiKey: 3,
      apiVersion: 1,
      correlationId: 42,
      clientId: 'cli',
      headerVersion: 1,
    });
    expect(parsed.body).toMatchObject({ topics: null, allowAutoTopicCreation: true });
  });

  it('ApiVersions newer than served: only the header is read (the body may be anything)', () => {
    const parsed = parseRequest(request(18, 9, 7, true, (w) => w.raw(new Uint8Array([1, 2, 3]))));
    expect(parsed).toEqual({
      kind: 'apiVersionsTooNew',
      header: { apiKey: 18, apiVersion: 9, correlationId: 7, clientId: 'cli', headerVersion: 2 },
    });
  });

  it('another API in a version not served, or an API not served at all', () => {
    // The broker's map: the codec of each API served, narrowed to the versions served (Produce from v3).
    const served = new Map([[0, { ...Produce, minVersion: 3 } as ApiCodec<unknown, never>]]);
    const produceV2 = parseRequest(
      request(0, 2, 1, false, () => {}),
      served,
    );
    expect(produceV2.kind).toBe('unsupportedVersion');
    const produceV9 = parseRequest(request(0, 9, 1, true, () => {}));
    expect(produceV9).toMatchObject({ kind: 'unsupportedVersion', header: { headerVersion: 2 } });
    expect(parseRequest(request(24, 4, 1, true, () => {}))).toEqual({
      kind: 'unknownApi',
      apiKey: 24,
      apiVersion: 4,
      header: { apiKey: 24, apiVersion: 4, correlationId: 1, clientId: 'cli', headerVersion: 1 },
    });
    expect(parseRequest(request(-3, 0, 9, false, () => {}))).toEqual({
      kind: 'unknownApi',
      apiKey: -3,
      apiVersion: 0,
      header: { apiKey: -3, apiVersion: 0, correlationId: 9, clientId: 'cli', headerVersion: 1 },
    });
  });

  it('bytes that are not a request', () => {
    expect(() => parseRequest(new Uint8Array([0, 3]))).toThrow(ProtocolDecodeError);
    expect(() => parseRequest(request(3, 1, 1, false, (w) => w.int32(3, 'topics')))).toThrow(
      'topics at byte 13: 3 elements of at least 2 bytes cannot fit in the 0 bytes left',
    );
  });
});

describe('the client side, for klog’s own tools', () => {
  it('encodeRequest frames a request parseRequest reads back; decodeResponse reads what encodeResponse wrote', () => {
    const frame = encodeRequest(CreateTopics, 5, 31, 'klog-topics', {
      topics: [{ name: 'orders', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const d = new FrameDecoder();
    d.push(frame);
    const parsed = parseRequest(d.next()!);
    expect(parsed).toMatchObject({
      kind: 'request',
      header: { apiKey: 19, apiVersion: 5, correlationId: 31, clientId: 'klog-topics', headerVersion: 2 },
    });
    const response = encodeResponse(Metadata, 9, 8, {
      throttleTimeMs: 0,
      brokers: [],
      clusterId: 'c',
      controllerId: 0,
      topics: [],
      clusterAuthorizedOperations: -2147483648,
      errorCode: 0,
    });
    const all = concatBytes(response.chunks);
    expect(decodeResponse(Metadata, 9, all.subarray(4))).toMatchObject({
      correlationId: 8,
      body: { clusterId: 'c', controllerId: 0 },
    });
  });
});
