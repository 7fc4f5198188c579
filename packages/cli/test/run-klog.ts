import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built binary, as a user runs it: tests run it as a child process. */
export const bin = join(root, 'packages/cli/dist/bin.js');

/**
 * Run the built klog and wait for it. A run that is still going after `HANG_MS` is killed and reported
 * as hung (status null, `hung` true): far longer than any command takes on a loaded machine, so only a
 * real hang reaches it, and the test fails with a message instead of at vitest's timeout.
 */
export function klog(args: string[], env: NodeJS.ProcessEnv = {}, hangMs = HANG_MS, cwd?: string) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build @klog/cli first`);
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
    timeout: hangMs,
    killSignal: 'SIGKILL',
    ...(cwd === undefined ? {} : { cwd }),
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, hung: run.signal === 'SIGKILL' };
}

export const HANG_MS = 30_000;

/**
 * For a command that drives real clients against real brokers for tens of seconds (`klog ack-loss-demo`):
 * still only a hang reaches it on a loaded machine.
 */
export const SLOW_HANG_MS = 280_000;
/** The test timeout for such a command (vitest.shared.ts's LONG_TIMEOUT_MS). */
export const SLOW_TEST_MS = 300_000;
