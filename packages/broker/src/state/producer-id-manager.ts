import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from './broker-dir.js';

/** Ids reserved at a time, as Kafka's `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
export const PRODUCER_ID_FILE = 'producer-id-block';

export class ProducerIdFileError extends Error {
  override readonly name = 'ProducerIdFileError';
}

/**
 * Hands out producer ids that are never handed out twice, not even across a crash: ids are taken from a
 * block, and a block is reserved — the start of the next one written and fsynced — before any id in it is
 * given to a client. After a restart the broker starts from the next block; the rest of the old one is
 * skipped. Kafka does the same with blocks of 1000 the controller records in its metadata log
 * (`ProducerIdManager`, `ProducerIdsRecord`); klog records the next block's start in one file of the data
 * directory.
 */
export class ProducerIdManager {
  readonly #path: string;
  readonly #fsyncDir: (dir: string) => void;
  /** The next id to hand out, and the end (exclusive) of the block it is in. */
  #next = 0;
  #end = 0;

  /** `dir`: the broker's own directory of the data directory (broker-dir.ts). */
  constructor(dir: string, fsyncDir: (dir: string) => void) {
    this.#path = join(dir, PRODUCER_ID_FILE);
    this.#fsyncDir = fsyncDir;
    this.#next = this.#end = this.#readNextBlockStart();
  }

  #readNextBlockStart(): number {
    let text: string;
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    const m = /^next-block-start=(\d+)\n$/.exec(text);
    const value = m === null ? Number.NaN : Number(m[1]);
    if (!Number.isSafeInteger(value)) {
      throw new ProducerIdFileError(
        `${this.#path} is not a producer id block file (expected "next-block-start=<id>" and a newline); ` +
          'it records which producer ids were handed out: restore it rather than delete it',
      );
    }
    return value;
  }

  /** The next producer id; reserves (durably) a new block when the current one is used up. */
  allocate(): number {
    if (this.#next >= this.#end) this.#reserveBlock();
    return this.#next++;
  }

  #reserveBlock(): void {
    const start = this.#end;
    const end = start + PRODUCER_ID_BLOCK_SIZE;
    if (!Number.isSafeInteger(end)) throw new ProducerIdFileError('producer ids are used up');
    // Write the new end beside the file, fsync it, rename it over, fsync the directory: the reservation is
    // on disk before the first id of the block leaves the broker.
    writeFileDurably(this.#path, `next-block-start=${end}\n`, this.#fsyncDir);
    this.#next = start;
    this.#end = end;
  }
}
