import { gunzipSync } from 'node:zlib';
import { DecodeError } from '../errors.js';
import { fzstdLib, lz4Lib, snappyLib } from './codecs.js';
import { readInt32 } from './varint.js';

/**
 * The records section of a compressed batch, decompressed as Kafka 4.1's
 * `org.apache.kafka.common.compress` classes read it. The codecs themselves are
 * maintained libraries (Node's zlib, `snappy` and `lz4-napi` built by napi-rs, the
 * pure-JS `fzstd`); what is here is Kafka's framing around them, which decides what
 * bytes a Kafka client may send:
 * - gzip (`GzipCompression`): a gzip stream, members concatenated allowed.
 * - snappy (`SnappyCompression`, xerial's `SnappyInputStream`): the Java client
 *   writes xerial's framing (a 16-byte header, then chunks of i32 length + raw
 *   snappy); librdkafka and KafkaJS write one raw snappy block. The reader takes
 *   either, as xerial's does: the framing only when the header is there.
 * - lz4 (`Lz4Compression`, `KafkaLZ4BlockInputStream`): one LZ4 frame with
 *   independent blocks (Kafka refuses linked ones); block checksums are checked
 *   when flagged; bytes after the end mark are ignored, as Kafka ignores them.
 * - zstd (`ZstdCompression`): zstd frames, skippable frames allowed.
 *
 * Every codec is bounded before it allocates: the output may not exceed `maxBytes`
 * (the batch decoder passes MAX_READABLE_BATCH_BYTES, so a small batch cannot expand
 * into gigabytes), checked against what the framing declares wherever it declares it.
 * Errors are `DecodeError`s on field `records`, the offset counted from the start of
 * the compressed bytes.
 */

/** Kafka's `CompressionType`, by the id in bits 0-2 of a batch's attributes. */
export const COMPRESSION_TYPES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CompressionType = (typeof COMPRESSION_TYPES)[number];
/**
 * A topic's `compression.type` (Kafka's `BrokerCompressionType`): `producer` keeps each batch in the codec
 * its producer chose; any other rewrites a batch that is not in it (`uncompressed` is codec `none`).
 */
export const BROKER_COMPRESSION_TYPES = [
  'producer',
  'uncompressed',
  'gzip',
  'snappy',
  'lz4',
  'zstd',
] as const;
export type BrokerCompressionType = (typeof BROKER_COMPRESSION_TYPES)[number];

/** The codec a batch in `source` is stored in under `compression.type` = `target` (Kafka's `targetCompression`). */
export function targetCodec(target: BrokerCompressionType, source: CompressionType): CompressionType {
  if (target === 'producer') return source;
  return target === 'uncompressed' ? 'none' : target;
}
/** Bits 0-2 of the attributes: the compression id. */
export const COMPRESSION_MASK = 0x07;

/** The codec a batch's attributes name, or undefined for an id Kafka does not define (5-7). */
export function compressionOf(attributes: number): CompressionType | undefined {
  return COMPRESSION_TYPES[attributes & COMPRESSION_MASK];
}

/** The codec's name as kafka-dump-log.sh prints it (`compresscodec:`); `codec 5` for an undefined id. */
export function compressionName(attributes: number): string {
  return compressionOf(attributes) ?? `codec ${attributes & COMPRESSION_MASK}`;
}

/** Decompress a batch's records section; throws a DecodeError (field `records`) naming what is wrong. */
export function decompressRecords(
  type: Exclude<CompressionType, 'none'>,
  input: Uint8Array,
  maxBytes: number,
): Uint8Array {
  switch (type) {
    case 'gzip':
      return gunzip(input, maxBytes);
    case 'snappy':
      return snappy(input, maxBytes);
    case 'lz4':
      return lz4(input, maxBytes);
    case 'zstd':
      return zstd(input, maxBytes);
  }
}

function fail(codec: string, at: number, reason: string): never {
  throw new DecodeError('records', at, `${codec}: ${reason}`);
}

/** The output would pass `maxBytes`: `size` is what the framing declares, when it declares it. */
function tooLarge(codec: string, size: number | undefined, maxBytes: number): never {
  const what = size === undefined ? 'more than' : `${size} bytes, over`;
  return fail(codec, 0, `decompresses to ${what} the limit of ${maxBytes} bytes`);
}

/** A Buffer over the same memory (the native codecs take Buffers), not a copy. */
function bufferOf(bytes: Uint8Array, start = 0, end = bytes.length): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
}

function readUint32LE(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16) | (bytes[pos + 3]! << 24)) >>> 0;
}

// --- gzip ------------------------------------------------------------------

/** A gzip member's header (10 bytes), an empty deflate stream (2) and its trailer (8). */
const GZIP_MIN_BYTES = 20;

function gunzip(input: Uint8Array, maxBytes: number): Uint8Array {
  if (input.length < GZIP_MIN_BYTES) fail('gzip', 0, `${input.length} bytes cannot hold a gzip stream`);
  try {
    // Output chunks no larger than the input (zlib's default is 16 KiB): garbage costs no more than its size.
    const chunkSize = Math.max(64, Math.min(16 * 1024, input.length));
    return gunzipSync(input, { maxOutputLength: Math.max(1, maxBytes), chunkSize });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE') return tooLarge('gzip', undefined, maxBytes);
    return fail('gzip', 0, e.message);
  }
}

// --- snappy ----------------------------------------------------------------

/** xerial's `SnappyCodec.MAGIC_HEADER`, then i32 version and i32 compatible version. */
const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER_SIZE = 16;
const XERIAL_MIN_COMPATIBLE_VERSION = 1;

function startsWithXerialMagic(input: Uint8Array, pos: number, length: number): boolean {
  if (pos + length > input.length) return false;
  for (let i = 0; i < length; i++) if (input[pos + i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

function snappy(input: Uint8Array, maxBytes: number): Uint8Array {
  if (input.length < XERIAL_HEADER_SIZE || !startsWithXerialMagic(input, 0, XERIAL_MAGIC.length)) {
    return rawSnappy(input, 0, input.length, maxBytes);
  }
  const version = readInt32(input, 8);
  if (version < XERIAL_MIN_COMPATIBLE_VERSION) {
    fail(
      'snappy',
      8,
      `xerial framing version ${version}, at least ${XERIAL_MIN_COMPATIBLE_VERSION} is required`,
    );
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  // As SnappyInputStream.hasNextChunk: fewer than 4 bytes left end the stream.
  while (pos + 4 <= input.length) {
    // A second header in the middle: two framed streams written one after the other.
    if (startsWithXerialMagic(input, pos, 4)) {
      if (pos + XERIAL_HEADER_SIZE > input.length)
        fail('snappy', pos, 'a concatenated xerial header is cut short');
      pos += XERIAL_HEADER_SIZE;
      continue;
    }
    const size = readInt32(input, pos);
    if (size < 0 || pos + 4 + size > input.length) {
      fail(
        'snappy',
        pos,
        `xerial chunk of ${size} bytes does not fit the ${input.length - pos - 4} bytes left`,
      );
    }
    const chunk = rawSnappy(input, pos + 4, pos + 4 + size, maxBytes - total);
    chunks.push(chunk);
    total += chunk.length;
    pos += 4 + size;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** One raw snappy block; its preamble (a varint) declares the output size, checked before decoding. */
function rawSnappy(input: Uint8Array, start: number, end: number, maxBytes: number): Uint8Array {
  let declared = 0;
  let shift = 0;
  for (let pos = start; ; pos++) {
    if (pos >= end || shift > 28) fail('snappy', start, 'the block has no valid length preamble');
    const byte = input[pos]!;
    declared += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  if (declared > maxBytes) tooLarge('snappy', declared, maxBytes);
  try {
    return snappyLib().uncompressSync(bufferOf(input, start, end), { asBuffer: true }) as Buffer;
  } catch (error) {
    return fail('snappy', start, (error as Error).message);
  }
}

// --- lz4 -------------------------------------------------------------------

const LZ4_MAGIC = 0x184d2204;
const LZ4_UNCOMPRESSED_BLOCK = 0x80000000;
const LZ4_MAX_RATIO = 255;

/**
 * Walk the frame as `KafkaLZ4BlockInputStream` does (its rules, its limits), find
 * where it ends and bound its output; then the library decodes it, checking the
 * descriptor's checksum and the block checksums.
 */
function lz4(input: Uint8Array, maxBytes: number): Uint8Array {
  if (input.length < 7) fail('lz4', 0, `frame of ${input.length} bytes ended prematurely`);
  const magic = readUint32LE(input, 0);
  if (magic !== LZ4_MAGIC) fail('lz4', 0, `magic 0x${magic.toString(16)} is not an LZ4 frame's (0x184d2204)`);
  const flg = input[4]!;
  const bd = input[5]!;
  if (flg >> 6 !== 1) fail('lz4', 4, `frame version ${flg >> 6} is unsupported`);
  if ((flg & 0x03) !== 0) fail('lz4', 4, 'reserved FLG bits must be 0');
  if ((flg & 0x20) === 0) fail('lz4', 4, 'dependent blocks are unsupported (Kafka writes independent ones)');
  if ((bd & 0x8f) !== 0) fail('lz4', 5, 'reserved BD bits must be 0');
  const blockSizeId = (bd >> 4) & 0x07;
  if (blockSizeId < 4) fail('lz4', 5, `block size id ${blockSizeId} is not one of 4-7`);
  const maxBlock = 1 << (2 * blockSizeId + 8);
  const blockChecksum = (flg & 0x10) !== 0;
  const contentSize = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  let pos = 6;
  if (contentSize) {
    if (pos + 8 > input.length) fail('lz4', pos, 'frame ended prematurely');
    const declared = readUint32LE(input, pos) + readUint32LE(input, pos + 4) * 2 ** 32;
    if (declared > maxBytes) tooLarge('lz4', declared, maxBytes);
    pos += 8;
  }
  pos += 1; // the descriptor's checksum byte
  let bound = 0;
  for (;;) {
    if (pos + 4 > input.length) fail('lz4', pos, 'frame ended prematurely (no end mark)');
    const word = readUint32LE(input, pos);
    const size = word & ~LZ4_UNCOMPRESSED_BLOCK;
    pos += 4;
    if (size === 0) {
      if (contentChecksum) pos += 4;
      break;
    }
    if (size > maxBlock)
      fail('lz4', pos - 4, `block of ${size} bytes exceeds the frame's maximum of ${maxBlock}`);
    pos += size + (blockChecksum ? 4 : 0);
    if (pos > input.length) fail('lz4', pos - size, 'frame ended prematurely (inside a block)');
    // LZ4 expands at most 255 times (a match length byte stands for 255 bytes at most).
    bound += (word & LZ4_UNCOMPRESSED_BLOCK) !== 0 ? size : Math.min(maxBlock, size * LZ4_MAX_RATIO + 64);
    if (bound > maxBytes) tooLarge('lz4', undefined, maxBytes);
  }
  if (pos > input.length) fail('lz4', input.length, 'frame ended prematurely (in its content checksum)');
  try {
    return lz4Lib().decompressFrameSync(bufferOf(input, 0, pos));
  } catch (error) {
    return fail('lz4', 0, (error as Error).message);
  }
}

// --- zstd ------------------------------------------------------------------

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_SKIPPABLE_MASK = 0xfffffff0;
const ZSTD_SKIPPABLE_MAGIC = 0x184d2a50;
const ZSTD_MAX_BLOCK = 128 * 1024;
/** zstd's default decoder window limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27), which zstd-jni and librdkafka keep. */
const ZSTD_MAX_WINDOW = 2 ** 27;

/** Walk the frames (headers and block headers only) to bound the output and the window; then decode. */
function zstd(input: Uint8Array, maxBytes: number): Uint8Array {
  let pos = 0;
  let bound = 0;
  const need = (n: number, what: string) => {
    if (pos + n > input.length) fail('zstd', pos, `${what} is cut short`);
  };
  while (pos < input.length) {
    need(4, 'a frame magic');
    const magic = readUint32LE(input, pos);
    if ((magic & ZSTD_SKIPPABLE_MASK) >>> 0 === ZSTD_SKIPPABLE_MAGIC) {
      need(8, 'a skippable frame');
      pos += 8 + readUint32LE(input, pos + 4);
      if (pos > input.length) fail('zstd', input.length, 'a skippable frame is cut short');
      continue;
    }
    if (magic !== ZSTD_MAGIC)
      fail('zstd', pos, `magic 0x${magic.toString(16)} is not a zstd frame's (0xfd2fb528)`);
    need(6, 'a frame header');
    const fhd = input[pos + 4]!;
    if ((fhd & 0x08) !== 0) fail('zstd', pos + 4, 'a reserved frame header bit is set');
    const singleSegment = (fhd & 0x20) !== 0;
    const dictionarySize = [0, 1, 2, 4][fhd & 0x03]!;
    const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fhd >> 6]!;
    let p = pos + 5;
    let window = 0;
    if (!singleSegment) {
      const wd = input[p++]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 0x07);
    }
    if (dictionarySize > 0) fail('zstd', p, 'the frame needs a dictionary, which Kafka never uses');
    if (p + fcsSize > input.length) fail('zstd', p, 'a frame header is cut short');
    let contentSize: number | undefined;
    if (fcsSize === 1) contentSize = input[p]!;
    else if (fcsSize === 2) contentSize = (input[p]! | (input[p + 1]! << 8)) + 256;
    else if (fcsSize === 4) contentSize = readUint32LE(input, p);
    else if (fcsSize === 8) contentSize = readUint32LE(input, p) + readUint32LE(input, p + 4) * 2 ** 32;
    p += fcsSize;
    if (singleSegment) window = contentSize!;
    if (window > ZSTD_MAX_WINDOW)
      fail('zstd', pos + 5, `window of ${window} bytes exceeds the limit of ${ZSTD_MAX_WINDOW}`);
    if (contentSize !== undefined && bound + contentSize > maxBytes)
      tooLarge('zstd', bound + contentSize, maxBytes);
    const blockMax = Math.min(window, ZSTD_MAX_BLOCK);
    pos = p;
    for (;;) {
      need(3, 'a block header');
      const header = input[pos]! | (input[pos + 1]! << 8) | (input[pos + 2]! << 16);
      const last = (header & 1) === 1;
      const type = (header >> 1) & 0x03;
      const size = header >>> 3;
      pos += 3;
      if (type === 3) fail('zstd', pos - 3, 'a block of the reserved type 3');
      if (type === 2 && size > ZSTD_MAX_BLOCK) {
        fail('zstd', pos - 3, `compressed block of ${size} bytes exceeds ${ZSTD_MAX_BLOCK}`);
      }
      need(type === 1 ? 1 : size, 'a block');
      pos += type === 1 ? 1 : size;
      bound += type === 2 ? blockMax : size;
      if (bound > maxBytes) tooLarge('zstd', undefined, maxBytes);
      if (last) break;
    }
    if ((fhd & 0x04) !== 0) {
      need(4, 'a content checksum');
      pos += 4;
    }
  }
  try {
    return fzstdLib().decompress(input);
  } catch (error) {
    return fail('zstd', 0, (error as Error).message);
  }
}
