import { createRequire } from 'node:module';
import { kafkajsLz4, type Lz4FrameOptions } from './fixtures/kafkajs-lz4/codec.mjs';

export type { Lz4FrameOptions };

/**
 * Compressed batches as an outside implementation writes them: KafkaJS 2.2.4's
 * RecordBatch encoder (deep require) with the codec plugins an application installs.
 * - gzip: built into KafkaJS (Node's zlib).
 * - snappy: kafkajs-snappy (snappyjs), one raw snappy block, as librdkafka writes it too.
 * - lz4: kafkajs-lz4 (node-lz4, liblz4), its output recorded in fixtures/kafkajs-lz4 and played back
 *   (its install compiles liblz4; see codec.mjs there); its options are node-lz4's frame options, so
 *   Kafka's Java framing (64 KiB blocks, no content checksum) can be asked for.
 * - zstd: neither KafkaJS zstd plugin installs on Node 20 here (@kafkajs/zstd's cppzst fails to
 *   compile; @sensejs/kafkajs-zstd-support's zstd-napi downloads a binary at install), so the
 *   codec is the same three lines those plugins are, over @mongodb-js/zstd (libzstd, napi-rs).
 */
const require = createRequire(import.meta.url);
const { RecordBatch: encodeKafkaJsBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const { Codecs, Types } = require('kafkajs/src/protocol/message/compression');
const KafkaJsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const Long = require('kafkajs/src/utils/long');
const SnappyCodec = require('kafkajs-snappy');
const mongoZstd: {
  compress(buf: Buffer, level?: number): Promise<Buffer>;
  decompress(buf: Buffer): Promise<Buffer>;
} = require('@mongodb-js/zstd');

export type Codec = 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const CODEC_IDS: Record<Codec, number> = { gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

/** Kafka's Java client's LZ4 framing (KafkaLZ4BlockOutputStream): 64 KiB independent blocks, no checksums. */
export const KAFKA_JAVA_LZ4: Lz4FrameOptions = { blockMaxSize: 64 * 1024, streamChecksum: false };

function install(codec: Codec, lz4: Lz4FrameOptions): void {
  if (codec === 'snappy') Codecs[Types.Snappy] = SnappyCodec;
  if (codec === 'lz4') Codecs[Types.LZ4] = kafkajsLz4(lz4);
  if (codec === 'zstd') {
    Codecs[Types.ZSTD] = () => ({
      compress: async (encoder: { buffer: Buffer }) => mongoZstd.compress(encoder.buffer),
      decompress: async (buffer: Buffer) => mongoZstd.decompress(buffer),
    });
  }
}

export interface Entry {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Record<string, string>;
}

export interface KafkaJsBatchOptions {
  readonly baseOffset?: number;
  readonly timestamp?: number;
  readonly producerId?: number;
  readonly baseSequence?: number;
  readonly lz4?: Lz4FrameOptions;
}

/** A batch of `entries` encoded by KafkaJS with `codec` (or none), record i at timestamp + i. */
export async function kafkaJsBatch(
  codec: Codec | 'none',
  entries: readonly Entry[],
  options: KafkaJsBatchOptions = {},
): Promise<Buffer> {
  if (codec !== 'none') install(codec, options.lz4 ?? {});
  const timestamp = options.timestamp ?? 1_700_000_000_000;
  const encoder = await encodeKafkaJsBatch({
    compression: codec === 'none' ? Types.None : CODEC_IDS[codec],
    firstOffset: Long.fromValue(options.baseOffset ?? 0),
    firstTimestamp: timestamp,
    maxTimestamp: timestamp + entries.length - 1,
    lastOffsetDelta: entries.length - 1,
    producerId: Long.fromValue(options.producerId ?? -1),
    producerEpoch: options.producerId === undefined ? -1 : 0,
    firstSequence: options.baseSequence ?? (options.producerId === undefined ? -1 : 0),
    records: entries.map((e, i) =>
      KafkaJsRecord({
        offsetDelta: i,
        timestampDelta: i,
        key: e.key,
        value: e.value,
        headers: e.headers ?? {},
      }),
    ),
  });
  return encoder.buffer as Buffer;
}

/** Records worth compressing: keys, a null key and a null value, headers, and one value past 64 KiB. */
export function sampleEntries(n = 12): Entry[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i === 3 ? null : Buffer.from(`key-${i}`),
    value:
      i === 5
        ? null
        : Buffer.from(
            i === 7
              ? Array.from({ length: 9000 }, (_, j) => `line ${j} of ${i};`).join('')
              : `{"order":${i},"item":"${'สินค้า'.repeat(i + 1)}"}`,
          ),
    headers: i % 4 === 0 ? { trace: `t-${i}` } : {},
  }));
}
