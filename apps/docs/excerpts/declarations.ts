// Is a region a whole unit? A region is a run of whole statements, declarations or class
// members; one that starts or ends in the middle of a syntax node cuts it in half. The check
// uses the TypeScript parser itself, so it agrees with what an editor folds.
import ts from 'typescript';
import type { Region } from './regions.js';

export interface Cut {
  /** What is cut, e.g. "function appendIdempotent" or "class ProducerStateEntry". */
  readonly what: string;
  /** 1-based lines of the node that is cut. */
  readonly startLine: number;
  readonly endLine: number;
}

const PARSED = /\.(?:[cm]?tsx?|[cm]?jsx?)$/;

export function isParsedSource(file: string): boolean {
  return PARSED.test(file);
}

function scriptKind(file: string): ts.ScriptKind {
  if (/\.tsx$/.test(file)) return ts.ScriptKind.TSX;
  if (/\.[cm]?ts$/.test(file)) return ts.ScriptKind.TS;
  if (/\.jsx$/.test(file)) return ts.ScriptKind.JSX;
  return ts.ScriptKind.JS;
}

function describe(node: ts.Node): string {
  const kind = ts.SyntaxKind[node.kind]
    .replace(/Declaration$|Statement$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  const name = (node as { name?: ts.Node }).name;
  return name && ts.isIdentifier(name) ? `${kind} ${name.text}` : kind;
}

/**
 * The outermost syntax node that a region cuts in half (starts before the region and ends
 * inside it, or starts inside and ends after), or undefined when the region is whole.
 */
export function findCut(source: string, region: Region): Cut | undefined {
  if (!isParsedSource(region.file)) return undefined;
  const sf = ts.createSourceFile(region.file, source, ts.ScriptTarget.Latest, true, scriptKind(region.file));
  const { contentStart: r0, contentEnd: r1 } = region;
  let cut: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (cut) return;
    const a = node.getStart(sf);
    const b = node.getEnd();
    const endsInside = a < r0 && b > r0 && b <= r1;
    const startsInside = a >= r0 && a < r1 && b > r1;
    if (endsInside || startsInside) {
      cut = node;
      return;
    }
    if (a < r1 && b > r0) ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  if (!cut) return undefined;
  const found: ts.Node = cut;
  return {
    what: describe(found),
    startLine: sf.getLineAndCharacterOfPosition(found.getStart(sf)).line + 1,
    endLine: sf.getLineAndCharacterOfPosition(found.getEnd()).line + 1,
  };
}
