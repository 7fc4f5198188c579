// Named source regions, the units a lesson quotes.
//
// A region is opened and closed by marker lines that TypeScript's own outliner folds, with the
// name repeated on the end line so pairs can be checked:
//
//     // #region judge                  (or: // #region append-head fragment)
//     …
//     // #endregion judge               (the end line may repeat "fragment")
//
// The bytes of a region are the source lines strictly between its two markers, each with its
// own line ending, byte for byte: not dedented, trailing whitespace kept, and so always ending
// in a newline (the end marker is on a line of its own). Marker lines of regions nested inside
// are dropped: markers never appear in an excerpt.
import { createHash } from 'node:crypto';

export interface Region {
  /** Repository-relative path of the source file, with forward slashes. */
  readonly file: string;
  readonly name: string;
  /** Declared with `fragment`: it may cut a declaration in half, and the lesson shows the cut. */
  readonly fragment: boolean;
  /** 1-based line of the `#region` marker. */
  readonly beginLine: number;
  /** 1-based line of the `#endregion` marker. */
  readonly endLine: number;
  /** Character offsets of the region's content in the file: [contentStart, contentEnd). */
  readonly contentStart: number;
  readonly contentEnd: number;
  /** 1-based lines of nested markers inside the region, left out of `text`. */
  readonly droppedLines: readonly number[];
  /** 1-based source line of each line of `text`, in order. */
  readonly lineNumbers: readonly number[];
  /** The exact bytes a lesson shows. */
  readonly text: string;
  readonly sha256: string;
}

export interface MarkerProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface ParsedRegions {
  readonly file: string;
  readonly regions: ReadonlyMap<string, Region>;
  readonly problems: readonly MarkerProblem[];
}

/** Anything that looks like a region marker, well formed or not. */
const MARKER_LIKE = /(?:\/\/|\/\*)\s*#\s*(?:end)?region\b/;
const BEGIN = /^[ \t]*\/\/ #region ([a-z0-9][a-z0-9-]*)( fragment)?$/;
const END = /^[ \t]*\/\/ #endregion ([a-z0-9][a-z0-9-]*)( fragment)?$/;

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

interface Line {
  /** 1-based line number. */
  readonly number: number;
  /** The line without its ending. */
  readonly body: string;
  /** The line with its ending ("\n", "\r\n", or nothing on a last line without one). */
  readonly raw: string;
  readonly start: number;
}

export function splitLines(source: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let number = 1;
  while (start < source.length) {
    const nl = source.indexOf('\n', start);
    const end = nl === -1 ? source.length : nl + 1;
    const raw = source.slice(start, end);
    lines.push({ number, body: raw.replace(/\r?\n$/, ''), raw, start });
    start = end;
    number++;
  }
  return lines;
}

interface Open {
  readonly name: string;
  readonly fragment: boolean;
  readonly line: Line;
}

/** Parse every region of one file; marker problems are collected, never thrown. */
export function parseRegions(file: string, source: string): ParsedRegions {
  const lines = splitLines(source);
  const problems: MarkerProblem[] = [];
  const regions = new Map<string, Region>();
  const firstOpened = new Map<string, number>();
  const stack: Open[] = [];
  const markerLines = new Set<number>();
  const closed: { open: Open; end: Line }[] = [];
  const problem = (line: number, message: string) => problems.push({ file, line, message });

  for (const line of lines) {
    if (!MARKER_LIKE.test(line.body)) continue;
    markerLines.add(line.number);
    const begin = BEGIN.exec(line.body);
    const end = END.exec(line.body);
    if (begin) {
      const name = begin[1]!;
      const seen = firstOpened.get(name);
      if (seen !== undefined) {
        problem(line.number, `region "${name}" is opened again (first opened at line ${seen})`);
        continue;
      }
      firstOpened.set(name, line.number);
      stack.push({ name, fragment: begin[2] !== undefined, line });
    } else if (end) {
      const name = end[1]!;
      const top = stack.at(-1);
      if (top === undefined) {
        problem(line.number, `"// #endregion ${name}" closes no open region`);
        continue;
      }
      if (top.name !== name) {
        const depth = stack.findIndex((o) => o.name === name);
        problem(
          line.number,
          `"// #endregion ${name}" does not match the innermost open region "${top.name}" (opened at line ${top.line.number})`,
        );
        // Recover so later regions are still checked: close up to the named one if it is open.
        if (depth !== -1) stack.length = depth;
        continue;
      }
      stack.pop();
      if (end[2] !== undefined && !top.fragment) {
        problem(
          line.number,
          `"// #endregion ${name} fragment" closes region "${name}", which was not opened as a fragment (line ${top.line.number})`,
        );
        continue;
      }
      closed.push({ open: top, end: line });
    } else {
      problem(
        line.number,
        `malformed region marker ${JSON.stringify(line.body.trim())}: expected "// #region <name>", "// #region <name> fragment" or "// #endregion <name>" alone on its line (names: a-z, 0-9, -)`,
      );
    }
  }
  for (const open of stack) {
    problem(open.line.number, `region "${open.name}" is never closed (add "// #endregion ${open.name}")`);
  }

  for (const { open, end } of closed) {
    const inner = lines.slice(open.line.number, end.number - 1);
    const kept = inner.filter((l) => !markerLines.has(l.number));
    const text = kept.map((l) => l.raw).join('');
    if (text.trim() === '') {
      problem(open.line.number, `region "${open.name}" is empty`);
      continue;
    }
    regions.set(open.name, {
      file,
      name: open.name,
      fragment: open.fragment,
      beginLine: open.line.number,
      endLine: end.number,
      contentStart: open.line.start + open.line.raw.length,
      contentEnd: end.start,
      droppedLines: inner.filter((l) => markerLines.has(l.number)).map((l) => l.number),
      lineNumbers: kept.map((l) => l.number),
      text,
      sha256: sha256(text),
    });
  }
  problems.sort((a, b) => a.line - b.line);
  return { file, regions, problems };
}

/** Line span of a region's content, e.g. "31-54", for `data-lines` and messages. */
export function regionLines(region: Region): string {
  return `${region.beginLine + 1}-${region.endLine - 1}`;
}
