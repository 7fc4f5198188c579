import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bin } from './run-klog.js';

/** `script` (util-linux) runs the binary on a pseudo-terminal, as a person at a terminal would. */
const hasScript = existsSync('/usr/bin/script');

function onTty(env: NodeJS.ProcessEnv): string {
  const command = `${process.execPath} ${bin} idem-demo --now-ms 0`;
  const run = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], {
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
