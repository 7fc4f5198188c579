import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { grouped } from '../../src/model-check/report.js';
import { bin, klog, root } from '../run-klog.js';

describe('klog model-check', () => {
  it('holds at 5 in flight: exit 0, the counts printed, nothing on stderr', () => {
    const run = klog(['model-check']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^== ผล: ไม่มี schedule ไหนผิด ==$/m);
    expect(run.stdout).toMatch(/^state {8}[\d,]+ แบบที่ต่างกัน/m);
    expect(run.stdout).toMatch(/^schedule {5}[\d,]+ · /m);
    expect(run.stdout.match(/✓/g)).toHaveLength(4);
  });

  it('breaks at 6 in flight: exit 1, the counterexample on stdout, one line on stderr', () => {
    const run = klog(['model-check', '--in-flight', '6']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'klog: model-check: an invariant breaks in 16 steps (written-but-failed); the counterexample is above\n',
    );
    expect(run.stdout).toMatch(/^ {2}12 {2}broker {4}รับ 10\.\.10 → APPEND .* 0\.\.1 หลุดจากหน้าต่าง$/m);
    expect(run.stdout).toMatch(/^ {2}13 {2}สาย {7}ขาด: ack ของ 0\.\.1 หาย/m);
    expect(run.stdout).toMatch(
      /^ {2}15 {2}broker {4}รับ 0\.\.1 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0$/m,
    );
    expect(run.stdout).toMatch(/^== client จริงทำอะไรต่อ ==$/m);
    expect(run.stdout).toMatch(/kcat จบด้วย exit 1/);
    expect(run.stdout).toMatch(/0\.\.1 → APPEND · offset 11\.\.12/);
  });

  it('finds the mutation: a window of 4 breaks at 5 in flight', () => {
    const run = klog(['model-check', '--in-flight', '5', '--window', '4']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/ตัดจาก 5 ของ @klog\/core/);
    expect(run.stdout).toMatch(/ค้างได้ 5 batch แต่หน้าต่างจำได้ 4/);
  });

  it("shows the chapter's narrowing: a restart on a one-batch segment breaks 2 in flight", () => {
    const run = klog([
      'model-check',
      '--in-flight',
      '2',
      '--restarts',
      '1',
      '--segment-batches',
      '1',
      '--losses',
      '0',
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/restart ที่ขั้น \d+ สร้างหน้าต่างจาก segment ที่ active ซึ่งไม่มี 0\.\.1 แล้ว/);
  });

  it('gives up at --max-states with exit 3, proving nothing', () => {
    const run = klog(['model-check', '--max-states', '1000']);
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^klog: model-check: gave up after 1,000 states .* nothing proven/);
  });

  it('prints progress to stderr with --progress, and the figures stay on stdout', () => {
    const run = klog(['model-check', '--batches', '10', '--progress']);
    expect(run.status).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    // One line per 50,000 states (counted, not timed), then the total with the time it took.
    const states = Number(/^state {8}([\d,]+)/m.exec(run.stdout)![1]!.replaceAll(',', ''));
    expect(lines.length).toBe(Math.floor(states / 50_000) + 1);
    expect(lines[0]).toMatch(/^klog: model-check: 50,000 states, [\d,]+ transitions, \d+ steps deep$/);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^klog: model-check: ${grouped(states)} states in \\d+\\.\\d s$`),
    );
  });

  it('the golden run is the default run', () => {
    expect(klog(['model-check']).stdout).toBe(readFileSync(join(root, 'expected/07-model.txt'), 'utf8'));
  });
});

describe('klog model-check: bad usage is one line, exit 2', () => {
  const cases: [string[], RegExp][] = [
    [['--in-flight', '0'], /--in-flight 0: expected a whole number from 1 to 8/],
    [['--in-flight', '9'], /--in-flight 9: expected a whole number from 1 to 8/],
    [['--in-flight', 'five'], /--in-flight five: expected a whole number/],
    [['--in-flight', '-1'], /--in-flight -1: expected a whole number/],
    [['--batches', '13'], /--batches 13: expected a whole number from 1 to 12/],
    [['--losses', '2.5'], /--losses 2\.5: expected a whole number from 0 to 4/],
    [['--restarts', '4'], /--restarts 4: expected a whole number from 0 to 3/],
    [['--segment-batches', '99'], /--segment-batches 99/],
    [['--window', '6'], /--window 6: expected a whole number from 1 to 5/],
    [['--max-states', '0'], /--max-states 0: expected a whole number from 1 to 20000000/],
    [['--in-flight'], /option '--in-flight <n>' argument missing/],
    [['--bogus'], /unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    it(`model-check ${args.join(' ')}`, () => {
      const run = klog(['model-check', ...args]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^klog: /);
      expect(lines[0]).toMatch(message);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    });
  }

  it('--help lists every bound, the invariants and the exit codes', () => {
    const run = klog(['model-check', '--help']);
    expect(run.status).toBe(0);
    for (const flag of [
      '--in-flight',
      '--batches',
      '--losses',
      '--restarts',
      '--segment-batches',
      '--window',
      '--max-states',
      '--progress',
    ]) {
      expect(run.stdout).toContain(flag);
    }
    expect(run.stdout).toMatch(/Exit codes: 0 every schedule holds, 1 a counterexample/);
    expect(run.stdout).toContain('Invariants');
  });
});

// Missing, the file fails, unless the user opted out (KLOG_SKIP=script): scripts/test-machine.mjs.
const skipTty = requireTool('script', existsSync('/usr/bin/script'), '/usr/bin/script not found');

describe.skipIf(skipTty)('klog model-check on a terminal', () => {
  it('paints the verdicts and shows progress on stderr without being asked', () => {
    const command = `${process.execPath} ${bin} model-check --in-flight 6 --batches 10`;
    const run = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '' },
    });
    expect(run.stdout).toContain('\u001b[31mOUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(run.stdout).toContain('\u001b[32mAPPEND');
    expect(run.stdout).toMatch(/klog: model-check: [\d,]+ states in \d+\.\d s/);
  });
});
