import type { Style } from '../style.js';
import type { CheckOutcome } from './stage-report.js';
import type { Stage } from './stages.js';

/** The page the sections are on, as the course names it. */
export const LESSON_PAGE = 'docs/07-idem.mdx';

export function stageLine(stages: readonly Stage[], index: number, mark: string): string {
  const stage = stages[index]!;
  return `  ${mark} ${index + 1}/${stages.length} ${stage.title}`;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
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
  const head = `stage ${outcome.index + 1} ${stage.id} failed`;
  const { why } = outcome;
  switch (why.kind) {
    case 'verdict': {
      const { failure } = why;
      lines.push(`${head}: ${failure.summary}`, '', `    request  ${failure.request}`);
      const fw = Math.max(5, ...failure.rows.map((r) => [...r.field].length));
      const ew = Math.max(8, ...failure.rows.map((r) => [...r.expected].length));
      lines.push(`      ${pad('field', fw)}  ${pad('expected', ew)}  actual`);
      for (const r of failure.rows) {
        const ok = r.expected === r.actual;
        const line = `    ${ok ? '✓' : '✗'} ${pad(r.field, fw)}  ${pad(r.expected, ew)}  ${r.actual}`;
        lines.push(ok ? line : style.red(line));
      }
      break;
    }
    case 'threw':
      lines.push(`${head}: ${why.message}`);
      break;
    case 'hung':
      lines.push(
        `${head}: your ${why.fn} did not return within ${why.ms / 1000} s (a loop that never ends?); the check stopped it`,
      );
      break;
    case 'error':
      lines.push(`${head}: ${why.message}`);
      break;
  }
  lines.push('', `    reread   ${LESSON_PAGE} § ${stage.section}`, `    replay   ${replay}`);
  return lines;
}
