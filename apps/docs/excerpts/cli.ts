// `pnpm check:excerpts`: run the excerpt checker on this repository and print what it found, then
// measure the site's Thai prose against the user's chapter (excerpts/overlap.ts).
//   tsx excerpts/cli.ts [--dist <dir>] [--no-golden] [--no-overlap | --overlap-only]
// Exit 0 when nothing is wrong (warnings are listed; an overlap check that could not run because
// the chapter is not on this machine says SKIPPED, never ok), 1 when something is, 2 on bad usage.
import { parseArgs } from 'node:util';
import { type CheckResult, checkExcerpts, DEFAULT_DIST, type Finding } from './check.js';
import { checkOverlap, formatOverlap } from './overlap.js';
import { findRepoRoot } from './source.js';

/** An error: its place(s) on one line, then the message and any diff, indented. A warning: one line. */
export function formatFinding(f: Finding): string {
  if (f.level === 'warning') return `! ${f.where}  ${f.message}`;
  const lines = [
    `✗ ${f.where}`,
    `    ${f.message}`,
    ...(f.detail ? f.detail.split('\n').map((l) => `    ${l}`) : []),
  ];
  return lines.join('\n');
}

export function formatResult(result: CheckResult): string {
  const errors = result.findings.filter((f) => f.level === 'error');
  const warnings = result.findings.filter((f) => f.level === 'warning');
  const s = result.stats;
  const out = [...errors, ...warnings].map(formatFinding);
  out.push(
    `check:excerpts: ${errors.length === 0 ? 'ok' : 'FAIL'} · ${errors.length} error(s), ${warnings.length} warning(s) · ` +
      `${s.references} references in ${s.lessons} lesson(s), ${s.regions} regions in ${s.sourceFiles} source files, ` +
      `${s.blocks} built blocks in ${s.pages} pages`,
  );
  return out.join('\n');
}

function main(): number {
  let values: {
    dist?: string | undefined;
    'no-golden'?: boolean | undefined;
    'no-overlap'?: boolean | undefined;
    'overlap-only'?: boolean | undefined;
    root?: string | undefined;
  };
  try {
    ({ values } = parseArgs({
      options: {
        dist: { type: 'string' },
        'no-golden': { type: 'boolean' },
        'no-overlap': { type: 'boolean' },
        'overlap-only': { type: 'boolean' },
        root: { type: 'string' },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`check:excerpts: ${(e as Error).message}`);
    return 2;
  }
  if (values['no-overlap'] && values['overlap-only']) {
    console.error('check:excerpts: --no-overlap and --overlap-only exclude each other');
    return 2;
  }
  const root = values.root ?? findRepoRoot();
  const dist = values.dist ?? DEFAULT_DIST;
  let failed = false;
  if (!values['overlap-only']) {
    const result = checkExcerpts({ root, dist, golden: !values['no-golden'] });
    const text = formatResult(result);
    const bad = result.findings.some((f) => f.level === 'error');
    (bad ? console.error : console.log)(text);
    failed ||= bad;
  }
  if (!values['no-overlap']) {
    const overlap = checkOverlap({ root, dist });
    const bad = overlap.status === 'fail';
    (bad ? console.error : console.log)(formatOverlap(overlap));
    failed ||= bad;
  }
  return failed ? 1 : 0;
}

process.exitCode = main();
