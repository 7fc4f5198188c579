// Packages as people install them: pack each with `pnpm pack`, install the tarballs with npm into
// empty directories outside the workspace, and use them there. Also runs publint on every package
// and are-the-types-wrong on the libraries.
//
//   node scripts/pack-test.mjs        (after pnpm build)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packages = ['core', 'storage', 'model', 'cli'];
const work = mkdtempSync(join(tmpdir(), 'klog-pack-'));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
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

try {
  // The versions come from changesets: the config must parse and the pending changesets must name real packages.
  run('npx', ['changeset', 'status'], root);
  step('ok    changeset status');
  const tgz = {};
  for (const name of packages) {
    const dir = join(root, 'packages', name);
    run('pnpm', ['pack', '--pack-destination', tarballs], dir);
    const file = readdirSync(tarballs).find(
      (f) => f.startsWith(`klog-${name}-`) && !Object.values(tgz).includes(join(tarballs, f)),
    );
    tgz[name] = join(tarballs, file);
    step(`packed @klog/${name} → ${file}`);
    run('npx', ['publint', '--strict', dir], root);
    step(`ok    publint @klog/${name}`);
    if (name !== 'cli') {
      run('npx', ['attw', '--pack', dir, '--profile', 'esm-only'], root);
      step(`ok    are-the-types-wrong @klog/${name}`);
    }
  }

  const npmInstall = (dir, files) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'klog-pack-test', private: true, type: 'module' }),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], dir);
  };

  // @klog/core alone: the README example, in a project that has nothing else.
  const coreApp = join(work, 'core-alone');
  npmInstall(coreApp, [tgz.core]);
  const installed = readdirSync(join(coreApp, 'node_modules')).filter((n) => !n.startsWith('.'));
  expectEqual(
    '@klog/core installs with no dependencies',
    JSON.stringify(['@klog']),
    JSON.stringify(installed),
  );
  writeFileSync(
    join(coreApp, 'check.mjs'),
    `import { BatchMetadata, judge, ProducerStateEntry, toProducerEpoch, toProducerId, toSequence } from '@klog/core';
const entry = new ProducerStateEntry(toProducerId(1000));
const epoch = toProducerEpoch(0);
entry.addBatch(epoch, new BatchMetadata(toSequence(2), 2, 2, 5));
console.log(JSON.stringify([judge(entry, epoch, toSequence(3), toSequence(3)), judge(entry, epoch, toSequence(0), toSequence(2)), judge(entry, epoch, toSequence(7), toSequence(7))]));
`,
  );
  expectEqual(
    '@klog/core works installed alone',
    '[{"kind":"Append"},{"kind":"Duplicate","firstOffset":0,"lastOffset":2,"timestamp":5},{"kind":"OutOfOrderSequence","expected":3,"got":7}]\n',
    run('node', ['check.mjs'], coreApp),
  );

  // @klog/storage with its one workspace dependency, on real files.
  const storageApp = join(work, 'storage-alone');
  npmInstall(storageApp, [tgz.core, tgz.storage]);
  writeFileSync(
    join(storageApp, 'check.mjs'),
    `import { ProducerState } from '@klog/core';
import { appendIdempotent, Partition, rebuildProducerState } from '@klog/storage';
const dir = process.argv[2];
const value = new TextEncoder().encode('hello');
const p = Partition.open(dir, 'orders', 0);
const state = new ProducerState();
const a = appendIdempotent(p, state, 1000, 0, 0, [{ key: null, value }], 7);
const b = appendIdempotent(p, state, 1000, 0, 0, [{ key: null, value }], 7);
p.close();
const again = Partition.open(dir, 'orders', 0);
const rebuilt = rebuildProducerState(again.log);
console.log(JSON.stringify([a, b, again.logEndOffset, rebuilt.producerIds()]));
again.close();
`,
  );
  expectEqual(
    '@klog/storage works installed alone',
    '[{"kind":"Append","firstOffset":0,"lastOffset":0},{"kind":"Duplicate","firstOffset":0,"lastOffset":0,"timestamp":7},1,[1000]]\n',
    run('node', ['check.mjs', join(storageApp, 'data')], storageApp),
  );

  // @klog/model with core: the chapter's claim, checked from the tarballs.
  const modelApp = join(work, 'model-alone');
  npmInstall(modelApp, [tgz.core, tgz.model]);
  writeFileSync(
    join(modelApp, 'check.mjs'),
    `import { checkModel } from '@klog/model';
const five = checkModel({ inFlight: 5, batches: 6, losses: 1, restarts: 0 });
const six = checkModel({ inFlight: 6, batches: 6, losses: 1, restarts: 0 });
console.log(JSON.stringify([five.outcome.holds, six.outcome.holds, six.outcome.counterexample?.steps.length, six.outcome.counterexample?.violation.kind]));
`,
  );
  expectEqual(
    '@klog/model works installed alone',
    '[true,false,16,"written-but-failed"]\n',
    run('node', ['check.mjs'], modelApp),
  );

  // The CLI: npx klog prints every golden file, with the exit code the manifest expects.
  const cliApp = join(work, 'cli');
  npmInstall(cliApp, [tgz.core, tgz.storage, tgz.model, tgz.cli]);
  const manifest = JSON.parse(readFileSync(join(root, 'expected/manifest.json'), 'utf8'));
  for (const { file, args, status = 0 } of manifest.golden) {
    const klog = spawnSync('npx', ['--no-install', 'klog', ...args], {
      cwd: cliApp,
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
