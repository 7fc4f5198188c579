import type { ApiCodec } from './apis/api-codec.js';
import { type CodecVersions, responseHeaderVersion, writeResponseHeader } from './headers.js';
import { Writer } from './wire/writer.js';

/** Kafka's `socket.request.max.bytes` default: 100 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;

/**
 * A size prefix no request may have: negative, or over the broker's limit. Kafka's NetworkReceive throws
 * InvalidReceiveException for it and the connection is closed; nothing of the frame is buffered.
 */
export class FrameSizeError extends Error {
  override readonly name = 'FrameSizeError';
  constructor(
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(
      size < 0
        ? `frame size ${size} is negative`
        : `frame of ${size} bytes is over socket.request.max.bytes (${maxBytes})`,
    );
  }
}

/**
 * Splits a byte stream into Kafka frames (an INT32 size, then that many bytes), as Kafka's NetworkReceive
 * does. Chunks are kept as they came and a frame is copied at most once, when it spans chunks; a frame
 * inside one chunk is a view into it. At most one frame's worth (bounded by `maxFrameBytes`) and the chunk
 * that completed it are held.
 */
export class FrameDecoder {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already consumed. */
  private headOffset = 0;
  private buffered = 0;

  constructor(readonly maxFrameBytes: number = DEFAULT_MAX_REQUEST_BYTES) {}

  /** Bytes received and not yet returned as a frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  private byteAt(i: number): number {
    let at = this.headOffset + i;
    for (const c of this.chunks) {
      if (at < c.length) return c[at]!;
      at -= c.length;
    }
    throw new RangeError('past the buffered bytes');
  }

  /** The size the next frame declares, once its four bytes are here. Throws FrameSizeError. */
  peekSize(): number | undefined {
    if (this.buffered < 4) return undefined;
    const size = (this.byteAt(0) << 24) | (this.byteAt(1) << 16) | (this.byteAt(2) << 8) | this.byteAt(3) | 0;
    if (size < 0 || size > this.maxFrameBytes) throw new FrameSizeError(size, this.maxFrameBytes);
    return size;
  }

  /** The next whole frame without its size prefix, or undefined until all of it has arrived. */
  next(): Uint8Array | undefined {
    const size = this.peekSize();
    if (size === undefined || this.buffered < 4 + size) return undefined;
    this.consume(4);
    return this.consume(size);
  }

  private consume(n: number): Uint8Array {
    const head = this.chunks[0];
    this.buffered -= n;
    if (head !== undefined && head.length - this.headOffset >= n) {
      const out = head.subarray(this.headOffset, this.headOffset + n);
      this.headOffset += n;
      if (this.headOffset === head.length) {
        this.chunks.shift();
        this.headOffset = 0;
      }
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length - this.headOffset, n - filled);
      out.set(c.subarray(this.headOffset, this.headOffset + take), filled);
      filled += take;
      this.headOffset += take;
      if (this.headOffset === c.length) {
        this.chunks.shift();
        this.headOffset = 0;
      }
    }
    return out;
  }
}

const NO_BYTES = new Uint8Array(0);

/**
 * The same splitting for a server that handles one request at a time, without a buffer allocated per
 * frame: bytes are copied, as they arrive, into one buffer the decoder keeps (grown to the frame being
 * read, and kept up to `retainBytes` for the next), and a frame is a view into it — **valid only until the
 * next `push` or `next`**. A 1 MB produce request then costs one copy and no garbage, instead of a fresh
 * 1 MB buffer for the collector each time. What is held is one frame (at most `maxFrameBytes`) and the
 * bytes of the chunk that completed it.
 */
export class ReusingFrameDecoder {
  private buf: Uint8Array = NO_BYTES;
  /** Unconsumed bytes are buf[start, end). */
  private start = 0;
  private end = 0;

  constructor(
    readonly maxFrameBytes: number = DEFAULT_MAX_REQUEST_BYTES,
    /** How large a buffer is kept once empty; a larger one (after a larger frame) is let go. */
    readonly retainBytes: number = 2 * 1024 * 1024,
    /** Allocates the buffer; a server may pass one that skips zero-filling (Node's Buffer.allocUnsafe). */
    private readonly allocate: (size: number) => Uint8Array = (size) => new Uint8Array(size),
  ) {}

  get bufferedBytes(): number {
    return this.end - this.start;
  }

  /** The size of the buffer kept, held bytes or not (0 once let go). */
  get capacity(): number {
    return this.buf.length;
  }

  /** The size the pending frame declares, once its four bytes are here. Throws FrameSizeError. */
  peekSize(): number | undefined {
    if (this.end - this.start < 4) return undefined;
    const b = this.buf;
    const at = this.start;
    const size = (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]! | 0;
    if (size < 0 || size > this.maxFrameBytes) throw new FrameSizeError(size, this.maxFrameBytes);
    return size;
  }

  /** Copies `chunk` in (the caller may reuse it at once). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.release();
    const held = this.end - this.start;
    if (this.buf.length - this.end < chunk.length) {
      // Room for what is held, the chunk, and — once its size is known — the whole frame being read.
      let needed = held + chunk.length;
      if (held >= 4) {
        const size = this.peekSize()!;
        needed = Math.max(needed, 4 + size);
      }
      if (needed <= this.buf.length) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const grown = this.allocate(
          Math.max(needed, Math.min(2 * this.buf.length, this.maxFrameBytes + 4), 256),
        );
        grown.set(this.buf.subarray(this.start, this.end));
        this.buf = grown;
      }
      this.start = 0;
      this.end = held;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }

  /** The next whole frame without its size prefix (a view valid until the next push or next), or undefined. */
  next(): Uint8Array | undefined {
    const size = this.peekSize();
    if (size === undefined || this.end - this.start < 4 + size) return undefined;
    const frame = this.buf.subarray(this.start + 4, this.start + 4 + size);
    this.start += 4 + size;
    return frame;
  }

  /**
   * The caller is done with the last frame: with nothing else held, the buffer starts over, and one an
   * outsized frame made larger than `retainBytes` is let go. `push` does the same first.
   */
  release(): void {
    if (this.start !== this.end) return;
    this.start = this.end = 0;
    if (this.buf.length > this.retainBytes) this.buf = NO_BYTES;
  }

  /**
   * Lets the buffer go whatever its size, when nothing is held and the last frame is done with (a quiet
   * connection keeps none; the next `push` allocates again). True when it did.
   */
  trim(): boolean {
    if (this.start !== this.end) return false;
    this.start = this.end = 0;
    this.buf = NO_BYTES;
    return true;
  }
}

/** A response frame as chunks ready to be written in order, and its length on the wire. */
export interface ResponseFrame {
  readonly chunks: Uint8Array[];
  readonly byteLength: number;
}

/**
 * The response to one request: size prefix, header (its version chosen by the API and version, see
 * `responseHeaderVersion`), then the body `codec` writes for `apiVersion`.
 */
export function encodeResponse<Res>(
  codec: ApiCodec<unknown, Res>,
  apiVersion: number,
  correlationId: number,
  body: Res,
): ResponseFrame {
  const w = new Writer(512);
  w.int32(0, 'size');
  writeResponseHeader(w, correlationId, responseHeaderVersion(codec as ApiCodec<unknown, never>, apiVersion));
  codec.writeResponse(apiVersion, w, body);
  const byteLength = w.length;
  const chunks = w.finish();
  const first = chunks[0]!;
  new DataView(first.buffer, first.byteOffset, 4).setInt32(0, byteLength - 4);
  return { chunks, byteLength };
}

/**
 * A response body alone, encoded for `apiVersion`: a response that is the same for every request (the
 * broker's ApiVersions list) is encoded once this way and framed for each request by `frameResponseBody`.
 */
export function encodeResponseBody<Res>(
  codec: ApiCodec<unknown, Res>,
  apiVersion: number,
  body: Res,
): Uint8Array {
  const w = new Writer(512);
  codec.writeResponse(apiVersion, w, body);
  return w.toBytes();
}

/**
 * The answer to one request from a body encoded before (`encodeResponseBody`): size prefix and header, then
 * the body's bytes, in one chunk from `allocate` (a server may pass Node's pooled Buffer.allocUnsafe). The
 * same bytes as `encodeResponse` writes for the response itself.
 */
export function frameResponseBody(
  codec: CodecVersions,
  apiVersion: number,
  correlationId: number,
  body: Uint8Array,
  allocate: (size: number) => Uint8Array = (size) => new Uint8Array(size),
): ResponseFrame {
  // Header v0 is the correlation id; v1 adds an empty TAG_BUFFER, one byte.
  const headerBytes = responseHeaderVersion(codec, apiVersion) === 1 ? 5 : 4;
  const byteLength = 4 + headerBytes + body.length;
  const out = allocate(byteLength);
  putInt32(out, 0, byteLength - 4);
  putInt32(out, 4, correlationId);
  if (headerBytes === 5) out[8] = 0;
  out.set(body, 4 + headerBytes);
  return { chunks: [out], byteLength };
}

/** Big-endian, as Kafka writes every integer; without a DataView made for the purpose. */
function putInt32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = value >>> 16;
  out[at + 2] = value >>> 8;
  out[at + 3] = value;
}
