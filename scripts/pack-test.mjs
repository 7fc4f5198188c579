// Packages as people install them: pack each published package with `pnpm pack` (scripts/pack.mjs),
// install the tarballs with npm into empty directories outside the workspace, and use them there:
// every TypeScript example of a library's README is compiled (with the project's TypeScript, strict,
// library checks on) and run twice, its output compared with the `// Output:` it promises; the CLI's
// golden files are compared with what `npx klog` prints. Also runs publint on every package,
// are-the-types-wrong on the libraries, and `changeset status`.
//
//   node scripts/pack-test.mjs        (after pnpm build)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAll, publishedPackages, root } from './pack.mjs';
import { readmeExamples } from './readme-examples.mjs';

const work = mkdtempSync(join(tmpdir(), 'klog-pack-'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let failures = 0;

function step(message) {
  console.log(`pack-test: ${message}`);
}
function run(cmd, args, cwd, extra = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', ...extra });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}
function expectEqual(what, expected, actual) {
  if (expected === actual) {
    step(`ok    ${what}`);
    return;
  }
  failures++;
  console.error(`pack-test: FAIL  ${what}`);
  const actualFile = join(work, 'actual.txt');
  writeFileSync(actualFile, actual);
  const diff = spawnSync('diff', ['-u', '--label', 'expected', '--label', 'actual', '-', actualFile], {
    input: expected,
    encoding: 'utf8',
  });
  console.error(diff.stdout);
}

/** An empty npm project in `dir` with `tarballs` installed, as a user would have it. */
function npmProject(dir, tarballs) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'klog-pack-test', private: true, type: 'module' }),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], dir);
}

/** The package and every workspace package it depends on, transitively. */
function withWorkspaceDeps(pkg, all) {
  const byName = new Map(all.map((p) => [p.name, p]));
  const needed = new Set([pkg.name]);
  const queue = [pkg.name];
  while (queue.length > 0) {
    const manifest = JSON.parse(readFileSync(join(byName.get(queue.pop()).dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (byName.has(dep) && !needed.has(dep)) {
        needed.add(dep);
        queue.push(dep);
      }
    }
  }
  return all.filter((p) => needed.has(p.name));
}

/**
 * Compile a library's README examples in `app` (which has the library installed) and run each twice.
 * A library whose types need nothing of Node is compiled without Node's types and with the DOM's
 * console only, as a browser project would: that is what its published types promise.
 */
function readmeExamplesWork(pkg, manifest, app) {
  const examples = readmeExamples(readFileSync(join(pkg.dir, 'README.md'), 'utf8'));
  if (examples.length === 0) return;
  const nodeTypes = Object.keys(manifest.dependencies ?? {}).includes('@types/node');
  for (const [i, example] of examples.entries()) writeFileSync(join(app, `readme-${i + 1}.ts`), example.code);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        ...(nodeTypes ? {} : { types: [], lib: ['ES2022', 'DOM'] }),
      },
      include: ['readme-*.ts'],
    }),
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
  step(
    `ok    ${pkg.name}: README examples compile (strict, library types checked${nodeTypes ? '' : ', no @types/node'})`,
  );
  examples.forEach((example, i) => {
    for (const round of [1, 2]) {
      const out = run(process.execPath, [join('out', `readme-${i + 1}.js`)], app);
      if (example.output === undefined) {
        step(`ok    ${pkg.name}: README example at line ${example.line} runs (run ${round})`);
      } else {
        expectEqual(`${pkg.name}: README example at line ${example.line}, run ${round}`, example.output, out);
      }
    }
  });
}

try {
  // The versions come from changesets: the config must parse and the pending changesets must name real packages.
  run('npx', ['changeset', 'status'], root);
  step('ok    changeset status');
  const packages = publishedPackages();
  const tarballs = packAll(join(work, 'tarballs'));
  for (const pkg of packages) {
    step(`packed ${pkg.name} → ${tarballs[pkg.name]}`);
    run('npx', ['publint', '--strict', pkg.dir], root);
    step(`ok    publint ${pkg.name}`);
    const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
    if (manifest.types !== undefined) {
      run('npx', ['attw', '--pack', pkg.dir, '--profile', 'esm-only'], root);
      step(`ok    are-the-types-wrong ${pkg.name}`);
    }
  }

  // Each library alone (with only the workspace packages it depends on), in an empty project.
  for (const pkg of packages) {
    const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
    if (manifest.types === undefined) continue;
    const app = join(work, `${pkg.name.replace('@klog/', '')}-alone`);
    npmProject(
      app,
      withWorkspaceDeps(pkg, packages).map((p) => tarballs[p.name]),
    );
    if (Object.keys(manifest.dependencies ?? {}).length === 0) {
      const installed = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
      expectEqual(
        `${pkg.name} installs with no dependencies`,
        JSON.stringify(['@klog']),
        JSON.stringify(installed),
      );
    }
    readmeExamplesWork(pkg, manifest, app);
  }

  // The CLI: npx klog prints the golden files, with the exit code the manifest expects.
  const cli = packages.find((p) => p.name === '@klog/cli');
  const cliApp = join(work, 'cli');
  npmProject(
    cliApp,
    withWorkspaceDeps(cli, packages).map((p) => tarballs[p.name]),
  );
  if (!existsSync(join(cliApp, 'node_modules/.bin/klog')))
    throw new Error('npm did not link the klog command');
  const manifest = JSON.parse(readFileSync(join(root, 'expected/manifest.json'), 'utf8'));
  for (const { file, args, status = 0 } of manifest.golden) {
    // The installed klog, run from the repository's root as `pnpm bless` runs it: a path in the
    // arguments (a lab file) is relative to the root.
    const klog = spawnSync(join(cliApp, 'node_modules/.bin/klog'), args, {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    if (klog.status !== status) {
      throw new Error(`npx klog ${args.join(' ')} exited ${klog.status}, expected ${status}\n${klog.stderr}`);
    }
    const out = klog.stdout;
    expectEqual(
      `npx klog ${args.join(' ')} = expected/${file}`,
      readFileSync(join(root, 'expected', file), 'utf8'),
      out,
    );
  }
} catch (error) {
  failures++;
  console.error(`pack-test: FAIL  ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`pack-test: ${failures} failure(s)`);
  process.exit(1);
}
step('all packages work installed from their tarballs');
