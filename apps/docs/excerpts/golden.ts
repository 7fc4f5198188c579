// Sections of a golden output file (expected/*.txt), the units a lesson shows as run output.
//
// A section starts at its title line `== title ==` and runs to the line before the next title
// (or the end of the file). The blank lines just before the next title separate sections and
// belong to neither; every other byte, trailing whitespace and the final newline included, is
// the section's. The title line is part of the section: the reader sees where the block comes
// from in the run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MarkerProblem, sha256, splitLines } from './regions.js';

export interface Section {
  readonly file: string;
  readonly title: string;
  /** 1-based lines of the section: the title line and the last line. */
  readonly firstLine: number;
  readonly lastLine: number;
  readonly text: string;
  readonly sha256: string;
}

export interface ParsedSections {
  readonly file: string;
  readonly sections: ReadonlyMap<string, Section>;
  readonly problems: readonly MarkerProblem[];
}

const TITLE = /^== (.+) ==$/;

export function parseSections(file: string, text: string): ParsedSections {
  const lines = splitLines(text);
  const sections = new Map<string, Section>();
  const problems: MarkerProblem[] = [];
  const starts = lines.filter((l) => TITLE.test(l.body));
  if (starts.length === 0) {
    problems.push({ file, line: 1, message: 'no "== title ==" line: the file has no sections' });
  }
  starts.forEach((start, i) => {
    const title = TITLE.exec(start.body)![1]!;
    const next = starts[i + 1];
    let last = (next ? next.number : lines.length + 1) - 1;
    if (next) while (last > start.number && lines[last - 1]!.body === '') last--;
    if (sections.has(title)) {
      const first = sections.get(title)!;
      problems.push({
        file,
        line: start.number,
        message: `section "${title}" appears twice (first at line ${first.firstLine})`,
      });
      return;
    }
    const body = lines
      .slice(start.number - 1, last)
      .map((l) => l.raw)
      .join('');
    sections.set(title, {
      file,
      title,
      firstLine: start.number,
      lastLine: last,
      text: body,
      sha256: sha256(body),
    });
  });
  return { file, sections, problems };
}

interface Manifest {
  readonly golden: readonly { readonly file: string; readonly args: readonly string[] }[];
}

/** The `klog …` command line whose stdout is the golden file `expected/<name>`, from the manifest. */
export function goldenCommand(root: string, goldenFile: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(root, 'expected/manifest.json'), 'utf8')) as Manifest;
  const name = goldenFile.replace(/^expected\//, '');
  const entry = manifest.golden.find((g) => g.file === name);
  return entry ? ['klog', ...entry.args].join(' ') : undefined;
}
