import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_DIR } from '../src/paths.js';

/** The built `pnpm bench` entry point, on bad input only: a real run is minutes long and never a test. */
const main = join(BENCH_DIR, 'dist', 'main.js');
const bench = (args: string[]) => spawnSync(process.execPath, [main, ...args], { encoding: 'utf8' });

describe('pnpm bench on bad input: one line naming the problem, exit 2, nothing measured', () => {
  const cases: [string[], RegExp][] = [
    [['--bogus'], /^klog bench: Unknown option '--bogus'/],
    [
      ['--only', 'codec,nope'],
      /^klog bench: --only codec,nope: expected some of codec, append, rebuild, memory/,
    ],
    [['--only', 'codec', '--write'], /^klog bench: --write needs every group/],
    [['--write', '--no-write'], /^klog bench: --write and --no-write contradict each other/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' '), () => {
      const run = bench(args);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toMatch(message);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    });
  }

  it('--help prints the usage and exits 0', () => {
    const run = bench(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: pnpm bench \[--quick\]/);
  });
});
