import { describe, expect, it } from 'vitest';
import { frameDecoder, fuzz, requestDecoder } from '../fuzz/targets.js';
import { API_CODECS } from '../src/apis/index.js';

/**
 * The fuzz targets of `pnpm fuzz` (fuzz/targets.ts), on fewer inputs: each input ends in a request, a
 * typed ProtocolDecodeError or FrameSizeError, or a kind of request Kafka closes the connection for; never
 * another exception, never more elements than bytes. A hang would show as this test's timeout.
 */
describe('fuzzing, a short run (pnpm fuzz runs 100k inputs per target)', () => {
  for (const [target, numRuns] of [
    [requestDecoder, 4000],
    [frameDecoder, 2000],
  ] as const) {
    it(`${target.name}: ${numRuns} inputs`, () => {
      const figures = fuzz(target, { numRuns });
      expect(figures.failure).toBeUndefined();
      expect(figures.inputs).toBe(numRuns);
    });
  }

  it('the inputs reach decoded requests of every API, and errors deep inside them', () => {
    const figures = fuzz(requestDecoder, { numRuns: 3000, seed: 42 });
    const kinds = [...figures.outcomes.keys()];
    for (const api of [...API_CODECS.values()].map((c) => c.name)) {
      expect(
        kinds.some((k) => k.startsWith(`${api} v`)),
        api,
      ).toBe(true);
    }
    expect(kinds.some((k) => /ProtocolDecodeError \w+\[\]\.\w+/.test(k))).toBe(true);
  });
});
