import { describe, expect, it } from 'vitest';
import {
  batchSize,
  buildPlainBatch,
  DecodeError,
  decodeRecordBatch,
  LogSegment,
  type RecordBatchHeader,
} from '../../src/internals.js';
import { NOW, tempDir } from '../helpers.js';

/**
 * The header scan reads many small batches at once and, after a large batch, only
 * the next 61-byte header: whichever it reads, it must find exactly the batches a
 * full decode of the file finds.
 */

const valueSizes = [10, 5_000, 10, 10, 70_000, 200_000, 3_000, 10, 4_200, 4_000, 66_000, 10];

function segmentWith(sizes: readonly number[]): LogSegment {
  const segment = LogSegment.create(tempDir(), 0);
  let offset = 0;
  for (const [i, size] of sizes.entries()) {
    const records = Array.from({ length: 1 + (i % 3) }, (_, r) => ({
      key: Buffer.from(`k${i}.${r}`),
      value: Buffer.alloc(size, i),
    }));
    const batch = buildPlainBatch(records, offset, NOW);
    offset += records.length;
    segment.append(batch, offset - 1);
  }
  return segment;
}

function decodeWholeFile(segment: LogSegment): { position: number; header: RecordBatchHeader }[] {
  const file = segment.read(0, segment.size);
  const out: { position: number; header: RecordBatchHeader }[] = [];
  for (let position = 0; position < file.length; ) {
    const { records: _records, ...header } = decodeRecordBatch(file, position);
    out.push({ position, header });
    position += batchSize(header);
  }
  return out;
}

describe('LogSegment.headers', () => {
  it('finds the same batches as a full decode, over small and large batches mixed', () => {
    const segment = segmentWith(valueSizes);
    const expected = decodeWholeFile(segment);
    expect(expected).toHaveLength(valueSizes.length);
    expect([...segment.headers()]).toEqual(expected);
    segment.close();
  });

  it('starts from any batch position it gave', () => {
    const segment = segmentWith(valueSizes);
    const all = [...segment.headers()];
    for (const [i, { position }] of all.entries()) {
      expect([...segment.headers(position)]).toEqual(all.slice(i));
    }
    segment.close();
  });

  it('names the position of a batch cut short by the end of the file, after a large batch', () => {
    const segment = segmentWith([70_000, 10]);
    const [, last] = [...segment.headers()];
    segment.truncateTo(last!.position + 70);
    let error: unknown;
    try {
      for (const _ of segment.headers()) {
        // scan to the end
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ field: 'batchLength', offset: last!.position + 8 });
    segment.close();
  });

  it('a closed segment refuses to scan', () => {
    const segment = segmentWith([10]);
    segment.close();
    expect(() => [...segment.headers()]).toThrow(/is closed/);
  });
});
