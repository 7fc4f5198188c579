/**
 * Errors a user or a damaged file can cause. Each names what was wrong and where,
 * so a message can point at the field and byte instead of a stack trace.
 */

/**
 * Bytes that are not a valid RecordBatch v2: the field, and the byte offset where it
 * was read. Errors raised while reading a segment also name the file, and then the
 * offset counts from the start of that file.
 */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
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

/** A request the storage layer refuses: a bad topic name, an empty batch, a closed partition. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
}
