import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { requireTool } from '../../../scripts/test-machine.mjs';
import { bin } from './run-klog.js';

/**
 * `script` (util-linux) runs the binary on a pseudo-terminal, as a person at a terminal would.
 * `KLOG_SCRIPT` points the test at another path (to see what it does without one, for instance).
 */
const SCRIPT = process.env['KLOG_SCRIPT'] ?? '/usr/bin/script';
// Missing, the file fails, unless the user opted out (KLOG_SKIP=script): scripts/test-machine.mjs.
const skipTty = requireTool('script', existsSync(SCRIPT), `${SCRIPT} not found`);

function onTty(env: NodeJS.ProcessEnv): string {
  const command = `${process.execPath} ${bin} idem-demo --now-ms 0`;
  const run = spawnSync(SCRIPT, ['-qec', command, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(run.status).toBe(0);
  return run.stdout;
}

describe.skipIf(skipTty)('colour on a terminal', () => {
  it('is used on a TTY', () => {
    const out = onTty({ NO_COLOR: '' });
    expect(out).toContain('\u001b[32mAPPEND');
    expect(out).toContain('\u001b[1m== ');
  });

  it('is never used with NO_COLOR, even on a TTY', () => {
    expect(onTty({ NO_COLOR: '1' }).includes('\u001b[')).toBe(false);
  });
});
