import { describe, expect, it } from 'vitest';
import { OffsetMap } from '../../src/internals.js';

const key = (s: string) => Buffer.from(s);

describe("OffsetMap (Kafka's SkimpyOffsetMap)", () => {
  it('a map of bytesFor(n) bytes holds n keys before it counts as full', () => {
    for (const n of [1, 9, 100, 1000]) {
      const map = new OffsetMap(OffsetMap.bytesFor(n));
      expect(map.capacity).toBeGreaterThanOrEqual(n);
      for (let i = 0; i < n; i++) map.put(key(`k${i}`), i);
      expect(map.size).toBe(n);
    }
  });

  it('a key put again takes no new slot, even in a full map; a new key in a full map is refused', () => {
    // 48 bytes: two slots, one key at Kafka's 0.9 load factor.
    const map = new OffsetMap(48);
    expect(map.capacity).toBe(1);
    map.put(key('a'), 3);
    map.put(key('a'), 7);
    expect(map.size).toBe(1);
    expect(map.get(key('a'))).toBe(7);
    expect(() => map.put(key('b'), 8)).toThrow(new RangeError('the offset map is full'));
    expect(map.get(key('b'))).toBe(-1);
  });
});
