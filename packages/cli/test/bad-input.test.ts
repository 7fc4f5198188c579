import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { klog } from './run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const file = join(scratch, 'a-file');
writeFileSync(file, 'not a directory');
const full = join(scratch, 'full');
mkdirSync(full);
writeFileSync(join(full, 'data.txt'), "someone else's data");
const dangling = join(scratch, 'dangling');
symlinkSync(join(scratch, 'nowhere'), dangling);
const cases: [string[], RegExp][] = [
  [['--seq', '9..7'], /--seq 9\.\.7: the first sequence is greater than the last/],
  [['--seq', 'x'], /--seq x: expected A\.\.B/],
  [['--seq', '7..'], /--seq 7\.\.: expected A\.\.B/],
  [['--seq', '0..2147483648'], /2147483648 is past the largest sequence number 2147483647/],
  [['--seq', '20000..20001'], /A can be at most 10000/],
  [['--pid', '-5'], /--pid -5: a producer id is a whole number/],
  [['--pid', '9007199254740993'], /--pid 9007199254740993: past/],
  [['--pid', '1e3'], /--pid 1e3/],
  [['--now-ms', 'soon'], /--now-ms soon: expected a whole number/],
  [['--bogus'], /unknown option '--bogus'/],
  [['--data-dir', file], /is a file, not a directory/],
  [['--data-dir', full], /is not empty/],
  [['--data-dir', ''], /^klog: --data-dir: the path is empty/],
  [['--data-dir', join(file, 'inside')], /--data-dir .*inside: .*a-file is a file, not a directory/],
  [['--data-dir', join(file, 'a', 'b')], /--data-dir .*b: .*a-file is a file, not a directory/],
  [['--data-dir', dangling], /--data-dir .*dangling: a symbolic link to .*nowhere, which does not exist/],
  // procfs refuses new directories with ENOENT, on which a recursive mkdir retries forever.
  ...(existsSync('/proc/self')
    ? ([
        [
          ['--data-dir', '/proc/klog-nope/x'],
          /cannot create \/proc\/klog-nope: \/proc does not take new directories/,
        ],
      ] as [string[], RegExp][])
    : []),
];

describe('bad input: one line on stderr naming the problem, exit 2, no stack trace', () => {
  for (const [args, message] of cases) {
    it(`idem-demo ${args.map((a) => JSON.stringify(a)).join(' ')}`, () => {
      const run = klog(['idem-demo', ...args]);
      expect(run.hung).toBe(false);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
      expect(run.stderr).toMatch(/^klog: /);
    });
  }

  it('a refused --data-dir is left as it was', () => {
    expect(readdirSync(full)).toEqual(['data.txt']);
  });

  it('the refused paths were not created', () => {
    expect(existsSync(join(scratch, 'nowhere'))).toBe(false);
    expect(existsSync('/proc/klog-nope')).toBe(false);
  });

  it('an unknown command: one line, with the suggestion and where the usage is', () => {
    const run = klog(['idem-dmeo']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      "klog: unknown command 'idem-dmeo' (Did you mean idem-demo?) (see klog --help)\n",
    );
  });

  it('a missing argument: one line naming the command whose usage to read', () => {
    const run = klog(['dump-log']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe("klog: missing required argument 'path' (see klog dump-log --help)\n");
  });
});

describe('help and version', () => {
  it('idem-demo --help documents every option and the fill rule', () => {
    const run = klog(['idem-demo', '--help']);
    expect(run.status).toBe(0);
    for (const flag of ['--pid', '--seq', '--resend', '--now-ms', '--data-dir'])
      expect(run.stdout).toContain(flag);
    expect(run.stdout).toContain('0..1 2..3 4..5 6..6');
  });

  it('--version prints the package version', () => {
    const run = klog(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
