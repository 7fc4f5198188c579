import { describe, expect, it } from 'vitest';
import { CONTROL_FLAG, StorageError, validateForAppend } from '../../src/internals.js';
import { thrown } from '../helpers.js';

type AppendedHeader = Parameters<typeof validateForAppend>[0];

/** A header as a producer's batch of one record would have it. */
const header = (fields: Partial<AppendedHeader> = {}): AppendedHeader => ({
  attributes: 0,
  lastOffsetDelta: 0,
  recordsCount: 1,
  producerId: 5,
  producerEpoch: 0,
  baseSequence: 0,
  maxTimestamp: 0,
  ...fields,
});
const refusal = (h: AppendedHeader, origin: 'client' | 'klog' = 'client') =>
  thrown(StorageError, () => validateForAppend(h, 100, 0, 1000, origin));

describe("validateForAppend (Kafka's LogValidator, by AppendOrigin)", () => {
  it("checks a client's batch structure, and trusts klog's own, built by construction", () => {
    for (const h of [
      header({ recordsCount: 0 }),
      header({ recordsCount: 2 }),
      header({ attributes: CONTROL_FLAG }),
    ]) {
      expect(refusal(h).code).toBe('INVALID_RECORD');
      expect(() => validateForAppend(h, 100, 0, 1000, 'klog')).not.toThrow();
    }
    // Size is checked whatever the origin.
    expect(thrown(StorageError, () => validateForAppend(header(), 1001, 0, 1000, 'klog')).code).toBe(
      'MESSAGE_TOO_LARGE',
    );
  });

  it('refuses a sequence past 2^31 - 1 or an epoch past 32767, by value', () => {
    // Decoded bytes cannot hold these (int32, int16), but the header is a plain object a caller builds.
    expect(refusal(header({ baseSequence: 2 ** 31 }))).toMatchObject({
      code: 'INVALID_RECORD',
      message: `invalid sequence number ${2 ** 31} in record batch with producerId 5`,
    });
    expect(refusal(header({ producerEpoch: 32_768 }))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'invalid producer epoch 32768 in record batch with producerId 5',
    });
    expect(() =>
      validateForAppend(header({ baseSequence: 2 ** 31 - 1, producerEpoch: 32_767 }), 100, 0, 1000, 'client'),
    ).not.toThrow();
  });
});
