// Resolving a lesson's reference to exact bytes: a region of a source file, or a section of a
// golden output file. Used by the site at build time and by the checker; both fail closed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Cut, findCut } from './declarations.js';
import { parseSections, type Section } from './golden.js';
import { type ParsedRegions, parseRegions, type Region } from './regions.js';

export class ExcerptError extends Error {
  override name = 'ExcerptError';
}

/** The repository root: the nearest directory at or above `from` holding pnpm-workspace.yaml. */
export function findRepoRoot(from: string = process.cwd()): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new ExcerptError(`no pnpm-workspace.yaml at or above ${from}`);
    dir = up;
  }
}

/** A repository-relative path with forward slashes; refuses paths that leave the repository. */
export function repoPath(root: string, file: string): string {
  const abs = resolve(root, file);
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new ExcerptError(`${file} is outside the repository`);
  }
  return rel.split(sep).join('/');
}

function readSource(root: string, file: string): string {
  const rel = repoPath(root, file);
  const abs = join(root, rel);
  if (!existsSync(abs)) throw new ExcerptError(`${rel}: no such file`);
  return readFileSync(abs, 'utf8');
}

export function readRegions(root: string, file: string): { parsed: ParsedRegions; source: string } {
  const rel = repoPath(root, file);
  const source = readSource(root, rel);
  return { parsed: parseRegions(rel, source), source };
}

export interface Excerpt {
  readonly region: Region;
  /** For a fragment: the declaration it cuts, so the lesson can show where. */
  readonly cut: Cut | undefined;
}

/** Why a region that is not marked `fragment` is one. */
export function cutMessage(name: string, cut: Cut): string {
  const what =
    cut.how === 'cut'
      ? `cuts ${cut.what} (lines ${cut.startLine}-${cut.endLine}) in half`
      : `is a part of the body of ${cut.what} (lines ${cut.startLine}-${cut.endLine}), not a whole unit`;
  return `region "${name}" ${what}; mark it "// #region ${name} fragment" if that is meant`;
}

/** The region `name` of `file`, or an ExcerptError naming what is wrong (never an empty excerpt). */
export function cutExcerpt(root: string, file: string, name: string): Excerpt {
  const { parsed, source } = readRegions(root, file);
  const broken = parsed.problems[0];
  if (broken) throw new ExcerptError(`${broken.file}:${broken.line}: ${broken.message}`);
  const region = parsed.regions.get(name);
  if (!region) {
    const known = [...parsed.regions.keys()];
    throw new ExcerptError(
      `${parsed.file}: no region "${name}" (${known.length ? `regions here: ${known.join(', ')}` : 'the file has no regions'})`,
    );
  }
  const cut = findCut(source, region);
  if (cut && !region.fragment) {
    throw new ExcerptError(`${region.file}:${region.beginLine}: ${cutMessage(name, cut)}`);
  }
  return { region, cut };
}

/** The section titled `title` of a golden file, or an ExcerptError naming what is wrong. */
export function cutSection(root: string, file: string, title: string): Section {
  const rel = repoPath(root, file);
  const parsed = parseSections(rel, readSource(root, rel));
  const broken = parsed.problems[0];
  if (broken) throw new ExcerptError(`${broken.file}:${broken.line}: ${broken.message}`);
  const section = parsed.sections.get(title);
  if (!section) {
    throw new ExcerptError(
      `${rel}: no section "== ${title} ==" (sections here: ${[...parsed.sections.keys()].map((t) => JSON.stringify(t)).join(', ')})`,
    );
  }
  return section;
}
