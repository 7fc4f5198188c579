/**
 * The page's words for what bench/results.json names in English (the JSON keeps the names the
 * benchmarks print in a terminal; the page is Thai, with the course's English technical terms:
 * encode, decode, append, rebuild, batch, record, flush, fsync). A name with no rule is shown as it is.
 */

const ROW_RULES: readonly [RegExp, (...m: string[]) => string][] = [
  [
    /^(encode|decode) (\d+) × (.+?)(, both check the CRC)?$/,
    (_, op, n, size, both) => `${op} ${n} record × ${size}${both ? ' · ตรวจ CRC ทั้งสองฝั่ง' : ''}`,
  ],
  [/^append (\d+) × (.+?) per batch, no flush$/, (_, n, size) => `append batch ละ ${n} × ${size} ไม่ flush`],
  [
    /^append (\d+) × (.+?) per batch, fsync every append$/,
    (_, n, size) => `append batch ละ ${n} × ${size} fsync ทุกครั้งที่ append`,
  ],
  [
    /^floor for (\d+) × (.+?) per batch: raw write \+ CRC-32C computed once$/,
    (_, n, size) => `floor ของ batch ละ ${n} × ${size}: raw write + CRC-32C หนึ่งรอบ`,
  ],
  [
    /^judge \+ window update, (\d+) × (.+?) per batch$/,
    (_, n, size) => `judge + ปรับ window · batch ละ ${n} × ${size}`,
  ],
  [
    /^rebuild (\d+ MB), (\d+) batches of (\d+) × (.+)$/,
    (_, mb, count, n, size) => `rebuild ${mb} · ${count} batch ละ ${n} × ${size}`,
  ],
  [
    /^rebuild (\d+ MB) of (\d+) × (.+?) batches vs the fastest full decode$/,
    (_, mb, n, size) => `rebuild ${mb} batch ละ ${n} × ${size} เทียบ full decode ที่เร็วที่สุด`,
  ],
];

/** A comparison's label in the page's words. */
export function rowLabel(label: string): string {
  for (const [rule, say] of ROW_RULES) {
    const m = rule.exec(label);
    if (m) return say(...m);
  }
  return label;
}

const BASELINES: { readonly [name: string]: string } = {
  'KafkaJS (no CRC check)': 'KafkaJS (ไม่ตรวจ CRC)',
  'KafkaJS + its crc32C': 'KafkaJS + crc32C ของมันเอง',
  'judge + window update': 'judge + ปรับ window',
  'full decode, 1 MiB reads': 'full decode อ่านทีละ 1 MiB',
};

/** The other side of a pair, in the page's words (code names such as `raw writeSync` stay). */
export function baselineWords(name: string): string {
  return BASELINES[name] ?? name;
}

const UNITS: { readonly [unit: string]: string } = {
  'faster than KafkaJS': 'เร็วกว่า KafkaJS',
  'of raw write throughput': 'ของ raw write',
  'of the whole append': 'ของ append ทั้งก้อน',
  'faster than a full decode': 'เร็วกว่า full decode',
  'faster than a full decode from 1 MiB reads': 'เร็วกว่า full decode ที่อ่านทีละ 1 MiB',
};

/** What a ratio measures, in the page's words. */
export function unitWords(unit: string): string {
  return UNITS[unit] ?? unit;
}
