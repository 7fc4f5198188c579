// Golden files: each is the stdout of the built `klog` for the args in expected/manifest.json.
//   node scripts/golden.mjs bless   regenerate them on purpose (like trycmd's TRYCMD=overwrite)
//   node scripts/golden.mjs check   fail, with a diff, if any differs from what the CLI prints now
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages/cli/dist/bin.js');
const manifest = JSON.parse(readFileSync(join(root, 'expected/manifest.json'), 'utf8'));
const mode = process.argv[2];
if (mode !== 'bless' && mode !== 'check') {
  console.error('usage: node scripts/golden.mjs bless|check');
  process.exit(2);
}
if (!existsSync(bin)) {
  console.error(`golden: ${bin} is missing; build first (pnpm build)`);
  process.exit(2);
}

let failed = 0;
// An entry may expect a non-zero exit (`"status": 1`: a run whose point is a failure, such as a counterexample).
for (const { file, args, status = 0 } of manifest.golden) {
  const path = join(root, 'expected', file);
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (run.status !== status) {
    console.error(`golden: klog ${args.join(' ')} exited ${run.status}, expected ${status}\n${run.stderr}`);
    process.exit(1);
  }
  if (mode === 'bless') {
    const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    writeFileSync(path, run.stdout);
    console.log(
      `${before === run.stdout ? 'unchanged' : 'blessed  '} expected/${file} ← klog ${args.join(' ')}`,
    );
  } else {
    const golden = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (golden === run.stdout) {
      console.log(`ok        expected/${file}`);
    } else {
      failed++;
      console.error(`DIFFERS   expected/${file} ⇄ klog ${args.join(' ')}`);
      const diff = spawnSync(
        'diff',
        ['-u', '--label', `expected/${file}`, '--label', `klog ${args.join(' ')}`, path, '-'],
        {
          input: run.stdout,
          encoding: 'utf8',
        },
      );
      console.error(diff.stdout);
    }
  }
}
if (failed > 0) {
  console.error(
    `golden: ${failed} file(s) differ; if the change is meant, run pnpm bless and review the diff`,
  );
  process.exit(1);
}
