import { createRequire } from 'node:module';

/**
 * KafkaJS 2.2.4's own RecordBatch v2 codec, reached by deep require (it is not a
 * public export of KafkaJS): the peer klog's codec is measured against. The same
 * modules as packages/storage/test/format/kafkajs-interop.test.ts.
 */
const require = createRequire(import.meta.url);

/** KafkaJS's `Encoder`: `.buffer` is the bytes written. */
export interface KafkaJsEncoder {
  readonly buffer: Buffer;
}

/** KafkaJS's `Long` (a vendored long.js), used for i64 fields. */
export interface KafkaJsLong {
  toString(): string;
}

export interface KafkaJsRecordInput {
  readonly offsetDelta: number;
  readonly timestampDelta: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: { readonly [key: string]: Buffer | string };
}

export interface KafkaJsBatchInput {
  readonly firstOffset: KafkaJsLong;
  readonly firstTimestamp: number;
  readonly maxTimestamp: number;
  readonly partitionLeaderEpoch: number;
  readonly lastOffsetDelta: number;
  readonly producerId: KafkaJsLong;
  readonly producerEpoch: number;
  readonly firstSequence: number;
  readonly records: readonly KafkaJsEncoder[];
}

export interface KafkaJsDecodedBatch {
  readonly firstOffset: string;
  readonly records: readonly { readonly offset: string; readonly value: Buffer | null }[];
}

const Decoder: new (buffer: Buffer) => unknown = require('kafkajs/src/protocol/decoder');
const decodeBatch: (
  decoder: unknown,
) => Promise<KafkaJsDecodedBatch> = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (input: KafkaJsBatchInput) => Promise<KafkaJsEncoder>;
};
const Long = require('kafkajs/src/utils/long') as { fromValue(value: number): KafkaJsLong };

/** KafkaJS's `Record`: encodes one record into its own Encoder. */
export const kafkaJsRecord: (
  input: KafkaJsRecordInput,
) => KafkaJsEncoder = require('kafkajs/src/protocol/recordBatch/record/v0');

/** KafkaJS's encoder is async: it returns a Promise (it may compress), so a caller awaits each batch. */
export const kafkaJsRecordBatch = RecordBatch;

/** KafkaJS's decoder, over a fresh `Decoder` of the bytes. It does not check the CRC. */
export function kafkaJsDecode(bytes: Buffer): Promise<KafkaJsDecodedBatch> {
  return decodeBatch(new Decoder(bytes));
}

/** KafkaJS's CRC-32C, in JavaScript (a table per byte). */
export const kafkaJsCrc32C: (bytes: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C');

export const kafkaJsLong = (value: number): KafkaJsLong => Long.fromValue(value);
