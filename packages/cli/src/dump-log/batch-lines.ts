import { incrementSequence } from '@klog/core';
import {
  CONTROL_FLAG,
  compressionName,
  NO_SEQUENCE,
  type Record,
  type StoredBatchHeader,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG,
} from '@klog/storage/internals';
import { offsetsRecordText } from './offsets-decoder.js';

/**
 * Lines in the format of Kafka's `kafka-dump-log.sh --print-data-log`
 * (`DumpLogSegments.printBatchLevel` and its record loop, Kafka 4.1), field for
 * field, so a dump of a klog segment can be read, or diffed, against Kafka's.
 * One change: control characters in keys and values are escaped, so a record stays
 * on one line and the data cannot drive the terminal. The header is the one stored,
 * 64-bit fields as bigint, so a damaged batch prints what its bytes hold, exactly,
 * as Kafka's longs print.
 */

const HAS_DELETE_HORIZON = 0x40;

type Sequence = Parameters<typeof incrementSequence>[0];

/** Kafka's `DefaultRecordBatch.incrementSequence`, but for any stored value: -1 stays "no sequence". */
function sequenceAfter(base: number, delta: number): number {
  return base === NO_SEQUENCE ? NO_SEQUENCE : incrementSequence(base as Sequence, delta);
}

function timestampType(header: StoredBatchHeader): string {
  return header.attributes & TIMESTAMP_TYPE_MASK ? 'LogAppendTime' : 'CreateTime';
}

/** The batch line; `position` is its byte position in the file, `crcValid` whether its CRC-32C holds. */
export function batchLine(
  header: StoredBatchHeader,
  position: number,
  size: number,
  crcValid: boolean,
): string {
  const a = header.attributes;
  // Java prints an OptionalLong as `OptionalLong.empty` or `OptionalLong[n]`; kept as Kafka shows it.
  const deleteHorizon =
    a & HAS_DELETE_HORIZON ? `OptionalLong[${header.baseTimestamp}]` : 'OptionalLong.empty';
  return (
    `baseOffset: ${header.baseOffset} lastOffset: ${header.baseOffset + BigInt(header.lastOffsetDelta)} ` +
    `count: ${header.recordsCount} baseSequence: ${header.baseSequence} ` +
    `lastSequence: ${sequenceAfter(header.baseSequence, header.lastOffsetDelta)} ` +
    `producerId: ${header.producerId} producerEpoch: ${header.producerEpoch} ` +
    `partitionLeaderEpoch: ${header.partitionLeaderEpoch} isTransactional: ${(a & TRANSACTIONAL_FLAG) !== 0} ` +
    `isControl: ${(a & CONTROL_FLAG) !== 0} deleteHorizonMs: ${deleteHorizon} ` +
    `position: ${position} ${timestampType(header)}: ${header.maxTimestamp} size: ${size} ` +
    `magic: ${header.magic} compresscodec: ${compressionName(a)} ` +
    `crc: ${header.crc} isvalid: ${crcValid}`
  );
}

/** Bytes as Kafka's StringDecoder shows them (UTF-8, invalid sequences replaced), control characters escaped. */
export function shownText(bytes: Uint8Array): string {
  return escaped(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

function escaped(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** Kafka's `ControlRecordType` and `EndTransactionMarker`, for the control records of a transaction's end. */
function controlText(record: Record): string {
  const key = record.key;
  if (key === null || key.length < 4) return ' controlType: UNKNOWN(-1)';
  const type = Buffer.from(key.buffer, key.byteOffset, key.byteLength).readInt16BE(2);
  const value = record.value;
  if ((type === 0 || type === 1) && value !== null && value.length >= 6) {
    const epoch = Buffer.from(value.buffer, value.byteOffset, value.byteLength).readInt32BE(2);
    return ` endTxnMarker: ${type === 0 ? 'ABORT' : 'COMMIT'} coordinatorEpoch: ${epoch}`;
  }
  return ` controlType: UNKNOWN(${type})`;
}

/**
 * A record line: `| offset: … CreateTime: … keySize: … valueSize: … sequence: … headerKeys: [..]`,
 * then, with `data` (Kafka's --print-data-log), ` key: … payload: …`.
 */
export function recordLine(
  header: StoredBatchHeader,
  record: Record,
  data: boolean,
  offsetsDecoder = false,
): string {
  const timestamp =
    header.attributes & TIMESTAMP_TYPE_MASK
      ? header.maxTimestamp
      : header.baseTimestamp + BigInt(record.timestampDelta);
  let line =
    `| offset: ${header.baseOffset + BigInt(record.offsetDelta)} ${timestampType(header)}: ${timestamp} ` +
    `keySize: ${record.key?.length ?? -1} valueSize: ${record.value?.length ?? -1} ` +
    `sequence: ${sequenceAfter(header.baseSequence, record.offsetDelta)} ` +
    `headerKeys: [${record.headers.map((h) => escaped(h.key)).join(',')}]`;
  if (header.attributes & CONTROL_FLAG) return line + controlText(record);
  if (!data) return line;
  const decoded = offsetsDecoder ? offsetsRecordText(record.key, record.value) : undefined;
  if (decoded !== undefined) return line + decoded;
  if (record.key !== null) line += ` key: ${shownText(record.key)}`;
  if (record.value !== null) line += ` payload: ${shownText(record.value)}`;
  return line;
}
