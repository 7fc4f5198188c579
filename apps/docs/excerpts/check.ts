// The excerpt checker: lesson ⇄ source, byte for byte. It fails closed, naming both places,
// when a referenced file, region or section is missing; when markers are unclosed, duplicated,
// mismatched or cut a declaration without saying `fragment`; when a golden file differs from
// what the CLI prints now (scripts/golden.mjs check); and when a block in the built HTML
// differs from its source bytes. It lists regions no lesson references.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { type BuiltBlock, listPages, pageOf, readPage, readSourcePage } from './built.js';
import { findCut, isParsedSource } from './declarations.js';
import { goldenCommand, parseSections, type Section } from './golden.js';
import { atOf, type Lesson, listLessons, readLesson } from './references.js';
import { type Region, sha256 } from './regions.js';
import { cutMessage, type ExcerptError, readRegions, repoPath } from './source.js';

export interface Finding {
  readonly level: 'error' | 'warning';
  /** One place ("packages/core/src/verdict.ts:31") or both ("docs/07-idem.mdx:12 ⇄ packages/…:31"). */
  readonly where: string;
  readonly message: string;
  /** A unified diff or a tool's output. */
  readonly detail?: string;
}

export interface CheckOptions {
  /** Repository root. */
  readonly root: string;
  /** The built site, relative to root (default apps/docs/dist). */
  readonly dist?: string;
  /** Run scripts/golden.mjs check (default true). */
  readonly golden?: boolean;
}

export interface CheckResult {
  readonly findings: readonly Finding[];
  readonly stats: {
    readonly lessons: number;
    readonly references: number;
    readonly sourceFiles: number;
    readonly regions: number;
    readonly pages: number;
    readonly blocks: number;
  };
}

export const DEFAULT_DIST = 'apps/docs/dist';

/** Source files whose regions are checked and listed: every script under packages/<name>/src. */
export function listSources(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (isParsedSource(entry.name) && !entry.name.endsWith('.d.ts')) out.push(child);
    }
  };
  if (existsSync(join(root, 'packages'))) {
    for (const pkg of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
      if (pkg.isDirectory() && existsSync(join(root, 'packages', pkg.name, 'src')))
        walk(`packages/${pkg.name}/src`);
    }
  }
  return out.sort();
}

function unifiedDiff(builtLabel: string, sourceLabel: string, built: string, source: string): string {
  return createTwoFilesPatch(builtLabel, sourceLabel, built, source, undefined, undefined, { context: 3 })
    .split('\n')
    .filter((l) => !l.startsWith('====='))
    .join('\n')
    .trimEnd();
}

/** Index of the first line where two texts differ. */
function firstDifferingLine(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

/** What every phase finds, in the order found: the one list checkExcerpts returns. */
class Findings {
  readonly list: Finding[] = [];

  error(where: string, message: string, detail?: string): void {
    this.list.push(
      detail === undefined ? { level: 'error', where, message } : { level: 'error', where, message, detail },
    );
  }

  warn(where: string, message: string): void {
    this.list.push({ level: 'warning', where, message });
  }
}

/**
 * What the phases read and share: the lessons, the regions of every source file (phase 1 fills them), and
 * golden files' sections and commands, each read once, when first needed (a section file's problems are
 * reported then, by whichever phase reads it first).
 */
class Tree {
  readonly lessons: Lesson[];
  /** The files lessons quote regions of, as repository paths. */
  readonly referencedFiles = new Set<string>();
  readonly regionsByFile = new Map<string, Map<string, Region>>();
  readonly #sections = new Map<string, Map<string, Section> | undefined>();
  readonly #commands = new Map<string, string | undefined>();

  constructor(
    readonly root: string,
    readonly findings: Findings,
  ) {
    this.lessons = listLessons(root).map((f) => readLesson(root, f));
    for (const lesson of this.lessons) {
      for (const ref of lesson.references)
        if (ref.kind === 'region') this.referencedFiles.add(this.norm(ref.file));
    }
  }

  norm(file: string): string {
    try {
      return repoPath(this.root, file);
    } catch {
      return file;
    }
  }

  sectionsOf(file: string): Map<string, Section> | undefined {
    if (!this.#sections.has(file)) {
      if (!existsSync(join(this.root, file))) this.#sections.set(file, undefined);
      else {
        const parsed = parseSections(file, readFileSync(join(this.root, file), 'utf8'));
        for (const p of parsed.problems) this.findings.error(`${p.file}:${p.line}`, p.message);
        this.#sections.set(file, new Map(parsed.sections));
      }
    }
    return this.#sections.get(file);
  }

  /** The `klog …` command of a golden file, from expected/manifest.json; undefined if it has none. */
  commandOf(file: string): string | undefined {
    if (!this.#commands.has(file)) {
      let command: string | undefined;
      try {
        command = goldenCommand(this.root, file);
      } catch {
        command = undefined;
      }
      this.#commands.set(file, command);
    }
    return this.#commands.get(file);
  }
}

/** 1. Markers in every source file, and in any other file a lesson references. Returns the regions counted. */
function checkMarkers(tree: Tree): number {
  const { root, findings } = tree;
  const sourceFiles = new Set(listSources(root));
  for (const f of tree.referencedFiles) if (existsSync(join(root, f))) sourceFiles.add(f);
  let regionCount = 0;
  for (const file of [...sourceFiles].sort()) {
    const { parsed, source } = readRegions(root, file);
    for (const p of parsed.problems) findings.error(`${p.file}:${p.line}`, p.message);
    tree.regionsByFile.set(parsed.file, new Map(parsed.regions));
    for (const region of parsed.regions.values()) {
      regionCount++;
      const cut = findCut(source, region);
      if (cut && !region.fragment) {
        findings.error(`${region.file}:${region.beginLine}`, cutMessage(region.name, cut));
      } else if (!cut && region.fragment) {
        findings.warn(
          `${region.file}:${region.beginLine}`,
          `region "${region.name}" is marked fragment but cuts nothing; drop "fragment"`,
        );
      }
    }
  }
  return regionCount;
}

/**
 * 2. Every lesson reference resolves to a region or a section. Returns the references counted and the
 * regions referenced (`file#name`).
 */
function checkReferences(tree: Tree): { readonly count: number; readonly referenced: ReadonlySet<string> } {
  const { root, findings } = tree;
  const referenced = new Set<string>();
  let count = 0;
  for (const lesson of tree.lessons) {
    for (const p of lesson.problems) findings.error(`${p.file}:${p.line}`, p.message);
    for (const ref of lesson.references) {
      count++;
      const at = atOf(ref);
      let file: string;
      try {
        file = repoPath(root, ref.file);
      } catch (e) {
        findings.error(at, (e as ExcerptError).message);
        continue;
      }
      if (!existsSync(join(root, file))) {
        findings.error(`${at} ⇄ ${file}`, `references ${file}, which does not exist`);
        continue;
      }
      if (ref.kind === 'region') {
        const regions = tree.regionsByFile.get(file);
        const region = regions?.get(ref.name);
        if (!region) {
          const known = [...(regions?.keys() ?? [])];
          findings.error(
            `${at} ⇄ ${file}`,
            `no region "${ref.name}" in ${file} (${known.length ? `regions here: ${known.join(', ')}` : 'the file has no regions'})`,
          );
          continue;
        }
        referenced.add(`${file}#${ref.name}`);
        if (lesson.chapter !== undefined && !ref.glossed) {
          findings.error(
            `${at} ⇄ ${file}#${ref.name}`,
            `an excerpt in chapter ${lesson.chapter} without a Thai gloss: write what its comments teach, in Thai, between <Excerpt …> and </Excerpt>`,
          );
        }
      } else {
        const sections = tree.sectionsOf(file);
        if (!sections?.has(ref.title)) {
          findings.error(
            `${at} ⇄ ${file}`,
            `no section "== ${ref.title} ==" in ${file} (sections here: ${[...(sections?.keys() ?? [])].map((t) => JSON.stringify(t)).join(', ')})`,
          );
        }
        if (tree.commandOf(file) === undefined) {
          findings.error(
            `${at} ⇄ ${file}`,
            `${file} has no command in expected/manifest.json, so nothing proves it is what the CLI prints: list it there with its klog arguments (and pnpm bless)`,
          );
        }
      }
    }
  }
  return { count, referenced };
}

/** 3. Golden files against the CLI, by the project's own golden script. */
function checkGolden(tree: Tree): void {
  const run = spawnSync(process.execPath, [join(tree.root, 'scripts/golden.mjs'), 'check'], {
    cwd: tree.root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (run.status !== 0) {
    tree.findings.error(
      'expected/',
      'a golden file differs from what the CLI prints now (if the change is meant: pnpm bless, and review the diff)',
      `${run.stdout}${run.stderr}`.trim(),
    );
  }
}

/** 4. The built HTML, block by block, against the bytes of its source now. Returns pages and blocks counted. */
function checkBuiltSite(tree: Tree, dist: string): { readonly pages: number; readonly blocks: number } {
  const { root, findings, lessons } = tree;
  const pages = listPages(root, dist);
  let blocks = 0;
  if (pages.length === 0) {
    findings.error(
      dist,
      'no built site here: build it first (pnpm check:excerpts builds it; or pnpm --filter @klog/docs build)',
    );
    return { pages: 0, blocks };
  }
  const byLesson = new Map(lessons.map((l) => [l.file, l]));
  const seenRefs = new Set<string>();
  const lessonPages = new Set(lessons.map((l) => pageOf(l.file, dist)));
  for (const lesson of lessons) {
    const page = pageOf(lesson.file, dist);
    if (!pages.includes(page))
      findings.error(lesson.file, `its page ${page} is not in the built site: rebuild it`);
  }
  const sourcePages = `${dist}/source/`;
  for (const page of pages) {
    if (page.startsWith(sourcePages)) {
      checkSourcePage(tree, page);
      continue;
    }
    if (page.endsWith('/index.html') && !lessonPages.has(page)) {
      findings.warn(page, 'a built page that no file under docs/ makes (left over from an older build?)');
    }
  }
  // Every file a lesson quotes has its whole-file page, where the excerpt headers link.
  for (const file of tree.referencedFiles) {
    const page = `${sourcePages}${file}/index.html`;
    if (existsSync(join(root, file)) && !pages.includes(page)) {
      findings.error(file, `the lessons quote ${file} but the site has no page of it (${page}): rebuild it`);
    }
  }
  for (const page of pages) {
    const built = readPage(root, page);
    const lesson = lessons.find((l) => pageOf(l.file, dist) === page);
    if (lesson && built.lang !== 'th')
      findings.error(page, `<html lang="${built.lang}">: the site's language is Thai (th)`);
    if (lesson?.chapter !== undefined) {
      for (const first of built.pasted) {
        findings.error(
          `${lesson.file} ⇄ ${page}`,
          `a code block in chapter ${lesson.chapter} that no source region or golden section produced (code is never pasted: use <Excerpt> or <RunOutput>): ${JSON.stringify(first.slice(0, 80))}`,
        );
      }
    }
    for (const block of built.blocks) {
      blocks++;
      checkBlock(tree, block, byLesson, seenRefs);
    }
  }
  for (const lesson of lessons) {
    for (const ref of lesson.references) {
      const key = atOf(ref);
      if (!seenRefs.has(key)) {
        findings.error(
          key,
          `referenced here but no block for it in the built site (${pageOf(lesson.file, dist)}): rebuild it`,
        );
      }
    }
  }
  return { pages: pages.length, blocks };
}

/** One built block of a lesson page against the region or golden section it shows. */
function checkBlock(
  tree: Tree,
  block: BuiltBlock,
  byLesson: Map<string, Lesson>,
  seenRefs: Set<string>,
): void {
  const { findings } = tree;
  const lessonAt = block.lesson ?? `${block.page} (no data-lesson)`;
  const lessonFile = (block.lesson ?? '').replace(/:\d+:\d+$/, '');
  const lesson = byLesson.get(lessonFile);
  const ref = lesson?.references.find((r) => atOf(r) === block.lesson);
  if (!block.lesson || !ref) {
    findings.error(
      `${lessonAt} ⇄ ${block.src}`,
      `a block in ${block.page} that no lesson line references now: the site is stale, rebuild it`,
    );
    return;
  }
  if (seenRefs.has(block.lesson)) {
    findings.error(
      `${block.lesson} ⇄ ${block.src}`,
      `two blocks in ${block.page} claim the same place in the lesson: one tag, one block`,
    );
    return;
  }
  seenRefs.add(block.lesson);
  if (block.kind !== 'region' && block.kind !== 'output') {
    findings.error(
      `${block.lesson} ⇄ ${block.src}`,
      `data-klog-kind="${block.kind}" is neither "region" nor "output"`,
    );
    return;
  }
  if (block.kind !== ref.kind) {
    findings.error(
      `${block.lesson} ⇄ ${block.src}`,
      `the built block says it is ${block.kind === 'region' ? 'a source region' : 'run output'} but the lesson writes ${ref.kind === 'region' ? '<Excerpt>' : '<RunOutput>'} here`,
    );
    return;
  }
  const refSrc =
    ref.kind === 'region' ? `${tree.norm(ref.file)}#${ref.name}` : `${tree.norm(ref.file)}#${ref.title}`;
  if (refSrc !== block.src) {
    findings.error(
      `${block.lesson} ⇄ ${block.src}`,
      `the lesson now references ${refSrc} here: the site is stale, rebuild it`,
    );
    return;
  }
  let now: { text: string; sha256: string; lines: string; lineAt: (i: number) => number } | undefined;
  if (block.kind === 'region') {
    const region = tree.regionsByFile.get(block.file)?.get(block.name);
    if (region) {
      now = {
        text: region.text,
        sha256: region.sha256,
        lines: `${region.beginLine + 1}-${region.endLine - 1}`,
        lineAt: (i) => region.lineNumbers[Math.min(i, region.lineNumbers.length - 1)] ?? region.beginLine,
      };
    }
  } else {
    const section = tree.sectionsOf(block.file)?.get(block.name);
    if (section) {
      now = {
        text: section.text,
        sha256: section.sha256,
        lines: `${section.firstLine}-${section.lastLine}`,
        lineAt: (i) => Math.min(section.firstLine + i, section.lastLine),
      };
    }
  }
  const what = block.kind === 'region' ? `region "${block.name}"` : `section "== ${block.name} =="`;
  if (!now) {
    // Never pass a block that cannot be compared: name it, even if the reference was reported too.
    findings.error(
      `${block.lesson} ⇄ ${block.file}`,
      `the built block shows ${what}, which is not in ${block.file}`,
    );
    return;
  }
  if (block.kind === 'output') {
    const command = tree.commandOf(block.file);
    const shown = block.commands;
    const want = command === undefined ? undefined : `$ ${command}`;
    if (want === undefined) {
      findings.error(
        `${block.lesson} ⇄ ${block.file}`,
        `the run output has no command in expected/manifest.json to check its caption against`,
      );
    } else if (shown.length !== 1 || shown[0] !== want) {
      findings.error(
        `${block.lesson} ⇄ expected/manifest.json`,
        `the command printed above the run output is not the one that makes ${block.file}`,
        unifiedDiff(
          `built HTML ${block.page} (${block.lesson})`,
          'expected/manifest.json',
          `${shown.join('\n')}\n`,
          `${want}\n`,
        ),
      );
    }
  } else if (lesson?.chapter !== undefined && (block.gloss ?? '').trim() === '') {
    findings.error(
      `${block.lesson} ⇄ ${block.src}`,
      `the built excerpt shows no Thai gloss: rebuild the site`,
    );
  }
  if (block.text !== now.text) {
    const i = firstDifferingLine(block.text, now.text);
    findings.error(
      `${block.lesson} ⇄ ${block.file}:${now.lineAt(i)}`,
      `the built block differs from the bytes of ${what} (source or golden file changed since the site was built, or the renderer changed the text): rebuild the site and review`,
      unifiedDiff(
        `built HTML ${block.page} (${block.lesson})`,
        `${block.file}:${now.lines}`,
        block.text,
        now.text,
      ),
    );
    return;
  }
  if (block.sha256 !== sha256(block.text)) {
    findings.error(
      `${block.lesson} ⇄ ${block.file}:${now.lines}`,
      `data-sha256 of the built block (${block.sha256 ?? 'missing'}) is not the hash of its text (${sha256(block.text)})`,
    );
  }
  if (block.lines !== now.lines) {
    findings.error(
      `${block.lesson} ⇄ ${block.file}:${now.lines}`,
      `the built block says lines ${block.lines ?? '?'} but ${what} is now at lines ${now.lines}: rebuild the site`,
    );
  }
}

/** A whole-file page (src/pages/source): its code must be the file's bytes now. */
function checkSourcePage(tree: Tree, page: string): void {
  const { root, findings } = tree;
  const shown = readSourcePage(root, page);
  if (!shown) {
    findings.error(page, 'a source page without its [data-klog-source] block');
    return;
  }
  if (!tree.referencedFiles.has(shown.file)) {
    findings.warn(
      page,
      `a page of ${shown.file}, which no lesson quotes now (left over from an older build?)`,
    );
  }
  const now = existsSync(join(root, shown.file)) ? readFileSync(join(root, shown.file), 'utf8') : undefined;
  if (now === undefined) {
    findings.error(page, `shows ${shown.file}, which does not exist`);
  } else if (now !== shown.text) {
    const i = firstDifferingLine(shown.text, now);
    findings.error(
      `${page} ⇄ ${shown.file}:${i + 1}`,
      `the page of ${shown.file} differs from the file now: rebuild the site`,
      unifiedDiff(`built HTML ${page}`, shown.file, shown.text, now),
    );
  }
}

/** 5. Regions nothing references: not wrong, but worth knowing. */
function listUnreferenced(tree: Tree, referenced: ReadonlySet<string>): void {
  for (const [file, regions] of tree.regionsByFile) {
    for (const region of regions.values()) {
      if (!referenced.has(`${file}#${region.name}`)) {
        tree.findings.warn(
          `${file}:${region.beginLine}`,
          `region "${region.name}" is not referenced by any lesson`,
        );
      }
    }
  }
}

/** The five phases in order, over one findings list. */
export function checkExcerpts(options: CheckOptions): CheckResult {
  const findings = new Findings();
  const tree = new Tree(options.root, findings);
  const regions = checkMarkers(tree);
  const references = checkReferences(tree);
  if (options.golden !== false) checkGolden(tree);
  const site = checkBuiltSite(tree, options.dist ?? DEFAULT_DIST);
  listUnreferenced(tree, references.referenced);
  return {
    findings: findings.list,
    stats: {
      lessons: tree.lessons.length,
      references: references.count,
      sourceFiles: tree.regionsByFile.size,
      regions,
      pages: site.pages,
      blocks: site.blocks,
    },
  };
}
