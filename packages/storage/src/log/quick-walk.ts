import { isUtf8 } from 'node:buffer';

/**
 * The record walk of `LogValidator` once more, for the batches clients send: the varints read in line,
 * no cursor object, no field names, no error built. It accepts only what the careful walk
 * (`carefulWalk` in log-validator.ts) accepts and finds the same largest timestamp; on anything else — a
 * varint over four bytes, a length that does not fit, an offset delta out of order, bytes left over — it
 * answers NaN, and the careful walk runs from the start to refuse the batch with its exact message or to
 * accept what this one would not decide. (Kafka's `DefaultRecord.readFrom` is one reader for both.)
 *
 * Why the repetition: V8 keeps this loop's state in registers only while the one- and two-byte cases are
 * written out in it; as a helper function it ran at 17–21 ns a 100-byte record, written out 10 ns, the
 * careful walk 30 ns (`node` 20, one core) — a tenth of a 100-byte Produce's CPU. Bounds checked before
 * each load (0xff past the end), a three-byte case for offset deltas, no header count read when the record ends in a 0, and
 * the timestamps checked once from the deltas' range took it to 8 ns, of which reading the lengths alone
 * is 5 (issue 44).
 */

/** A `longVarint` that is not one: over four bytes, or running past its end. */
const UNDECIDED = -1;

/**
 * The varint at `pos` of up to four bytes, none at or past `end`, as `raw << 3 | bytes`: its zigzagged
 * value and its length in one number, nothing allocated; UNDECIDED when it is not one.
 */
function longVarint(buf: Uint8Array, pos: number, end: number): number {
  let raw = 0;
  for (let k = 0; k < 4; k++) {
    if (pos + k >= end) return UNDECIDED;
    const byte = buf[pos + k]!;
    raw |= (byte & 0x7f) << (7 * k);
    if (byte < 0x80) return (raw << 3) | (k + 1);
  }
  return UNDECIDED;
}

/**
 * The largest record timestamp of the `count` records in `buf[start, end)`, whose batch's base timestamp
 * is `baseTimestamp`; NaN when the careful walk must decide.
 */
export function quickWalk(
  buf: Uint8Array,
  start: number,
  end: number,
  baseTimestamp: number,
  count: number,
): number {
  let pos = start;
  // The timestamp deltas' range (four bytes at most: within ±2^27), turned into timestamps once at the end.
  let minDelta = 0x40000000;
  let maxDelta = -0x40000000;
  let byte = 0;
  let raw = 0;
  let read = 0;
  for (let i = 0; i < count; i++) {
    // Each field: one byte, else two, else longVarint; `raw` is then its zigzagged value.
    // The record's length, counted from after itself.
    byte = pos < end ? buf[pos]! : 0xff;
    if (byte < 0x80) {
      raw = byte;
      pos += 1;
    } else if (pos + 1 < end && buf[pos + 1]! < 0x80) {
      raw = (byte & 0x7f) | (buf[pos + 1]! << 7);
      pos += 2;
    } else {
      read = longVarint(buf, pos, end);
      if (read === UNDECIDED) return Number.NaN;
      raw = read >>> 3;
      pos += read & 7;
    }
    const length = (raw >>> 1) ^ -(raw & 1);
    if (length < 1 || length > end - pos) return Number.NaN;
    const recordEnd = pos + length;
    pos++; // attributes: unused in v2
    // The timestamp delta (a varlong; four bytes reach 2^27 ms, longer ones go to the careful walk).
    byte = pos < recordEnd ? buf[pos]! : 0xff;
    if (byte < 0x80) {
      raw = byte;
      pos += 1;
    } else if (pos + 1 < recordEnd && buf[pos + 1]! < 0x80) {
      raw = (byte & 0x7f) | (buf[pos + 1]! << 7);
      pos += 2;
    } else {
      read = longVarint(buf, pos, recordEnd);
      if (read === UNDECIDED) return Number.NaN;
      raw = read >>> 3;
      pos += read & 7;
    }
    const delta = (raw >>> 1) ^ -(raw & 1);
    if (delta > maxDelta) maxDelta = delta;
    if (delta < minDelta) minDelta = delta;
    // The offset delta: the record's index (three bytes from 8,192, which a 1 MB Produce of 100 B reaches).
    byte = pos < recordEnd ? buf[pos]! : 0xff;
    if (byte < 0x80) {
      raw = byte;
      pos += 1;
    } else if (pos + 1 < recordEnd && buf[pos + 1]! < 0x80) {
      raw = (byte & 0x7f) | (buf[pos + 1]! << 7);
      pos += 2;
    } else if (pos + 2 < recordEnd && buf[pos + 1]! >= 0x80 && buf[pos + 2]! < 0x80) {
      raw = (byte & 0x7f) | ((buf[pos + 1]! & 0x7f) << 7) | (buf[pos + 2]! << 14);
      pos += 3;
    } else {
      read = longVarint(buf, pos, recordEnd);
      if (read === UNDECIDED) return Number.NaN;
      raw = read >>> 3;
      pos += read & 7;
    }
    if (((raw >>> 1) ^ -(raw & 1)) !== i) return Number.NaN;
    // The key, then the value: a length (-1 for null), then that many bytes.
    for (let field = 0; field < 2; field++) {
      byte = pos < recordEnd ? buf[pos]! : 0xff;
      if (byte < 0x80) {
        raw = byte;
        pos += 1;
      } else if (pos + 1 < recordEnd && buf[pos + 1]! < 0x80) {
        raw = (byte & 0x7f) | (buf[pos + 1]! << 7);
        pos += 2;
      } else {
        read = longVarint(buf, pos, recordEnd);
        if (read === UNDECIDED) return Number.NaN;
        raw = read >>> 3;
        pos += read & 7;
      }
      const size = (raw >>> 1) ^ -(raw & 1);
      if (size === -1) continue;
      if (size < 0 || size > recordEnd - pos) return Number.NaN;
      pos += size;
    }
    // No headers, the record's last byte (what kcat and most clients send): nothing more to read.
    if (pos + 1 === recordEnd && buf[pos] === 0) {
      pos = recordEnd;
      continue;
    }
    // The header count, then each header's key (present, UTF-8) and value (may be null).
    read = longVarint(buf, pos, recordEnd);
    if (read === UNDECIDED) return Number.NaN;
    pos += read & 7;
    raw = read >>> 3;
    const headers = (raw >>> 1) ^ -(raw & 1);
    if (headers < 0 || headers * 2 > recordEnd - pos) return Number.NaN;
    for (let h = 0; h < headers * 2; h++) {
      read = longVarint(buf, pos, recordEnd);
      if (read === UNDECIDED) return Number.NaN;
      pos += read & 7;
      raw = read >>> 3;
      const size = (raw >>> 1) ^ -(raw & 1);
      const key = h % 2 === 0;
      if (size === -1 && !key) continue;
      if (size < 0 || size > recordEnd - pos) return Number.NaN;
      if (key && !isUtf8(buf.subarray(pos, pos + size))) return Number.NaN;
      pos += size;
    }
    if (pos !== recordEnd) return Number.NaN;
  }
  if (pos !== end) return Number.NaN;
  if (count <= 0) return -1;
  // Every record's timestamp is a safe integer when the smallest and the largest are (the safe integers are
  // one interval, and the sum rounds monotonically); the careful walk's largest starts from -1.
  const low = baseTimestamp + minDelta;
  const high = baseTimestamp + maxDelta;
  if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high)) return Number.NaN;
  return Math.max(high, -1);
}
