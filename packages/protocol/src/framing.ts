import { responseHeaderVersion, writeResponseHeader } from './headers.js';
import type { ApiCodec } from './apis/api-codec.js';
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
    const size = ((this.byteAt(0) << 24) | (this.byteAt(1) << 16) | (this.byteAt(2) << 8) | this.byteAt(3)) | 0;
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
