// turbo as every root script runs it: telemetry off and no update notice (turbo 2.11 is pinned in the
// lockfile on purpose), decided here once instead of on every line of package.json.
//   node scripts/turbo.mjs run test --concurrency=2
//   node scripts/turbo.mjs --quiet run build --filter=@klog/cli   (prints turbo's output only if it fails)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const turbo = join(dirname(require.resolve('turbo/package.json')), 'bin', 'turbo');
const quiet = process.argv[2] === '--quiet';
const args = process.argv.slice(quiet ? 3 : 2);
const run = spawnSync(process.execPath, [turbo, ...args], {
  stdio: quiet ? ['inherit', 'pipe', 'pipe'] : 'inherit',
  encoding: 'utf8',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
});
if (run.error) throw run.error;
const status = run.status ?? (run.signal === 'SIGINT' ? 130 : 1);
if (quiet && status !== 0) process.stderr.write(`${run.stdout}${run.stderr}`);
process.exit(status);
