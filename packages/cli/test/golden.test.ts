import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { klog, root, SLOW_HANG_MS, SLOW_TEST_MS } from './run-klog.js';

const manifest = JSON.parse(readFileSync(join(root, 'expected/manifest.json'), 'utf8')) as {
  golden: { file: string; args: string[]; status?: number }[];
};

describe('golden outputs, byte for byte', () => {
  it('the manifest holds the chapter run first', () => {
    expect(manifest.golden[0]).toEqual({
      file: '07-idem.txt',
      args: ['idem-demo', '--pid', '1000', '--seq', '7..9', '--resend', '--now-ms', '1700000000000'],
    });
  });

  for (const { file, args, status = 0 } of manifest.golden) {
    it(
      `klog ${args.join(' ')} prints expected/${file}`,
      () => {
        // The ack-loss demo drives four real clients against real brokers: tens of seconds, more when loaded.
        // From the repository's root, as `pnpm bless` runs them: a path in the arguments is relative to it.
        const run = klog(args, {}, SLOW_HANG_MS, root);
        expect(run.hung).toBe(false);
        expect(run.status).toBe(status);
        // A run that ends in failure on purpose says so in one line on stderr; a good run says nothing there.
        if (status === 0) expect(run.stderr).toBe('');
        else expect(run.stderr).toMatch(/^klog: [^\n]+\n$/);
        expect(run.stdout).toBe(readFileSync(join(root, 'expected', file), 'utf8'));
      },
      SLOW_TEST_MS,
    );
  }

  it('is deterministic and free of colour codes when piped', () => {
    const args = manifest.golden[0]!.args;
    const a = klog(args);
    const b = klog(args);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout.includes('\u001b[')).toBe(false);
    expect(a.stdout).not.toMatch(/klog-idem-demo-|\/tmp\//);
  });
});

describe('the chapter facts in the default run', () => {
  const out = readFileSync(join(root, 'expected/07-idem.txt'), 'utf8');
  const sections = out.split(/^(?=== )/m);
  const find = (word: string) => sections.find((s) => s.split('\n')[0]!.includes(word)) ?? '';

  it('has the eight sections in order', () => {
    expect(sections.map((s) => s.split('\n')[0])).toHaveLength(8);
  });

  it('fills the window with 0..1 2..3 4..5 6..6 7..9 at base offsets 0 2 4 6 7, LEO 10', () => {
    const fill = sections[1]!;
    const rows = [...fill.matchAll(/^ {2}(\d+\.\.\d+)\s+APPEND\s+(\d+)\s+\[/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    expect(rows).toEqual([
      ['0..1', 0],
      ['2..3', 2],
      ['4..5', 4],
      ['6..6', 6],
      ['7..9', 7],
    ]);
    expect(fill).toMatch(/\[0\.\.1 2\.\.3 4\.\.5 6\.\.6 7\.\.9\]\n/);
    expect(fill).toMatch(/^log end offset 10$/m);
  });

  it('resend, gap, overflow, restart and edges show the chapter numbers', () => {
    expect(sections[2]).toMatch(/DUPLICATE → ตอบด้วย offset ครั้งแรก 7\.\.9/);
    expect(sections[2]).toMatch(/^base_offset\s+7$/m);
    expect(sections[2]).toMatch(/^log end offset\s+10 /m);
    expect(sections[3]).toMatch(/OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 13/);
    expect(sections[4]).toMatch(/\[10\.\.10 11\.\.11 12\.\.12 13\.\.13 14\.\.14\]/);
    expect(sections[4]).toMatch(/OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7/);
    expect(sections[5]).toMatch(/\[1000\]/);
    expect(sections[5]).toMatch(/14\.\.14 อีกครั้งหลังเปิดใหม่ → DUPLICATE · ได้ offset 14\.\.14 ของครั้งแรก/);
    expect(find('ขอบ')).toMatch(/pid 1001 seq 0\.\.2 → APPEND · base_offset 15/);
    expect(find('ขอบ')).toMatch(/segment\.bytes = 256/);
    expect(find('ขอบ')).toMatch(/→ 8 segment/);
    expect(find('ขอบ')).toMatch(/หน้าต่างมี\s+\[3\.\.3 4\.\.4 5\.\.5 6\.\.6 7\.\.7\]/);
    expect(find('ขอบ')).toMatch(/เปิดใหม่แล้วเหลือ\s+\[7\.\.7\]/);
    expect(find('transaction')).toMatch(/LEO >= HW >= LSO/);
  });
});

describe('a second parameter set gives a consistent, checked run', () => {
  it('pid 42, seq 12..20', () => {
    const run = klog(['idem-demo', '--pid', '42', '--seq', '12..20', '--resend', '--now-ms', '5']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/ {2}0\.\.6 +APPEND +0 +\[0\.\.6\]/);
    expect(run.stdout).toMatch(/DUPLICATE → ตอบด้วย offset ครั้งแรก 12\.\.20 · timestamp ครั้งแรก 5/);
    expect(run.stdout).toMatch(/รอ 21 ได้ 24/);
    expect(run.stdout).toMatch(/รอ 26 ได้ 12/);
    expect(run.stdout).toMatch(/pid 43 seq 0\.\.8 → APPEND · base_offset 26/);
  });

  it('without --resend the resend step is skipped, the rest still checked', () => {
    const run = klog(['idem-demo', '--now-ms', '0']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/ไม่ได้ใส่ --resend/);
    expect(run.stdout).not.toMatch(/DUPLICATE → ตอบด้วย offset ครั้งแรก 7\.\.9/);
  });

  it('small and edge values: A = 0 and a single-record batch', () => {
    for (const seq of ['0..0', '1..1', '5..5', '10000..10999']) {
      const run = klog(['idem-demo', '--seq', seq, '--resend', '--now-ms', '0']);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
  });
});
