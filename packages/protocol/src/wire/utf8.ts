/**
 * UTF-8 through the platform's TextEncoder / TextDecoder (in Node and in every browser), declared here by
 * the little this package uses so that it needs neither the DOM's nor Node's type library.
 */
interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
interface Utf8Encoder {
  encode(input: string): Uint8Array;
  encodeInto(input: string, dest: Uint8Array): { read: number; written: number };
}
const platform = globalThis as unknown as {
  TextDecoder: new () => Utf8Decoder;
  TextEncoder: new () => Utf8Encoder;
};
// Malformed UTF-8 becomes U+FFFD, as Java's `new String(bytes, UTF_8)` does in Kafka's readers.
const decoder = new platform.TextDecoder();
const encoder = new platform.TextEncoder();

/** Short ASCII strings (topic names, client ids) are the common case: built without a decoder call. */
const ASCII_FAST_PATH_BYTES = 64;

export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= ASCII_FAST_PATH_BYTES) {
    let s = '';
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return decoder.decode(bytes.subarray(start, end));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return decoder.decode(bytes.subarray(start, end));
}

/** The number of bytes `s` takes in UTF-8. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Writes `s` as UTF-8 at `offset` (the caller made room for `utf8Length(s)` bytes). */
export function encodeUtf8Into(s: string, dest: Uint8Array, offset: number): number {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    dest[offset + i] = c;
  }
  if (ascii) return s.length;
  return encoder.encodeInto(s, dest.subarray(offset)).written;
}
