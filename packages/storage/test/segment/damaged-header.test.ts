import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildProducerBatch,
  checkSegment,
  crc32c,
  type InspectedBatch,
  LogSegment,
  segmentFileName,
} from '../../src/internals.js';
import { NOW, records, tempDir } from '../helpers.js';

/**
 * A flipped high byte in a 64-bit header field gives a value no JS number holds
 * exactly. The scan reads it exactly (bigint), flags the batch and, since its
 * length still leads to the next batch, goes on.
 */
function segmentOfThree(): { path: string; positions: number[] } {
  const dir = tempDir();
  const batches = [0, 2, 4].map((offset, i) =>
    buildProducerBatch(records(2, `b${i}`), offset, NOW, {
      producerId: 7,
      producerEpoch: 0,
      baseSequence: offset,
    }),
  );
  const path = join(dir, segmentFileName(0));
  writeFileSync(path, Buffer.concat(batches));
  const positions = [0, batches[0]!.length, batches[0]!.length + batches[1]!.length];
  return { path, positions };
}

function inspect(path: string) {
  const segment = LogSegment.open(path, 0, { readOnly: true });
  try {
    return [...segment.inspect()];
  } finally {
    segment.close();
  }
}

function damage(path: string, at: number, resealCrcOf?: number): void {
  const bytes = readFileSync(path);
  bytes[at]! ^= 0x80;
  if (resealCrcOf !== undefined) {
    const size = bytes.readInt32BE(resealCrcOf + 8) + 12;
    bytes.writeUInt32BE(crc32c(bytes.subarray(resealCrcOf + 21, resealCrcOf + size)), resealCrcOf + 17);
  }
  writeFileSync(path, bytes);
}

describe('a flipped high byte in a 64-bit field', () => {
  for (const [field, offset, exact] of [
    ['producerId', 43, 0x8000_0000_0000_0007n - 2n ** 64n],
    ['maxTimestamp', 35, BigInt(NOW) + 2n ** 63n - 2n ** 64n],
    ['baseTimestamp', 27, BigInt(NOW) + 2n ** 63n - 2n ** 64n],
  ] as const) {
    it(`${field}: the batch is flagged (its CRC fails), read exactly, and the scan goes on`, () => {
      const { path, positions } = segmentOfThree();
      damage(path, positions[1]! + offset);
      const entries = inspect(path);
      expect(entries.map((e) => e.kind)).toEqual(['batch', 'batch', 'batch']);
      const [first, bad, last] = entries as InspectedBatch[];
      expect(first!.problem).toBeUndefined();
      expect(bad!.crcValid).toBe(false);
      expect(bad!.problem?.field).toBe('crc');
      expect(bad!.header).toBeUndefined();
      expect(bad!.headerProblem?.field).toBe(field);
      expect(bad!.headerProblem?.reason).toMatch(/is not a safe integer$/);
      expect(bad!.stored[field]).toBe(exact);
      expect(last!.problem).toBeUndefined();
      expect(last!.header?.baseOffset).toBe(4);
    });
  }

  it('baseOffset (outside the CRC): the CRC holds, the field is the problem, the scan goes on', () => {
    const { path, positions } = segmentOfThree();
    damage(path, positions[1]! + 0);
    const [, bad, last] = inspect(path) as InspectedBatch[];
    expect(bad!.crcValid).toBe(true);
    expect(bad!.problem?.field).toBe('baseOffset');
    expect(bad!.stored.baseOffset).toBe(2n - 2n ** 63n);
    expect(last!.header?.baseOffset).toBe(4);
    // Recovery sees corruption, not a torn tail: the cut bytes hold two whole batches with a good CRC (the damaged one and the last).
    const segment = LogSegment.open(path, 0, { readOnly: true });
    try {
      expect(checkSegment(segment)).toMatchObject({ kind: 'corruption', batches: 1, batchesAfter: 2 });
    } finally {
      segment.close();
    }
  });

  it('a value flipped with its CRC resealed is still flagged, by the field', () => {
    const { path, positions } = segmentOfThree();
    damage(path, positions[1]! + 43, positions[1]);
    const [, bad, last] = inspect(path) as InspectedBatch[];
    expect(bad!.crcValid).toBe(true);
    expect(bad!.problem?.field).toBe('producerId');
    expect(last!.problem).toBeUndefined();
  });

  it('a compression id Kafka does not define is flagged the same way', () => {
    const { path, positions } = segmentOfThree();
    damage(path, positions[1]! + 22 - 0); // low byte of attributes: 0x80 is not a codec bit
    const bytes = readFileSync(path);
    bytes[positions[1]! + 22] = 0x07;
    const size = bytes.readInt32BE(positions[1]! + 8) + 12;
    bytes.writeUInt32BE(crc32c(bytes.subarray(positions[1]! + 21, positions[1]! + size)), positions[1]! + 17);
    writeFileSync(path, bytes);
    const [, bad, last] = inspect(path) as InspectedBatch[];
    expect(bad!.problem?.reason).toBe('compression id 7 is not one Kafka defines (0-4)');
    expect(last!.problem).toBeUndefined();
  });
});
