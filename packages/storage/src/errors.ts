/**
 * Errors a user, a client or a damaged file can cause. Each carries a `code` a
 * broker maps to one of Kafka's error codes (the names are those of Kafka's `Errors`
 * enum, plus a few klog-only ones a broker reports as KAFKA_STORAGE_ERROR or
 * UNKNOWN_SERVER_ERROR), and names what was wrong and where, so a message can point
 * at the field, the file and the byte instead of a stack trace.
 */

/** Codes named as Kafka's `Errors` enum names them. */
export type KafkaErrorCode =
  | 'CORRUPT_MESSAGE'
  | 'MESSAGE_TOO_LARGE'
  | 'INVALID_RECORD'
  | 'INVALID_TIMESTAMP'
  | 'INVALID_REQUEST'
  | 'INVALID_CONFIG'
  | 'OFFSET_OUT_OF_RANGE'
  | 'INVALID_TOPIC_EXCEPTION'
  | 'INVALID_PARTITIONS'
  | 'TOPIC_ALREADY_EXISTS'
  | 'UNKNOWN_TOPIC_OR_PARTITION'
  | 'UNSUPPORTED_FOR_MESSAGE_FORMAT'
  | 'INVALID_TXN_STATE'
  | 'OUT_OF_ORDER_SEQUENCE_NUMBER'
  | 'INVALID_PRODUCER_EPOCH'
  | 'KAFKA_STORAGE_ERROR'
  /** A producer window outside the partition (ProducerWindow) could not judge a batch: nothing written. */
  | 'UNKNOWN_SERVER_ERROR';

/** klog-only codes: a broker answers them with KAFKA_STORAGE_ERROR (or UNKNOWN_SERVER_ERROR). */
export type KlogErrorCode =
  /** Another `Log` (in this process or another) holds the directory's lock. */
  | 'LOCKED'
  /** A file in a partition directory that must be a segment, and is not (a symlink, a FIFO, a bad name). */
  | 'NOT_A_SEGMENT'
  /** An offset that would pass 2^53 - 1, the largest a JS number holds exactly. */
  | 'OFFSET_OVERFLOW'
  /** The log, segment or manager was closed. */
  | 'CLOSED'
  /** Compaction's dedupe buffer cannot hold the keys of a single batch. */
  | 'DEDUPE_BUFFER_TOO_SMALL';

export type StorageErrorCode = KafkaErrorCode | KlogErrorCode;

export interface StorageErrorDetails {
  /** The file or directory the failed step was about. */
  readonly path?: string;
  /** What was being done: `open segment`, `fsync`, `save the cut bytes`, … */
  readonly step?: string;
  /** The operating system's error code (`ENOSPC`, `EMFILE`, …) when one caused it. */
  readonly errno?: string;
  readonly cause?: unknown;
  /** The records of a batch refused one by one (Kafka's `RecordError`s), for a Produce answer's RecordErrors. */
  readonly recordErrors?: readonly RecordError[];
}

/** One record of a batch refused, by its index in the batch (Kafka's `ProduceResponse.RecordError`). */
export interface RecordError {
  readonly batchIndex: number;
  readonly message: string;
}

/** A request the storage layer refuses, or a step on disk that failed: its `code` says which. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly path: string | undefined;
  readonly step: string | undefined;
  readonly errno: string | undefined;
  readonly recordErrors: readonly RecordError[];

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    details: StorageErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.path = details.path;
    this.step = details.step;
    this.errno = details.errno;
    this.recordErrors = details.recordErrors ?? [];
  }
}

/**
 * Bytes that are not a valid RecordBatch v2: the field, and the byte offset where it
 * was read. Errors raised while reading a segment also name the file, and then the
 * offset counts from the start of that file. Kafka answers such bytes with CORRUPT_MESSAGE.
 */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  readonly code = 'CORRUPT_MESSAGE' as const;
  constructor(
    /** The header or record field that failed, e.g. `magic`, `crc`, `records[3].keyLength`. */
    readonly field: string,
    /** Byte offset of the failing field, counted from the start of the input given to the decoder. */
    readonly offset: number,
    readonly reason: string,
    /** The segment file the bytes came from, when they came from one. */
    readonly file?: string,
  ) {
    super(`${field} at byte ${offset}${file === undefined ? '' : ` of ${file}`}: ${reason}`);
  }

  /** The same error, naming `file` (whose offsets it must already count from the file's start). */
  inFile(file: string): DecodeError {
    return this.file === file ? this : new DecodeError(this.field, this.offset, this.reason, file);
  }
}

/**
 * What to throw for `error`, caught while reading `file`: a DecodeError naming the file (a
 * decoder knows bytes and offsets, not where they came from); anything else as it is.
 */
export function namingFile(error: unknown, file: string | undefined): unknown {
  return error instanceof DecodeError && file !== undefined ? error.inFile(file) : error;
}

/** `x` as 0x-prefixed 8-digit hex, as CRCs are shown in every message. */
export function hex32(x: number): string {
  return `0x${(x >>> 0).toString(16).padStart(8, '0')}`;
}

/** The CRC-32C mismatch of the batch at `position`, one message wherever it is found. */
export function crcMismatch(stored: number, computed: number, offset: number, file?: string): DecodeError {
  return new DecodeError(
    'crc',
    offset,
    `stored ${hex32(stored)} but the bytes give ${hex32(computed)}`,
    file,
  );
}
