// ARCHITECTURE.md and CONTRIBUTING.md name the code by its paths. Every path they name must exist, so a
// renamed or moved file fails here until the pages say where it went. The pages must also keep the sections
// they promise, and "Five questions" its five answers, each naming a file that exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What a repo-relative path written in the pages starts with. */
const ROOTS = ['packages', 'apps', 'scripts', 'bench', 'docs', 'expected', '.ci'];

const PAGES = {
  'ARCHITECTURE.md': [
    'Packages',
    'The path of a Produce',
    'The path of a Fetch',
    'The path of an OffsetCommit',
    'Where each Kafka concept lives',
    'Five questions',
  ],
  'CONTRIBUTING.md': ['Commands', 'Adding an API', 'Adding a setting', 'Standards'],
};

function read(page) {
  return readFileSync(join(ROOT, page), 'utf8');
}

/**
 * A word that looks like a repo path, as it is to be looked for: a `#fragment` or `:line` suffix cut, and a
 * placeholder or glob (`<name>.def`, `*.ts`) cut back to the folder before it. Undefined for any other word.
 */
function asPath(word) {
  const path = word.replace(/#.*$/, '').replace(/:\d+(-\d+)?$/, '');
  const first = path.split('/')[0];
  if (!ROOTS.includes(first)) return undefined;
  const segments = path.split('/');
  const wild = segments.findIndex((s) => /[<>*?{}[\]]/.test(s));
  const kept = wild === -1 ? segments : segments.slice(0, wild);
  const out = kept.filter((s) => s !== '').join('/');
  if (out.split('/').includes('..')) return undefined;
  return out;
}

/** Every repo path named in `markdown`: each word of each backticked span, and each link's target. */
function namedPaths(markdown) {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const links = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  const words = [...spans.flatMap((s) => s.split(/\s+/)), ...links];
  return [...new Set(words.map(asPath).filter((p) => p !== undefined))];
}

function missing(paths) {
  return paths.filter((p) => !existsSync(join(ROOT, p)));
}

/** The page's headings, without their #s. */
function headings(markdown) {
  return markdown
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, '').trim());
}

/** The text under `## heading`, up to the next heading of level 2 or 1. */
function section(markdown, heading) {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  assert.notEqual(start, -1, `no "## ${heading}"`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^#{1,2} /.test(line));
  return (end === -1 ? rest : rest.slice(0, end)).join('\n');
}

/** The items of a numbered list at the start of lines (`1. …`), each with its continuation lines. */
function numberedItems(text) {
  const items = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)\. /.exec(line);
    if (m !== null) items.push({ number: Number(m[1]), text: line });
    else if (items.length > 0 && /^\s+\S/.test(line)) items[items.length - 1].text += `\n${line}`;
  }
  return items;
}

test('the path finder: suffixes cut, placeholders cut back to their folder, other words left alone', () => {
  const text = [
    '`packages/core/src/producer-state-entry.ts#L31` and `packages/storage/src/log/log.ts:120-140`,',
    'run `node scripts/golden.mjs bless`, see `packages/protocol/definitions/<api>.def`,',
    'not `Partition.append` nor `log.retention.ms`; a link [x](apps/docs/README.md).',
  ].join('\n');
  assert.deepEqual(namedPaths(text), [
    'packages/core/src/producer-state-entry.ts',
    'packages/storage/src/log/log.ts',
    'scripts/golden.mjs',
    'packages/protocol/definitions',
    'apps/docs/README.md',
  ]);
});

test('a renamed file is caught', () => {
  const text = '`packages/core/src/producer-state-entry.ts` and `packages/core/src/producer-window.ts:12`';
  assert.deepEqual(missing(namedPaths(text)), ['packages/core/src/producer-window.ts']);
});

for (const [page, wanted] of Object.entries(PAGES)) {
  test(`${page}: every path it names exists`, () => {
    const paths = namedPaths(read(page));
    // A page this size names dozens of files: far fewer means the finder broke, not that the page is right.
    assert.ok(paths.length >= 20, `${page} names only ${paths.length} paths`);
    assert.deepEqual(missing(paths), [], `${page} names paths that do not exist (renamed? moved?)`);
  });

  test(`${page}: has its sections`, () => {
    const found = headings(read(page));
    for (const heading of wanted) assert.ok(found.includes(heading), `${page} has no section "${heading}"`);
  });
}

test('ARCHITECTURE.md: "Packages" names every package under packages/', () => {
  const text = section(read('ARCHITECTURE.md'), 'Packages');
  const named = new Set(namedPaths(text));
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(ROOT, 'packages', e.name, 'package.json')))
    .map((e) => `packages/${e.name}`);
  assert.ok(packages.length > 0);
  assert.deepEqual(
    packages.filter((p) => !named.has(p)),
    [],
    'packages ARCHITECTURE.md does not describe',
  );
});

test('ARCHITECTURE.md: each step of each request path names a file that exists', () => {
  const page = read('ARCHITECTURE.md');
  for (const heading of ['The path of a Produce', 'The path of a Fetch', 'The path of an OffsetCommit']) {
    const steps = numberedItems(section(page, heading));
    assert.ok(steps.length >= 5, `"${heading}" has ${steps.length} steps`);
    steps.forEach((step, i) => {
      assert.equal(step.number, i + 1, `"${heading}": steps are numbered 1, 2, 3, …`);
      const paths = namedPaths(step.text);
      assert.ok(paths.length > 0, `"${heading}" step ${step.number} names no file`);
      assert.deepEqual(missing(paths), [], `"${heading}" step ${step.number}`);
    });
  }
});

test('ARCHITECTURE.md: "Five questions" has five answers, each naming a file that exists', () => {
  const answers = numberedItems(section(read('ARCHITECTURE.md'), 'Five questions'));
  assert.deepEqual(
    answers.map((a) => a.number),
    [1, 2, 3, 4, 5],
  );
  for (const answer of answers) {
    const files = namedPaths(answer.text).filter((p) => /\.[a-z]+$/.test(p));
    assert.ok(files.length > 0, `answer ${answer.number} names no file`);
    assert.deepEqual(missing(files), [], `answer ${answer.number}`);
  }
});
