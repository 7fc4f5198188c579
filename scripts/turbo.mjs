// turbo as every root script runs it: telemetry off and no update notice (turbo 2.11 is pinned in the
// lockfile on purpose), decided here once instead of on every line of package.json.
//   node scripts/turbo.mjs run test --concurrency=2
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const turbo = join(dirname(require.resolve('turbo/package.json')), 'bin', 'turbo');
const run = spawnSync(process.execPath, [turbo, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
});
if (run.error) throw run.error;
process.exit(run.status ?? (run.signal === 'SIGINT' ? 130 : 1));
