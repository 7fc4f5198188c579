import type { Style } from '../style.js';
import type { CheckOutcome } from './stage-report.js';
import type { Stage } from './stages.js';
import type { Row } from './verdict-rows.js';

/** A value longer than this is printed on its own line, not in a column. */
const LONG_VALUE = 24;

/** The page the sections are on, as the course names it, and where the lesson site serves it. */
export const LESSON_PAGE = 'docs/07-idem.mdx';
export const LESSON_PATH = '/07-idem/';

/**
 * The id the site gives a heading (Starlight's, by github-slugger): lower case, punctuation dropped, each
 * space a hyphen; Thai letters and their marks kept.
 */
export function headingId(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The section's address on the lesson site, page and anchor. */
export function sectionLink(heading: string): string {
  return `${LESSON_PATH}#${headingId(heading)}`;
}

export function stageLine(stages: readonly Stage[], index: number, mark: string): string {
  const stage = stages[index]!;
  return `  ${mark} ${index + 1}/${stages.length} ${stage.title}`;
}

/** Columns on a terminal: Thai vowel and tone marks (Unicode marks) take no column of their own. */
function width(text: string): number {
  return [...text.replace(/\p{M}/gu, '')].length;
}

function pad(text: string, columns: number): string {
  return text + ' '.repeat(Math.max(0, columns - width(text)));
}

/** What a failed stage prints: the first line says what went wrong; then the request, field by field, and where to reread. */
export function failureLines(
  stages: readonly Stage[],
  outcome: Extract<CheckOutcome, { kind: 'failed' }>,
  replay: string,
  style: Style,
): string[] {
  const stage = stages[outcome.index]!;
  const lines: string[] = [];
  const head = `stage ${outcome.index + 1} ${stage.id} ไม่ผ่าน`;
  const { why } = outcome;
  switch (why.kind) {
    case 'verdict': {
      const { failure } = why;
      lines.push(`${head}: ${failure.summary}`, '', `    คำขอ    ${failure.request}`);
      // Short values in columns; a long one (a window) on its own lines, expected above actual.
      const long = (r: Row) => Math.max(width(r.expected), width(r.actual)) > LONG_VALUE;
      const short = failure.rows.filter((r) => !long(r));
      const fw = Math.max(5, ...failure.rows.map((r) => width(r.field)));
      const ew = Math.max(8, ...short.map((r) => width(r.expected)));
      lines.push(`      ${pad('ช่อง', fw)}  ${pad('ควรเป็น', ew)}  ได้จริง`);
      for (const r of failure.rows) {
        const ok = r.expected === r.actual;
        const mark = ok ? '✓' : '✗';
        const rowLines = long(r)
          ? [`    ${mark} ${r.field}`, `        ควรเป็น  ${r.expected}`, `        ได้จริง  ${r.actual}`]
          : [`    ${mark} ${pad(r.field, fw)}  ${pad(r.expected, ew)}  ${r.actual}`];
        lines.push(...(ok ? rowLines : rowLines.map((l) => style.red(l))));
      }
      break;
    }
    case 'threw':
      lines.push(`${head}: ${why.message}`);
      break;
    case 'hung':
      lines.push(`${head}: ${why.fn} ของคุณไม่คืนค่าภายใน ${why.ms / 1000} วินาที (loop ที่ไม่มีวันจบ?) ตัวตรวจหยุดมันแล้ว`);
      break;
    case 'error':
      lines.push(`${head}: ${why.message}`);
      break;
  }
  lines.push(
    '',
    `    อ่านทวน  ${LESSON_PAGE} § ${stage.section}`,
    `             บนเว็บบทเรียน ${sectionLink(stage.section)}`,
    `    รันซ้ำ    ${replay}`,
  );
  return lines;
}
