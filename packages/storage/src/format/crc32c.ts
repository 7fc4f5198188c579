import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C (Castagnoli), the checksum RecordBatch v2 stores in its `crc` field:
 * Kafka's `Crc32C`. Delegated to @node-rs/crc32, which uses the CPU's SSE 4.2 /
 * ARMv8 CRC instructions; `crc32c("123456789")` is 0xE3069283.
 */
export function crc32c(bytes: Uint8Array): number {
  return nativeCrc32c(bytes) >>> 0;
}
