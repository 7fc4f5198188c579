import {
  ApiVersions,
  CreateTopics,
  concatBytes,
  encodeRequest,
  encodeResponse,
  FrameDecoder,
  Metadata,
  parseRequest,
} from '@klog/protocol';
import { describe, expect, it } from 'vitest';
import { ADVERTISED_APIS } from '../../src/api/advertised.js';
import { defineApi, encodedBodiesOf } from '../../src/api/api-handler.js';
import type { BrokerContext } from '../../src/api/context.js';
import { dispatch, handlersByKey, SERVED_CODECS, servedCodecs } from '../../src/api/dispatch.js';
import { API_HANDLERS } from '../../src/api/index.js';

/** One request frame without its size prefix, as parseRequest takes it. */
function frameOf(version: number): Uint8Array {
  const d = new FrameDecoder();
  d.push(
    encodeRequest(Metadata, version, 1, 'test', {
      topics: [],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    }),
  );
  return d.next()!;
}

const metadataV1To4 = defineApi({
  codec: Metadata,
  versions: { min: 1, max: 4 },
  handle: () => ({
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: [],
    clusterAuthorizedOperations: 0,
    errorCode: 0,
  }),
  summary: () => 'test',
});

describe('the handler registry', () => {
  it('ApiVersions advertises exactly the handlers listed, in their versions (Produce as declared, from 0)', () => {
    expect(ADVERTISED_APIS.map((a) => a.apiKey)).toEqual(
      API_HANDLERS.map((h) => h.codec.apiKey).sort((a, b) => a - b),
    );
    const produce = ADVERTISED_APIS.find((a) => a.apiKey === 0);
    expect(produce).toEqual({ apiKey: 0, minVersion: 0, maxVersion: 8 });
    const fetch = API_HANDLERS.find((h) => h.codec.name === 'Fetch')!;
    expect(ADVERTISED_APIS.find((a) => a.apiKey === 1)).toEqual({
      apiKey: 1,
      minVersion: fetch.versions.min,
      maxVersion: fetch.versions.max,
    });
  });

  it('a handler serving fewer versions than its codec: the others are not served, before the body is read', () => {
    const codecs = servedCodecs([metadataV1To4]);
    expect(parseRequest(frameOf(0), codecs).kind).toBe('unsupportedVersion');
    expect(parseRequest(frameOf(5), codecs)).toMatchObject({
      kind: 'unsupportedVersion',
      codec: { name: 'Metadata', minVersion: 1, maxVersion: 4 },
    });
    const served = parseRequest(frameOf(4), codecs);
    expect(served).toMatchObject({ kind: 'request', apiKey: 3, header: { apiVersion: 4 } });
    // Without a handler, an API klog has codecs for is not served at all.
    const d = new FrameDecoder();
    d.push(encodeRequest(CreateTopics, 5, 2, 'test', { topics: [], timeoutMs: 1000, validateOnly: false }));
    expect(parseRequest(d.next()!, codecs)).toEqual({
      kind: 'unknownApi',
      apiKey: 19,
      apiVersion: 5,
      header: { apiKey: 19, apiVersion: 5, correlationId: 2, clientId: 'test', headerVersion: 1 },
    });
  });

  it('refuses versions its codec cannot read, and two handlers for one key', () => {
    expect(() => defineApi({ ...metadataV1To4, versions: { min: 0, max: 14 } })).toThrow(
      'Metadata: versions 0–14 are not within those it has codecs for (0–13)',
    );
    expect(() => defineApi({ ...metadataV1To4, versions: { min: 4, max: 3 } })).toThrow(RangeError);
    expect(() => handlersByKey([metadataV1To4, metadataV1To4])).toThrow(
      'two handlers for API key 3 (Metadata)',
    );
  });
});

describe('a response the same for every request (ApiVersions)', () => {
  const ctx = { advertisedApis: ADVERTISED_APIS } as unknown as BrokerContext;
  const client = { host: '127.0.0.1', gone: new AbortController().signal };
  const handler = API_HANDLERS.find((h) => h.codec.apiKey === ApiVersions.apiKey)!;

  function ask(version: number, correlationId: number) {
    const d = new FrameDecoder();
    d.push(
      encodeRequest(ApiVersions, version, correlationId, 'test', {
        clientSoftwareName: 'test',
        clientSoftwareVersion: '1.0',
      }),
    );
    const parsed = parseRequest(d.next()!, SERVED_CODECS);
    if (parsed.kind !== 'request') throw new Error(`not served: ${parsed.kind}`);
    return parsed;
  }

  function framed(version: number, correlationId: number): Uint8Array {
    const handled = dispatch(ctx, ask(version, correlationId), client);
    if (handled instanceof Promise || handled.frame === undefined) throw new Error('no frame');
    expect(handled.frame.byteLength).toBe(concatBytes(handled.frame.chunks).length);
    return concatBytes(handled.frame.chunks);
  }

  it('is framed for each request with its own correlation id: the bytes encodeResponse writes', () => {
    const full = { errorCode: 0, apiKeys: [...ADVERTISED_APIS], throttleTimeMs: 0 };
    for (const version of [0, 1, 2, 3, 0, 3]) {
      for (const correlationId of [1, 2_000_000, -5]) {
        const expected = concatBytes(encodeResponse(ApiVersions, version, correlationId, full).chunks);
        expect([...framed(version, correlationId)]).toEqual([...expected]);
      }
    }
  });

  it('is one frozen answer, its body encoded once per version and used again', () => {
    const request = ask(3, 1);
    const answer = handler.handle(ctx, request.header, request.body as never, client) as object;
    const again = handler.handle(ctx, ask(0, 2).header, ask(0, 2).body as never, client);
    expect(again).toBe(answer);
    expect(Object.isFrozen(answer)).toBe(true);
    const { apiKeys } = answer as { apiKeys: object[] };
    expect(Object.isFrozen(apiKeys)).toBe(true);
    expect(apiKeys.every((a) => Object.isFrozen(a))).toBe(true);
    framed(3, 10);
    framed(1, 11);
    const bodies = encodedBodiesOf(answer)!;
    const v3 = bodies.get(3);
    expect(v3).toBeDefined();
    expect(bodies.get(1)).toBeDefined();
    framed(3, 12);
    expect(bodies.get(3)).toBe(v3);
  });

  it('a refused client name is answered on its own, not from the shared answer', () => {
    const d = new FrameDecoder();
    d.push(
      encodeRequest(ApiVersions, 3, 4, 'test', { clientSoftwareName: '@bad', clientSoftwareVersion: '1.0' }),
    );
    const parsed = parseRequest(d.next()!, SERVED_CODECS);
    if (parsed.kind !== 'request') throw new Error(parsed.kind);
    const answer = handler.handle(ctx, parsed.header, parsed.body as never, client) as object;
    expect(answer).toMatchObject({ errorCode: 42, apiKeys: [] });
    expect(encodedBodiesOf(answer)).toBeUndefined();
  });
});
