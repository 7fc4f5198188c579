import { crc32c } from '@node-rs/crc32';
import {
  BATCH_FIELD,
  LOG_OVERHEAD,
  MAGIC_V2,
  MAX_READABLE_BATCH_BYTES,
  RECORD_BATCH_OVERHEAD,
} from '../format/record-batch.js';
import { readInt32, readUint32 } from '../format/varint.js';
import type { LogSegment } from './log-segment.js';

/**
 * Finding whole batches again after damage: where, past a header that is garbage,
 * does a whole batch with a good CRC-32C start? `klog dump-log` and recovery's report
 * ask it. Trying each candidate position in turn and checksumming its batch costs up
 * to (file size × batch size): a crafted file of a few MiB full of plausible headers
 * that each claim megabytes took minutes. This search is linear in the file size:
 *
 * 1. one pass finds every candidate (a length that frames a batch inside the file, magic 2);
 * 2. one pass computes the running CRC-32C of the file and notes its value at each
 *    candidate's start and end of checksummed bytes;
 * 3. each candidate's own CRC follows from those two values with one multiplication
 *    in GF(2)[x] mod the CRC polynomial (zlib's `crc32_combine` idea, run backwards):
 *    crc(bytes[a..b)) = state(b) XOR state(a)·x^(8(b−a)).
 *
 * No byte is checksummed twice, whatever the headers claim.
 */

/** A whole batch with a good CRC found by the search: its position and its size in bytes. */
export interface FoundBatch {
  readonly position: number;
  readonly size: number;
}

// Field positions of the header (see record-batch.ts for the layout).
const BATCH_LENGTH = BATCH_FIELD.batchLength;
const MAGIC = BATCH_FIELD.magic;
const CRC = BATCH_FIELD.crc;
/** Where the CRC-32C's bytes start: attributes. */
const ATTRIBUTES = BATCH_FIELD.attributes;
const TWO_32 = 4_294_967_296;

/**
 * The size of the batch whose header is at `pos`, or 0 if `decodeBatchFraming` would
 * refuse it (a length below the minimum, magic not 2) or the batch would not fit in
 * `available` bytes: the same checks, without building an error, since a search tries
 * millions of positions and most fail. Other fields are not judged here: a batch whose
 * CRC holds was written as it is, and `LogSegment.inspect` reports what is wrong with it.
 */
export function plausibleBatchSize(bytes: Uint8Array, pos: number, available: number): number {
  if (bytes.length - pos < RECORD_BATCH_OVERHEAD || available < RECORD_BATCH_OVERHEAD) return 0;
  if (bytes[pos + MAGIC] !== MAGIC_V2) return 0;
  const batchLength = readInt32(bytes, pos + BATCH_LENGTH);
  if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) return 0;
  const size = LOG_OVERHEAD + batchLength;
  return size > available || size > MAX_READABLE_BATCH_BYTES ? 0 : size;
}

// ---- GF(2)[x] mod the CRC-32C polynomial, in the reflected bit order CRC-32C uses (as zlib's crc32.c) ----

/** CRC-32C's polynomial (Castagnoli), reflected. */
const POLY = 0x82f63b78;
/** x^0 = 1 in the reflected order. */
const ONE = 0x80000000;

/** a·b mod P (zlib's `multmodp`). */
function multmodp(a: number, b: number): number {
  let m = ONE;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(8n) mod P for n below 2^16 (LOW) and for multiples of 2^16 (HIGH, filled as needed): one multiply for any n < 2^31. */
let LOW: Uint32Array | undefined;
const HIGH: number[] = [ONE];
let X8_65536 = 0;

/** x^(8n) mod P, for 0 <= n < 2^31. The tables are made on first use (a few milliseconds). */
function x8n(n: number): number {
  if (LOW === undefined) {
    const low = new Uint32Array(1 << 16);
    low[0] = ONE;
    for (let i = 1; i < low.length; i++) low[i] = multmodp(low[i - 1]!, ONE >>> 8);
    X8_65536 = multmodp(low[low.length - 1]!, ONE >>> 8);
    LOW = low;
  }
  const high = n >>> 16;
  while (HIGH.length <= high) HIGH.push(multmodp(HIGH[HIGH.length - 1]!, X8_65536));
  return high === 0 ? LOW[n]! : multmodp(HIGH[high]!, LOW[n & 0xffff]!);
}

/** CRC-32C one byte at a time, for the short steps between candidates where a native call costs more. */
const TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  TABLE[n] = c >>> 0;
}

/** The running CRC-32C `state` (as `crc32c(bytes, state)` takes and returns it) continued over bytes[from..to). */
function continueCrc(bytes: Uint8Array, from: number, to: number, state: number): number {
  if (to - from > 256) return crc32c(bytes.subarray(from, to) as Buffer, state) >>> 0;
  let c = ~state;
  for (let i = from; i < to; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * The CRC-32C of `bytes[a..b)` from the running CRC at `a` and at `b`: appending n
 * bytes to a message multiplies the old state by x^(8n) and XORs in the CRC of the
 * new bytes alone.
 */
export function crcOfRange(stateAtA: number, stateAtB: number, length: number): number {
  return (stateAtB ^ multmodp(x8n(length), stateAtA)) >>> 0;
}

// ---- the search ----

const CHUNK = 1024 * 1024;

/** A growable column of numbers. */
class Column {
  values = new Float64Array(64);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

/**
 * Every position at or after `from` where a whole batch with a good CRC-32C starts
 * (its header as `decodeBatchHeader` accepts it, the batch inside the file), in
 * order. Batches found may overlap: each is a candidate on its own. Linear in the
 * bytes from `from` to the end of the file, whatever they hold.
 */
export function findValidBatches(segment: LogSegment, from = 0): FoundBatch[] {
  const fileSize = segment.size;
  const positions = new Column();
  const ends = new Column();
  const stored = new Column();
  // Pass 1: candidates. Chunks overlap by a header, so that one cut by a chunk's end is still seen.
  for (let start = from; start + RECORD_BATCH_OVERHEAD <= fileSize; start += CHUNK) {
    const bytes = segment.read(start, CHUNK + RECORD_BATCH_OVERHEAD - 1);
    const last = Math.min(CHUNK, bytes.length - RECORD_BATCH_OVERHEAD + 1);
    // indexOf is memchr: in honest data a magic byte is rare, and most positions cost nothing.
    for (
      let i = bytes.indexOf(MAGIC_V2, MAGIC);
      i !== -1 && i - MAGIC < last;
      i = bytes.indexOf(MAGIC_V2, i + 1)
    ) {
      const at = i - MAGIC;
      const size = plausibleBatchSize(bytes, at, fileSize - (start + at));
      if (size === 0) continue;
      positions.push(start + at);
      ends.push(start + at + size);
      stored.push(readUint32(bytes, at + CRC));
    }
  }
  const n = positions.length;
  if (n === 0) return [];
  // Pass 2: the running CRC at each candidate's CRC start (position + 21, in order) and end.
  // Ends come in any order: sorted by counting them into chunk-sized buckets, then within each.
  const bucketOf = (end: number) => Math.floor((end - from) / CHUNK);
  const buckets = bucketOf(fileSize) + 1;
  const firstOf = new Uint32Array(buckets + 1);
  for (let c = 0; c < n; c++)
    firstOf[bucketOf(ends.values[c]!) + 1] = firstOf[bucketOf(ends.values[c]!) + 1]! + 1;
  for (let b = 0; b < buckets; b++) firstOf[b + 1] = firstOf[b + 1]! + firstOf[b]!;
  const byEnd = new Float64Array(n);
  const fill = firstOf.slice();
  for (let c = 0; c < n; c++) {
    const end = ends.values[c]!;
    const b = bucketOf(end);
    // Key: the end within its bucket (< 2^20) above the candidate's index (< 2^32): sorts by end, keeps the index.
    byEnd[fill[b]!] = (end - from - b * CHUNK) * TWO_32 + c;
    fill[b] = fill[b]! + 1;
  }
  const stateAtStart = new Uint32Array(n);
  const valid = new Uint8Array(n);
  let state = 0;
  let at = from;
  let nextStart = 0;
  for (let b = 0; b < buckets; b++) {
    const chunkStart = from + b * CHUNK;
    const bytes = segment.read(chunkStart, CHUNK);
    const chunkEnd = chunkStart + bytes.length;
    const advance = (to: number) => {
      state = continueCrc(bytes, at - chunkStart, to - chunkStart, state);
      at = to;
    };
    const ending = byEnd.subarray(firstOf[b]!, firstOf[b + 1]!).sort();
    let e = 0;
    for (;;) {
      const startPos = nextStart < n ? positions.values[nextStart]! + ATTRIBUTES : Number.POSITIVE_INFINITY;
      const key = e < ending.length ? ending[e]! : -1;
      const endPos = key === -1 ? Number.POSITIVE_INFINITY : chunkStart + Math.floor(key / TWO_32);
      if (startPos < chunkEnd && startPos <= endPos) {
        advance(startPos);
        stateAtStart[nextStart++] = state;
      } else if (key !== -1) {
        // Ends of this bucket lie inside this chunk, and each candidate's start came first.
        advance(endPos);
        const c = key % TWO_32;
        const from21 = positions.values[c]! + ATTRIBUTES;
        if (crcOfRange(stateAtStart[c]!, state, endPos - from21) === stored.values[c]) valid[c] = 1;
        e++;
      } else {
        break;
      }
    }
    advance(chunkEnd);
  }
  const found: FoundBatch[] = [];
  for (let c = 0; c < n; c++) {
    if (valid[c])
      found.push({ position: positions.values[c]!, size: ends.values[c]! - positions.values[c]! });
  }
  return found;
}

/**
 * The first position at or after `from` where a whole batch with a good CRC starts,
 * if any: how `klog dump-log` and recovery find their footing again after a header
 * that is garbage. Linear in the bytes searched (see `findValidBatches`).
 */
export function findBatchStart(segment: LogSegment, from: number): number | undefined {
  return findValidBatches(segment, from)[0]?.position;
}
