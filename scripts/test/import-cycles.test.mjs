// No import circle in hand-written code: every package's src/ (and the bench's, the site's) must have imports
// that form a tree-like graph, type-only imports included — a circle of types still ties the files into one
// unit a reader cannot take apart (issue 39 found the broker's handlers, context and ApiVersions table in a
// 33-file circle). Protocol's generated `src/apis/` is left out: each API's version files name each other by
// design (a version the same on the wire as an earlier one points at it). Dynamic `import()` is not counted:
// it is how a command or codec is loaded on first use.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ts = createRequire(join(ROOT, 'package.json'))('typescript');

const TREES = [
  ...readdirSync(join(ROOT, 'packages')).map((p) => join('packages', p, 'src')),
  'bench/src',
  'apps/docs/src',
];
const GENERATED = [join('packages', 'protocol', 'src', 'apis')];

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (GENERATED.some((g) => relative(join(ROOT, g), path) === '')) continue;
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The files a source imports or re-exports by a relative path (static imports, `import type` included). */
function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const spec = statement.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const base = resolve(dirname(file), spec.text);
    const candidates = [
      base.replace(/\.js$/, '.ts'),
      base.replace(/\.mjs$/, '.mts'),
      `${base}.ts`,
      join(base, 'index.ts'),
      base,
    ];
    const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
    if (hit !== undefined) out.push(hit);
  }
  return out;
}

/** Strongly connected components of more than one file (Tarjan's algorithm), or of one importing itself. */
function circles(graph) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indexOf = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexOf.get(w)));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

test('the circle finder finds a type-only circle and passes a tree', () => {
  const a = '/x/a.ts';
  const b = '/x/b.ts';
  const c = '/x/c.ts';
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [c]],
        [c, [a]],
      ]),
    ),
    [[a, b, c]],
  );
  assert.deepEqual(
    circles(
      new Map([
        [a, [b, c]],
        [b, [c]],
        [c, []],
      ]),
    ),
    [],
  );
  // `import type` counts, a dynamic import() does not.
  assert.deepEqual(
    importsOf(join(ROOT, 'scripts/test/x.ts'), "import type { A } from './import-cycles.test.mjs';"),
    [join(ROOT, 'scripts/test/import-cycles.test.mjs')],
  );
  assert.deepEqual(
    importsOf(join(ROOT, 'scripts/test/x.ts'), "const m = await import('./import-cycles.test.mjs');"),
    [],
  );
});

for (const tree of TREES) {
  const dir = join(ROOT, tree);
  if (!existsSync(dir)) continue;
  test(`${tree}: no import circle`, () => {
    const graph = new Map();
    for (const file of sources(dir)) graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
    const found = circles(graph).map((c) => c.map((f) => relative(dir, f)).join(' → '));
    assert.deepEqual(found, [], `import circles in ${tree}:\n${found.join('\n')}`);
  });
}
