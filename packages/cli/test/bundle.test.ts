import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_MS, root } from './run-klog.js';

// What `klog` runs once installed: bin/klog.js and the bundle it loads (scripts/bundle.mjs), not the tsc
// output the other tests run.
const command = join(root, 'packages/cli/bin/klog.js');
const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Preloaded into `klog serve`: on SIGUSR2 it prints the CommonJS files loaded so far, as one line. */
const listModules = join(scratch, 'list-modules.cjs');
writeFileSync(
  listModules,
  `process.on('SIGUSR2', () => require('node:fs').writeSync(1, 'modules ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));`,
);

/** Resolves to the first stdout line of `child` that matches `pattern`. */
function lineOf(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: string) => {
      seen += chunk;
      const line = seen.split('\n').find((l) => pattern.test(l));
      if (line === undefined) return;
      child.stdout.off('data', onData);
      resolve(line);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`klog exited (${code}) before ${pattern}: ${seen}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the bundled klog (bin/klog.js)', () => {
  it('prints its version', () => {
    const run = spawnSync(process.execPath, [command, '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it(
    'serve takes its data directory lock with the addon alone, and a second serve is refused it',
    async () => {
      const dataDir = join(scratch, 'data');
      const child = spawn(
        process.execPath,
        ['--require', listModules, command, 'serve', '--port', '0', '--data-dir', dataDir],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      try {
        await lineOf(child, /listening on 127\.0\.0\.1:\d+/);
        const listed = lineOf(child, /^modules /);
        child.kill('SIGUSR2');
        const modules = JSON.parse((await listed).slice('modules '.length)) as string[];
        // Issue 44: fs-native-extensions' own resolver (which-runtime, require-addon, bare-*) cost 5 MiB of
        // RSS; the bundle loads the prebuilt addon directly.
        expect(modules.filter((m) => /node_modules/.test(m))).toEqual([
          expect.stringMatching(/fs-native-extensions[/\\]prebuilds[/\\].+\.node$/),
        ]);
        const second = spawnSync(process.execPath, [command, 'serve', '--port', '0', '--data-dir', dataDir], {
          encoding: 'utf8',
          timeout: HANG_MS,
        });
        expect(second.status).not.toBe(0);
        expect(second.stderr).toContain(`is in use by process ${child.pid}`);
      } finally {
        const exited = exitOf(child);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    },
    HANG_MS,
  );
});
