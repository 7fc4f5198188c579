import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ApiVersions,
  concatBytes,
  encodeResponse,
  encodeResponseBody,
  FrameDecoder,
  FrameSizeError,
  frameResponseBody,
  Metadata,
  Produce,
  ReusingFrameDecoder,
} from '../src/index.js';

function frame(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setInt32(0, body.length);
  out.set(body, 4);
  return out;
}

describe('FrameDecoder: INT32 size, then the frame', () => {
  it('gives back the same frames however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 40 }),
        (bodies, cuts) => {
          const stream = concatBytes(bodies.map(frame));
          const d = new FrameDecoder(1000);
          const out: Uint8Array[] = [];
          let at = 0;
          let i = 0;
          while (at < stream.length) {
            const n = cuts[i++ % cuts.length]!;
            d.push(stream.subarray(at, at + n));
            at += n;
            for (let f = d.next(); f !== undefined; f = d.next()) out.push(f);
          }
          expect(out.map((b) => [...b])).toEqual(bodies.map((b) => [...b]));
          expect(d.bufferedBytes).toBe(0);
        },
      ),
    );
  });

  it('a frame inside one chunk is a view into it; one across chunks is copied once', () => {
    const chunk = concatBytes([frame(new Uint8Array([1, 2, 3])), frame(new Uint8Array([4, 5]))]);
    const d = new FrameDecoder();
    d.push(chunk.subarray(0, 10));
    const first = d.next()!;
    expect(first.buffer).toBe(chunk.buffer);
    expect(d.next()).toBeUndefined();
    d.push(chunk.subarray(10));
    const second = d.next()!;
    expect([...second]).toEqual([4, 5]);
  });

  it('a size over socket.request.max.bytes or below zero is refused as soon as its four bytes are in', () => {
    const d = new FrameDecoder(100);
    d.push(new Uint8Array([0, 0, 0, 101]));
    expect(() => d.next()).toThrow(new FrameSizeError(101, 100));
    expect(() => d.next()).toThrow('frame of 101 bytes is over socket.request.max.bytes (100)');
    const n = new FrameDecoder(100);
    n.push(new Uint8Array([0xff, 0xff, 0xff, 0xf0]));
    expect(() => n.next()).toThrow('frame size -16 is negative');
    const ok = new FrameDecoder(100);
    ok.push(new Uint8Array([0, 0, 0, 100]));
    expect(ok.next()).toBeUndefined();
  });

  it('an empty frame is a frame', () => {
    const d = new FrameDecoder();
    d.push(new Uint8Array([0, 0, 0, 0]));
    expect(d.next()?.length).toBe(0);
  });
});

describe('encodeResponse', () => {
  it('size prefix, then header v0 for ApiVersions even in its flexible v3', () => {
    const { chunks, byteLength } = encodeResponse(ApiVersions, 3, 0x01020304, {
      errorCode: 0,
      apiKeys: [],
      throttleTimeMs: 0,
    });
    const all = concatBytes(chunks);
    expect(all.length).toBe(byteLength);
    expect(new DataView(all.buffer).getInt32(0)).toBe(byteLength - 4);
    // correlation id, then error_code (no header tag buffer), compact empty array (1), throttle, body tags (0)
    expect([...all.subarray(4)]).toEqual([1, 2, 3, 4, 0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('header v1 (a tag buffer) for a flexible version, v0 for the others', () => {
    const empty = {
      throttleTimeMs: 0,
      brokers: [],
      clusterId: null,
      controllerId: -1,
      topics: [],
      clusterAuthorizedOperations: -2147483648,
      errorCode: 0,
    };
    const v9 = concatBytes(encodeResponse(Metadata, 9, 5, empty).chunks);
    const v8 = concatBytes(encodeResponse(Metadata, 8, 5, empty).chunks);
    expect([...v9.subarray(4, 9)]).toEqual([0, 0, 0, 5, 0]);
    // size, correlation id, header tags | throttle, brokers, cluster id, controller, topics, cluster ops, body tags
    expect(v9.length).toBe(4 + 4 + 1 + (4 + 1 + 1 + 4 + 1 + 4 + 1));
    expect(v8.length).toBe(4 + 4 + (4 + 4 + 2 + 4 + 4 + 4));
  });

  it('a field the version cannot carry fails the encoding, naming it', () => {
    const response = {
      responses: [
        {
          name: 't',
          partitionResponses: [
            {
              index: 0,
              errorCode: 0,
              baseOffset: 0,
              logAppendTimeMs: -1,
              logStartOffset: 0,
              recordErrors: [],
              errorMessage: null,
            },
          ],
        },
      ],
      throttleTimeMs: 0,
    };
    expect(() => encodeResponse(Produce, 8, 1, { ...response, throttleTimeMs: 2 ** 31 })).toThrow(
      'throttleTimeMs: 2147483648 is not an INT32',
    );
    const ops = {
      throttleTimeMs: 0,
      brokers: [],
      clusterId: null,
      controllerId: 0,
      topics: [],
      clusterAuthorizedOperations: 7,
      errorCode: 0,
    };
    expect(() => encodeResponse(Metadata, 7, 1, ops)).toThrow(
      'clusterAuthorizedOperations: version 7 has no such field, and its value is not the default',
    );
    expect(() => encodeResponse(Metadata, 8, 1, ops)).not.toThrow();
  });
});

describe('encodeResponseBody and frameResponseBody: a body encoded once, framed per request', () => {
  const apiVersions = {
    errorCode: 0,
    apiKeys: [
      { apiKey: 0, minVersion: 0, maxVersion: 11 },
      { apiKey: 18, minVersion: 0, maxVersion: 3 },
    ],
    throttleTimeMs: 0,
  };
  const metadata = {
    throttleTimeMs: 0,
    brokers: [{ nodeId: 1, host: 'localhost', port: 9092, rack: null }],
    clusterId: 'c',
    controllerId: 1,
    topics: [],
    clusterAuthorizedOperations: -2147483648,
    errorCode: 0,
  };

  it('writes the bytes encodeResponse writes, in every version, header v0 and v1 alike', () => {
    for (let version = 0; version <= 3; version++) {
      const body = encodeResponseBody(ApiVersions, version, apiVersions);
      for (const correlationId of [0, 7, -1, 0x7fffffff]) {
        const framed = frameResponseBody(ApiVersions, version, correlationId, body);
        const expected = encodeResponse(ApiVersions, version, correlationId, apiVersions);
        expect(framed.chunks).toHaveLength(1);
        expect(framed.byteLength).toBe(expected.byteLength);
        expect([...framed.chunks[0]!]).toEqual([...concatBytes(expected.chunks)]);
      }
    }
    for (const version of [8, 9, 12]) {
      const body = encodeResponseBody(Metadata, version, metadata);
      const framed = frameResponseBody(Metadata, version, 42, body);
      expect([...concatBytes(framed.chunks)]).toEqual([
        ...concatBytes(encodeResponse(Metadata, version, 42, metadata).chunks),
      ]);
    }
  });

  it('leaves the body as it was, so the next request frames the same bytes', () => {
    const body = encodeResponseBody(ApiVersions, 3, apiVersions);
    const before = [...body];
    frameResponseBody(ApiVersions, 3, 1, body);
    frameResponseBody(ApiVersions, 3, 2, body);
    expect([...body]).toEqual(before);
  });

  it('frames into the memory the caller allocates, exactly as long as the frame', () => {
    const body = encodeResponseBody(ApiVersions, 0, apiVersions);
    const asked: number[] = [];
    const framed = frameResponseBody(ApiVersions, 0, 9, body, (n) => {
      asked.push(n);
      return new Uint8Array(new ArrayBuffer(n + 16), 16, n);
    });
    expect(asked).toEqual([framed.byteLength]);
    expect([...framed.chunks[0]!]).toEqual([
      ...concatBytes(encodeResponse(ApiVersions, 0, 9, apiVersions).chunks),
    ]);
  });
});

describe('ReusingFrameDecoder: one kept buffer, frames valid until the next call', () => {
  it('gives back the same frames however the stream is cut, each read before the next call', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 40 }),
        (bodies, cuts) => {
          const stream = concatBytes(bodies.map(frame));
          const d = new ReusingFrameDecoder(1000, 512);
          const out: number[][] = [];
          let at = 0;
          let i = 0;
          while (at < stream.length) {
            const n = cuts[i++ % cuts.length]!;
            // The caller may reuse its chunk at once: the decoder copies.
            const chunk = Uint8Array.from(stream.subarray(at, at + n));
            d.push(chunk);
            chunk.fill(0xee);
            at += n;
            for (let f = d.next(); f !== undefined; f = d.next()) out.push([...f]);
          }
          expect(out).toEqual(bodies.map((b) => [...b]));
          expect(d.bufferedBytes).toBe(0);
        },
      ),
    );
  });

  it('grows to a large frame once, and lets the buffer go when told the frame is done', () => {
    const allocations: number[] = [];
    const d = new ReusingFrameDecoder(1 << 20, 1024, (n) => {
      allocations.push(n);
      return new Uint8Array(n);
    });
    const big = frame(new Uint8Array(100_000).fill(7));
    for (let at = 0; at < big.length; at += 1000) d.push(big.subarray(at, at + 1000));
    expect(d.next()?.length).toBe(100_000);
    // Room for the whole frame was made as soon as its size was known: not a doubling per chunk.
    expect(allocations.filter((n) => n >= 100_004)).toHaveLength(1);
    expect(allocations.length).toBeLessThanOrEqual(2);
    d.release();
    d.push(frame(new Uint8Array([1, 2])));
    expect([...d.next()!]).toEqual([1, 2]);
    expect(allocations.at(-1)).toBeLessThan(1024);
  });

  it('trim lets a kept buffer go only when nothing is held, and the next push allocates again', () => {
    const d = new ReusingFrameDecoder(1 << 20, 1 << 20);
    const body = new Uint8Array(50_000).fill(3);
    d.push(frame(body));
    expect(d.next()?.length).toBe(50_000);
    // Kept after release (under retainBytes): a busy connection reuses it.
    d.release();
    expect(d.capacity).toBeGreaterThanOrEqual(50_004);
    // Half a frame held: trim must not drop it.
    const half = frame(new Uint8Array([9, 8, 7, 6]));
    d.push(half.subarray(0, 5));
    expect(d.trim()).toBe(false);
    expect(d.capacity).toBeGreaterThan(0);
    d.push(half.subarray(5));
    expect([...d.next()!]).toEqual([9, 8, 7, 6]);
    expect(d.trim()).toBe(true);
    expect(d.capacity).toBe(0);
    d.push(frame(new Uint8Array([1])));
    expect([...d.next()!]).toEqual([1]);
    expect(d.capacity).toBeLessThan(50_000);
  });

  it('refuses a size over the limit as the plain decoder does', () => {
    const d = new ReusingFrameDecoder(100);
    d.push(new Uint8Array([0, 0, 0, 101]));
    expect(() => d.next()).toThrow(new FrameSizeError(101, 100));
  });
});
