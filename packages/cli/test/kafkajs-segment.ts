import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { kafkajsLz4 } from '../../storage/test/fixtures/kafkajs-lz4/codec.mjs';

/**
 * A segment file written from batches KafkaJS 2.2.4 encodes (deep require) with the
 * codec plugins an application installs: gzip built in, kafkajs-snappy, kafkajs-lz4 (its output
 * recorded and played back: see storage's test/fixtures/kafkajs-lz4/codec.mjs);
 * for zstd, neither KafkaJS plugin installs on Node 20 here, so the same few lines
 * they are, over @mongodb-js/zstd. Nothing of klog's encoder is involved.
 */
const require = createRequire(import.meta.url);
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const { Codecs, Types } = require('kafkajs/src/protocol/message/compression');
const KafkaJsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const Long = require('kafkajs/src/utils/long');
const zstd: { compress(b: Buffer): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> } =
  require('@mongodb-js/zstd');
Codecs[Types.Snappy] = require('kafkajs-snappy');
Codecs[Types.LZ4] = kafkajsLz4();
Codecs[Types.ZSTD] = () => ({
  compress: async (encoder: { buffer: Buffer }) => zstd.compress(encoder.buffer),
  decompress: async (buffer: Buffer) => zstd.decompress(buffer),
});

export const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Codec = (typeof CODECS)[number];

export interface KafkaJsRecordInput {
  readonly key: string | null;
  readonly value: string;
}

/** The records of the batch for `codec` in `writeKafkaJsSegment`'s file. */
export function recordsFor(codec: Codec): KafkaJsRecordInput[] {
  return Array.from({ length: 4 }, (_, i) => ({
    key: i === 2 ? null : `${codec}-${i}`,
    value: `{"codec":"${codec}","n":${i},"pad":"${'ข้อมูล'.repeat(30)}"}`,
  }));
}

/** One batch per codec, back to back at offsets 0, 4, 8, …, producer 77, into `path`. */
export async function writeKafkaJsSegment(path: string, codecs: readonly Codec[] = CODECS): Promise<void> {
  const batches: Buffer[] = [];
  for (const [b, codec] of codecs.entries()) {
    const records = recordsFor(codec);
    const encoder = await RecordBatch({
      compression:
        Types[
          codec === 'none'
            ? 'None'
            : codec === 'gzip'
              ? 'GZIP'
              : codec === 'snappy'
                ? 'Snappy'
                : codec === 'lz4'
                  ? 'LZ4'
                  : 'ZSTD'
        ],
      firstOffset: Long.fromValue(b * 4),
      firstTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_000 + records.length - 1,
      lastOffsetDelta: records.length - 1,
      producerId: Long.fromValue(77),
      producerEpoch: 0,
      firstSequence: b * 4,
      records: records.map((r, i) =>
        KafkaJsRecord({
          offsetDelta: i,
          timestampDelta: i,
          key: r.key === null ? null : Buffer.from(r.key),
          value: Buffer.from(r.value),
          headers: {},
        }),
      ),
    });
    batches.push(encoder.buffer);
  }
  writeFileSync(path, Buffer.concat(batches));
}
