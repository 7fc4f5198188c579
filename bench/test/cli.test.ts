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

/** bench:storage and bench:broker take their arguments the same way (src/args.ts). */
describe.each([
  ['storage-figures.js', 'klog bench:storage', 'pnpm bench:storage'],
  ['broker-main.js', 'klog bench:broker', 'pnpm bench:broker'],
])('%s on bad input: one line and the usage line, exit 2, nothing measured', (file, name, usage) => {
  const script = (args: string[]) =>
    spawnSync(process.execPath, [join(BENCH_DIR, 'dist', file), ...args], { encoding: 'utf8' });
  it.each([
    [['--bogus'], `${name}: Unknown option '--bogus'`],
    [['stray'], `${name}: Unexpected argument 'stray'`],
  ])('%j', (args, first) => {
    const run = script(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(first);
    expect(lines[1]).toMatch(new RegExp(`^usage: ${usage} \\[--quick[\\] ]`));
  });

  it('--help prints the usage and exits 0', () => {
    const run = script(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^usage: ${usage} \\[--quick[\\] ]`));
    expect(run.stderr).toBe('');
  });
});

it('bench:storage --only names the unknown group', () => {
  const run = spawnSync(
    process.execPath,
    [join(BENCH_DIR, 'dist', 'storage-figures.js'), '--only', 'append,nope'],
    { encoding: 'utf8' },
  );
  expect(run.status).toBe(2);
  expect(run.stderr.split('\n')[0]).toBe(
    'klog bench:storage: --only append,nope: unknown group nope; groups: recovery, fetch, open, append, codec',
  );
});

describe('pnpm bench:broker --klog: another build, measured without writing', () => {
  const broker = (args: string[]) =>
    spawnSync(process.execPath, [join(BENCH_DIR, 'dist', 'broker-main.js'), ...args], { encoding: 'utf8' });
  it.each([
    [
      ['--klog', '/nonexistent/bin.js', '--no-write'],
      '/nonexistent/bin.js is missing: build @klog/cli first',
    ],
    [['--klog', '/nonexistent/bin.js'], '--klog measures another build: add --no-write'],
  ])('%j', (args, first) => {
    const run = broker(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toContain(first);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});
