import { describe, expect, it } from 'vitest';
import {
  ApiVersions,
  concatBytes,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  errorName,
  errorResponseFor,
  Fetch,
  type FetchRequest,
  hasErrorResponse,
  Metadata,
  Produce,
  type ProduceRequest,
  ProtocolDecodeError,
  responseHeaderVersion,
} from '../src/index.js';

/** Kafka's AbstractRequest.getErrorResponse, per API: what klog answers a request it reads but does not serve. */

const UNSUPPORTED = ErrorCode.UNSUPPORTED_VERSION;

/** The request's frame as parseRequest takes it (no size prefix). */
function frameOf(bytes: Uint8Array): Uint8Array {
  return bytes.subarray(4);
}

function produce(acks: number): ProduceRequest {
  return {
    transactionalId: null,
    acks,
    timeoutMs: 1000,
    topicData: [
      {
        name: 'orders',
        partitionData: [
          { index: 0, records: new Uint8Array([1, 2, 3]) },
          { index: 2, records: null },
        ],
      },
      { name: 'ไทย', partitionData: [{ index: 1, records: null }] },
    ],
  };
}

/** The topic's id: what Fetch 13+ names it by. */
const ORDERS_ID = '0b6e8a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b';

const fetchRequest: FetchRequest = {
  clusterId: null,
  replicaId: -1,
  maxWaitMs: 500,
  minBytes: 1,
  maxBytes: 0x7fffffff,
  isolationLevel: 0,
  sessionId: 0,
  sessionEpoch: -1,
  replicaState: { replicaId: -1, replicaEpoch: -1 },
  topics: [
    {
      topic: 'orders',
      topicId: ORDERS_ID,
      partitions: [
        {
          partition: 3,
          currentLeaderEpoch: -1,
          fetchOffset: 7,
          lastFetchedEpoch: -1,
          logStartOffset: -1,
          partitionMaxBytes: 1024,
          replicaDirectoryId: '00000000-0000-0000-0000-000000000000',
        },
      ],
    },
  ],
  forgottenTopicsData: [],
  rackId: '',
};

function versions(codec: { minVersion: number; maxVersion: number }): number[] {
  return Array.from({ length: codec.maxVersion - codec.minVersion + 1 }, (_, i) => codec.minVersion + i);
}

describe('errorResponseFor: the error response to a request, in its version', () => {
  it('Produce, every version klog has codecs for (0–8): each partition asked for carries the code', () => {
    expect(Produce.minVersion).toBe(0);
    for (const version of versions(Produce)) {
      const request = produce(1);
      if (version < 3) request.topicData[0]!.partitionData[0]!.records = new Uint8Array([9]);
      const answer = errorResponseFor(
        frameOf(encodeRequest(Produce, version, 41, 'sarama', request)),
        UNSUPPORTED,
      );
      if (answer.kind !== 'response') throw new Error(`v${version}: ${answer.kind}`);
      expect(answer.request.header).toMatchObject({
        apiKey: 0,
        apiVersion: version,
        correlationId: 41,
        clientId: 'sarama',
      });
      const bytes = concatBytes(answer.frame.chunks);
      expect(bytes.length).toBe(answer.frame.byteLength);
      expect(new DataView(bytes.buffer, bytes.byteOffset).getInt32(0)).toBe(bytes.length - 4);
      const { correlationId, body } = decodeResponse(Produce, version, bytes.subarray(4));
      expect(correlationId).toBe(41);
      expect(
        body.responses.map((t) => [
          t.name,
          t.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset]),
        ]),
      ).toEqual([
        [
          'orders',
          [
            [0, UNSUPPORTED, -1],
            [2, UNSUPPORTED, -1],
          ],
        ],
        ['ไทย', [[1, UNSUPPORTED, -1]]],
      ]);
    }
  });

  it('Produce with acks = 0: no response, as Kafka’s ProduceRequest.getErrorResponse returns none', () => {
    const answer = errorResponseFor(frameOf(encodeRequest(Produce, 2, 1, 'c', produce(0))), UNSUPPORTED);
    expect(answer).toEqual({ kind: 'noResponse', reason: 'the request expects no response' });
  });

  it('Fetch, every version klog has codecs for (0–18): each partition with the code and no records', () => {
    expect(Fetch.minVersion).toBe(0);
    for (const version of versions(Fetch)) {
      const answer = errorResponseFor(
        frameOf(encodeRequest(Fetch, version, 8, 'c', fetchRequest)),
        UNSUPPORTED,
      );
      if (answer.kind !== 'response') throw new Error(`v${version}: ${answer.kind}`);
      const { body } = decodeResponse(Fetch, version, concatBytes(answer.frame.chunks).subarray(4));
      expect(body.errorCode).toBe(version >= 7 ? UNSUPPORTED : 0); // the top-level code is v7's
      expect(body.responses).toHaveLength(1);
      // From v13 the topic is named by its id only.
      if (version >= 13) expect(body.responses[0]!.topicId).toBe(ORDERS_ID);
      else expect(body.responses[0]!.topic).toBe('orders');
      expect(body.responses[0]!.partitions).toMatchObject([
        { partitionIndex: 3, errorCode: UNSUPPORTED, highWatermark: -1 },
      ]);
      // Empty, not null: Sarama 1.22 fails to decode a null records field (see sarama-clients.test.ts).
      expect(body.responses[0]!.partitions[0]!.records).toEqual(new Uint8Array(0));
      // The response header is the version's: v1 (with tagged fields) from the first flexible version.
      expect(responseHeaderVersion(Fetch, version)).toBe(version >= 12 ? 1 : 0);
    }
  });

  it('what cannot be answered says why: a version past the codecs, an API klog has no definition of', () => {
    const fetch19 = encodeRequest(
      { ...Fetch, maxVersion: 19, writeRequest: () => {} },
      19,
      1,
      'c',
      fetchRequest,
    );
    expect(errorResponseFor(frameOf(fetch19), UNSUPPORTED)).toEqual({
      kind: 'unanswerable',
      reason: 'klog has no codec for v19 (its codecs: v0–v18)',
    });
    const addPartitionsToTxn = new Uint8Array([0, 24, 0, 3, 0, 0, 0, 5, 0, 1, 0x63]);
    expect(errorResponseFor(addPartitionsToTxn, UNSUPPORTED)).toEqual({
      kind: 'unanswerable',
      reason: 'klog has no definition of API key 24',
    });
    // An API every version of which klog serves has no error response: none is ever needed.
    expect(hasErrorResponse(Metadata.apiKey)).toBe(false);
    const metadata = encodeRequest(Metadata, 0, 1, 'c', {
      topics: [],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(errorResponseFor(frameOf(metadata), UNSUPPORTED)).toEqual({
      kind: 'unanswerable',
      reason: 'klog has no error response for Metadata',
    });
    expect(hasErrorResponse(Produce.apiKey) && hasErrorResponse(Fetch.apiKey)).toBe(true);
    expect(hasErrorResponse(ApiVersions.apiKey)).toBe(false);
  });

  it('a body that does not parse in its version throws, as parseRequest does', () => {
    const truncated = frameOf(encodeRequest(Produce, 1, 1, 'c', produce(1)));
    expect(() => errorResponseFor(truncated.subarray(0, truncated.length - 2), UNSUPPORTED)).toThrow(
      ProtocolDecodeError,
    );
  });
});

describe('error codes of the consumer group protocol (KIP-848) and topic ids', () => {
  it("carry Kafka 4.1.0's codes (its Errors enum), and name them back", () => {
    const codes = {
      INCONSISTENT_TOPIC_ID: 103,
      FENCED_MEMBER_EPOCH: 110,
      UNRELEASED_INSTANCE_ID: 111,
      UNSUPPORTED_ASSIGNOR: 112,
      STALE_MEMBER_EPOCH: 113,
      INVALID_REGULAR_EXPRESSION: 128,
    } as const;
    for (const [name, code] of Object.entries(codes)) {
      expect(ErrorCode[name as keyof typeof codes]).toBe(code);
      expect(errorName(code)).toBe(name);
    }
  });
});
