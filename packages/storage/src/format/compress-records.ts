import { gzipSync } from 'node:zlib';
import type { Encoder as ZstdEncoder } from '@toondepauw/node-zstd';
import { lz4Lib, nodeZstdLib, snappyLib } from './codecs.js';
import type { CompressionType } from './compression.js';

/**
 * The other half of compression.ts: a batch's records section compressed as Kafka 4.1's broker writes it
 * when it recompresses (`Compression.wrapForOutput` of each codec, at Kafka's default levels), so that
 * every client reads what klog writes as it reads what a Kafka broker writes:
 * - gzip (`GzipCompression`): one gzip member, zlib's default level (Java's `Deflater.DEFAULT_COMPRESSION`).
 * - snappy (`SnappyCompression`, xerial's `SnappyOutputStream`): the xerial framing the Java side writes, a
 *   16-byte header and then chunks of 32 KiB of input, each an i32 length and one raw snappy block.
 * - lz4 (`Lz4Compression`, `KafkaLZ4BlockOutputStream`): one LZ4 frame of independent 64 KiB blocks, no
 *   content size (the library has no levels: Kafka's default is 9, which only changes the ratio).
 * - zstd (`ZstdCompression`): one zstd frame at level 3, Kafka's default.
 */
export function compressRecords(type: Exclude<CompressionType, 'none'>, plain: Uint8Array): Buffer {
  switch (type) {
    case 'gzip':
      return gzipSync(plain);
    case 'snappy':
      return xerialSnappy(plain);
    case 'lz4':
      return lz4Lib().compressFrameSync(bufferOf(plain));
    case 'zstd':
      zstd ??= new (nodeZstdLib().Encoder)(ZSTD_DEFAULT_LEVEL);
      return zstd.encodeSync(bufferOf(plain));
  }
}

/** Kafka's `ZstdCompression.DEFAULT_LEVEL`. */
const ZSTD_DEFAULT_LEVEL = 3;
let zstd: ZstdEncoder | undefined;

/** xerial's `SnappyCodec` header: the magic, then version 1 and compatible version 1 (both i32). */
const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
/** `SnappyOutputStream.DEFAULT_BLOCK_SIZE`: each chunk compresses this much input. */
const XERIAL_BLOCK_SIZE = 32 * 1024;

function xerialSnappy(plain: Uint8Array): Buffer {
  const parts: Buffer[] = [XERIAL_HEADER];
  for (let at = 0; at < plain.length; at += XERIAL_BLOCK_SIZE) {
    const block = snappyLib().compressSync(
      plain.subarray(at, Math.min(plain.length, at + XERIAL_BLOCK_SIZE)),
    );
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length, 0);
    parts.push(length, block);
  }
  return Buffer.concat(parts);
}

/** A Buffer over the same memory (the native codecs take Buffers), not a copy. */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
