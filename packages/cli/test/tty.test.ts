import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bin } from './run-klog.js';

/**
 * `script` (util-linux) runs the binary on a pseudo-terminal, as a person at a terminal would.
 * `KLOG_SCRIPT` points the test at another path (to see what it does without one, for instance).
 */
const SCRIPT = process.env['KLOG_SCRIPT'] ?? '/usr/bin/script';
const hasScript = existsSync(SCRIPT);
if (!hasScript) {
  // As the site's browser test does without Chromium: CI (CI set) fails, a developer is told loudly.
  const message = `${SCRIPT} is missing, so the colour test on a terminal cannot run. Install it with: sudo apt-get install -y bsdutils`;
  if (process.env['CI']) throw new Error(`CI: ${message}`);
  console.warn(`\n${'!'.repeat(78)}\n!! CANNOT RUN: ${message}\n${'!'.repeat(78)}\n`);
}

function onTty(env: NodeJS.ProcessEnv): string {
  const command = `${process.execPath} ${bin} idem-demo --now-ms 0`;
  const run = spawnSync(SCRIPT, ['-qec', command, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(run.status).toBe(0);
  return run.stdout;
}

describe.skipIf(!hasScript)('colour on a terminal', () => {
  it('is used on a TTY', () => {
    const out = onTty({ NO_COLOR: '' });
    expect(out).toContain('\u001b[32mAPPEND');
    expect(out).toContain('\u001b[1m== ');
  });

  it('is never used with NO_COLOR, even on a TTY', () => {
    expect(onTty({ NO_COLOR: '1' }).includes('\u001b[')).toBe(false);
  });
});
