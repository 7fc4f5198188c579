// Is a region a whole unit? A region is a run of whole statements, declarations or class
// members; one that starts or ends in the middle of a syntax node cuts it in half. The check
// uses the TypeScript parser itself, so it agrees with what an editor folds.
import ts from 'typescript';
import type { Region } from './regions.js';

export interface Cut {
  /**
   * How the region cuts: `cut` when it starts or ends in the middle of a node (the lesson shows
   * where the code goes on), `inside` when it is a run of statements taken from inside a
   * function's body (whole statements, but not a whole unit a reader could lift out).
   */
  readonly how: 'cut' | 'inside';
  /** What is cut, e.g. "method append" or "class ProducerStateEntry". */
  readonly what: string;
  /** 1-based lines of the node that is cut. */
  readonly startLine: number;
  readonly endLine: number;
}

/** The class whose members a region shows, e.g. "ProducerStateEntry" for one of its methods. */
export interface Owner {
  readonly kind: 'class' | 'interface' | 'namespace';
  readonly name: string;
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

function parse(file: string, source: string): ts.SourceFile {
  return ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, scriptKind(file));
}

/** The innermost node that holds the whole region, strictly around it. */
function container(sf: ts.SourceFile, r0: number, r1: number): ts.Node {
  let holder: ts.Node = sf;
  const visit = (node: ts.Node): void => {
    if (node.getStart(sf) <= r0 && node.getEnd() >= r1) {
      holder = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(sf, visit);
  return holder;
}

const FUNCTION_LIKE = (n: ts.Node): boolean =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n);

/**
 * The outermost syntax node that a region cuts in half (starts before the region and ends
 * inside it, or starts inside and ends after); else, for a region of statements from inside a
 * function's body, that function; else undefined: the region is whole.
 */
export function findCut(source: string, region: Region): Cut | undefined {
  if (!isParsedSource(region.file)) return undefined;
  const sf = parse(region.file, source);
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
  const lines = (node: ts.Node) => ({
    startLine: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
    endLine: sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1,
  });
  if (cut) return { how: 'cut', what: describe(cut), ...lines(cut) };
  let holder: ts.Node | undefined = container(sf, r0, r1);
  while (holder && !FUNCTION_LIKE(holder) && !ts.isSourceFile(holder) && !ts.isClassLike(holder)) {
    holder = holder.parent;
  }
  if (holder && FUNCTION_LIKE(holder)) {
    const named =
      ts.isArrowFunction(holder) || ts.isFunctionExpression(holder) ? enclosingNamed(holder) : holder;
    return { how: 'inside', what: describe(named), ...lines(named) };
  }
  return undefined;
}

/** A function expression's name as a reader knows it: the variable or property it is assigned to. */
function enclosingNamed(node: ts.Node): ts.Node {
  let n: ts.Node | undefined = node.parent;
  while (n && !ts.isSourceFile(n)) {
    if (ts.isVariableDeclaration(n) || ts.isPropertyDeclaration(n) || ts.isPropertyAssignment(n)) return n;
    if (FUNCTION_LIKE(n) || ts.isClassLike(n)) return n;
    n = n.parent;
  }
  return node;
}

/** The class (or interface, or namespace) whose members a region shows, if any. */
export function findOwner(source: string, region: Region): Owner | undefined {
  if (!isParsedSource(region.file)) return undefined;
  const sf = parse(region.file, source);
  let holder: ts.Node | undefined = container(sf, region.contentStart, region.contentEnd);
  while (holder && !ts.isSourceFile(holder)) {
    if (FUNCTION_LIKE(holder)) return undefined;
    if (ts.isClassLike(holder) && holder.name) return { kind: 'class', name: holder.name.text };
    if (ts.isInterfaceDeclaration(holder)) return { kind: 'interface', name: holder.name.text };
    if (ts.isModuleDeclaration(holder) && ts.isIdentifier(holder.name))
      return { kind: 'namespace', name: holder.name.text };
    holder = holder.parent;
  }
  return undefined;
}
