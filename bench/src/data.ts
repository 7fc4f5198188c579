import type { Record, RecordInput } from '@klog/storage';

/** The timestamp every benchmark batch carries: fixed, so two runs write the same bytes. */
export const BENCH_NOW_MS = 1_700_000_000_000;
/** Keys are `k-000000` … : 8 bytes, as an id-like key would be. */
export const KEY_BYTES = 8;

/** Deterministic filler (xorshift32): incompressible-looking bytes, the same on every run. */
export function fillerBytes(length: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = seed >>> 0 || 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export function keyOf(i: number): Buffer {
  return Buffer.from(`k-${String(i % 1_000_000).padStart(6, '0')}`);
}

/** `count` records with an 8-byte key and a `valueBytes` value, no headers: what an append takes. */
export function recordInputs(count: number, valueBytes: number, seed = 1): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: keyOf(i),
    value: fillerBytes(valueBytes, seed * 7919 + i),
  }));
}

/** The same records as the codec stores them: offsetDelta i, timestampDelta i. */
export function codecRecords(inputs: readonly RecordInput[]): Record[] {
  return inputs.map((r, i) => ({
    attributes: 0,
    timestampDelta: i,
    offsetDelta: i,
    key: r.key,
    value: r.value,
    headers: [],
  }));
}

/** Human label for a byte count: 100 B, 1 KiB, 10 MB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000 && bytes % 1_000_000 === 0) return `${bytes / 1_000_000} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}
