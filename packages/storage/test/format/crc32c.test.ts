import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/internals.js';

describe('crc32c', () => {
  it('matches the CRC-32C known answer', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    // RFC 3720 B.4: 32 bytes of zeros.
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
  });
});
