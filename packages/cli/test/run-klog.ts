import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built binary, as a user runs it: tests run it as a child process. */
export const bin = join(root, 'packages/cli/dist/bin.js');

export function klog(args: string[], env: NodeJS.ProcessEnv = {}) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build @klog/cli first`);
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
