import { describe, expect, it } from 'vitest';
import { check } from '../src/check.js';
import { CheckFailed } from '../src/errors.js';
import { displayWidth, padEnd } from '../src/format.js';
import { fillBatches } from '../src/idem-demo/fill.js';
import { colorEnabled } from '../src/style.js';

describe('the fill rule before A', () => {
  it("gives the chapter's batches for A = 7", () => {
    expect(fillBatches(7)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 6],
    ]);
  });

  it('covers 0..A-1 exactly, in at most four batches, for any A', () => {
    for (let a = 0; a <= 200; a++) {
      const batches = fillBatches(a);
      expect(batches.length).toBeLessThanOrEqual(4);
      const seqs = batches.flatMap(([f, l]) => Array.from({ length: l - f + 1 }, (_, i) => f + i));
      expect(seqs).toEqual(Array.from({ length: a }, (_, i) => i));
      if (a > 0) expect(batches.at(-1)).toEqual([a - 1, a - 1]);
    }
    expect(fillBatches(12)).toEqual([
      [0, 6],
      [7, 8],
      [9, 10],
      [11, 11],
    ]);
  });
});

describe('colour', () => {
  it('only on a TTY and never with NO_COLOR', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, { CI: '1' })).toBe(false);
  });
});

describe('Thai-aware padding', () => {
  it('does not count combining marks as columns', () => {
    expect(displayWidth('คำตัดสิน')).toBe(6);
    expect(displayWidth('ที่')).toBe(1);
    expect(padEnd('หน้าต่าง', 8)).toBe('หน้าต่าง  ');
  });
});

describe('check', () => {
  it('passes equal values and reports expected and actual otherwise', () => {
    expect(() => check('same', [1, 2], [1, 2])).not.toThrow();
    expect(() => check('leo did not move', 10, 11)).toThrow(CheckFailed);
    expect(() => check('leo did not move', 10, 11)).toThrow(/expected: 10\n {2}actual: {3}11/);
  });
});
