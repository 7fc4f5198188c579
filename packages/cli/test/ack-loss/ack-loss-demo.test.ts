import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Told } from '../../src/ack-loss/clients/client.js';
import type { LogRecord } from '../../src/ack-loss/read-back.js';
import { earlierCopies, faultedOffsets, parseFault, tally } from '../../src/ack-loss/tally.js';
import { bin, klog, SLOW_HANG_MS, SLOW_TEST_MS } from '../run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-ack-loss-demo-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const rec = (offset: number, key: string, producerId = -1): LogRecord => ({
  offset,
  key,
  value: `value of ${key}`,
  producerId,
  producerEpoch: producerId < 0 ? -1 : 0,
  sequence: -1,
});

describe('counting a run (tally.ts)', () => {
  it('duplicates, missing, strangers, and which offsets told hold their message', () => {
    const keys = ['m-0', 'm-1', 'm-2'];
    const log = [rec(0, 'm-0'), rec(1, 'm-0'), rec(2, 'm-1'), rec(3, 'x'), rec(4, 'm-0')];
    const told: Told[] = [
      { key: 'm-0', offset: 4 },
      { key: 'm-1', offset: 0 },
      { key: 'm-2', error: 'Producing messages failed.' },
    ];
    const t = tally(keys, told, log, true);
    expect(t).toMatchObject({
      sent: 3,
      acked: 2,
      failed: 1,
      firstError: 'Producing messages failed.',
      onLog: 5,
      duplicates: 2,
      missing: 1,
      strangers: 1,
      toldRight: 1,
    });
    expect(t.copies.get('m-0')).toEqual([0, 1, 4]);
    expect(earlierCopies(t)).toEqual([0, 1]);
  });

  it('reports that name no message (kcat): in the order sent when in order, else by the record at the offset told', () => {
    const keys = ['m-0', 'm-1'];
    const log = [rec(0, 'm-1'), rec(1, 'm-0')];
    const told: Told[] = [
      { key: undefined, offset: 1 },
      { key: undefined, offset: 0 },
    ];
    expect(tally(keys, told, log, true).toldRight).toBe(2);
    // In order, a report pointing at another message's record is wrong.
    expect(tally(keys, [...told].reverse(), log, true).toldRight).toBe(0);
    // Out of order, the record tells which message; two reports of one message count once.
    expect(tally(keys, [...told].reverse(), log, false).toldRight).toBe(2);
    expect(tally(keys, [told[0]!, told[0]!], log, false).toldRight).toBe(1);
  });

  it("reads the broker's fault lines back", () => {
    const f = parseFault(
      'fault: closed the connection instead of answering produce #4, ack-loss-0 offsets 30..39, other-2 offsets 5..5',
    );
    expect(f).toMatchObject({
      kind: 'close',
      ranges: [
        { topic: 'ack-loss', partition: 0, first: 30, last: 39 },
        { topic: 'other', partition: 2, first: 5, last: 5 },
      ],
    });
    expect(parseFault('fault: dropped the response to produce #1, ack-loss-0 offsets 0..0').kind).toBe(
      'drop',
    );
    expect(faultedOffsets([f], 'ack-loss', 0)).toEqual(Array.from({ length: 10 }, (_, i) => 30 + i));
    expect(() => parseFault('INFO klog serve: listening')).toThrow('not a fault line');
  });
});

describe('klog ack-loss-demo: bad input, one line, exit 2', () => {
  it.each([
    [['--in-flight', '6'], 'klog: --in-flight "6": expected a whole number from 1 to 5\n'],
    [
      ['--clients', 'kcat,librdkafka'],
      'klog: --clients "kcat,librdkafka": unknown client "librdkafka"; expected some of kcat, confluent-kafka, kafkajs, platformatic\n',
    ],
    [['--clients', 'kcat,kcat'], 'klog: --clients "kcat,kcat": kcat is named twice\n'],
    [['--messages', '0'], 'klog: --messages "0": expected a whole number from 1 to 100000\n'],
    [
      ['--messages', '4', '--batch', '2', '--drop-acks', '2', '--close-after-append', '1'],
      'klog: --drop-acks 2 --close-after-append 1: more lost acks than the 2 requests that write (with idempotence on, each batch is written once)\n',
    ],
  ])('%j', (args, stderr) => {
    expect(klog(['ack-loss-demo', ...args])).toMatchObject({ status: 2, stdout: '', stderr });
  });
});

/** The pids of every process below `pid` now (from /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** The command name of a process ('' once it is gone). */
function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Still running (not gone, not a zombie waiting for its parent). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

describe('klog ack-loss-demo leaves nothing behind', () => {
  const kcatHere = spawnSync('kcat', ['-V']).status === 0;
  it.for([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s while a broker and kcat run: exit %i, the temporary directory and every child process gone',
    { timeout: SLOW_TEST_MS },
    async ([signal, code]) => {
      // kcat is installed by `pnpm test` (scripts/test-machine.mjs) and cannot be opted out of.
      if (!kcatHere) throw new Error('kcat is not installed: sudo apt-get install -y kcat');
      const tmp = mkdtempSync(join(scratch, `${signal}-`));
      const child = spawn(process.execPath, [bin, 'ack-loss-demo', '--clients', 'kcat', '--messages', '50'], {
        env: { ...process.env, TMPDIR: tmp, CI: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
      // Wait until the demo has a broker and kcat running (its own child processes), then interrupt it.
      let seen: number[] = [];
      for (let i = 0; i < 6000; i++) {
        await new Promise((r) => setTimeout(r, 50));
        seen = descendants(child.pid!);
        if (seen.some((pid) => comm(pid) === 'kcat') && seen.some((pid) => comm(pid) === 'node')) break;
      }
      expect(seen.map(comm).sort()).toEqual(expect.arrayContaining(['kcat', 'node']));
      expect(readdirSync(tmp)).toHaveLength(1);
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(stderr).toBe(
        `klog: ack-loss-demo: ${signal}: stopped; the temporary directory and child processes are gone\n`,
      );
      expect(readdirSync(tmp)).toEqual([]);
      for (let i = 0; i < 100 && seen.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
      expect(seen.filter(alive)).toEqual([]);
    },
  );

  it(
    'a client that is not installed is skipped and named; under CI it fails the run before anything is sent',
    () => {
      // No kcat on this PATH (the broker is started with node's own path, so it still runs).
      const env = {
        PATH: dirname(process.execPath) === '/usr/bin' ? '/nonexistent' : dirname(process.execPath),
      };
      const skipped = klog(['ack-loss-demo', '--clients', 'kcat'], { ...env, CI: '' }, SLOW_HANG_MS);
      expect(skipped.stderr).toBe('');
      expect(skipped.status).toBe(0);
      expect(skipped.stdout).toContain(
        '== kcat ==\nข้าม: ไม่พบ kcat บนเครื่องนี้ · ติดตั้งด้วย apt-get install kcat\n',
      );
      const failed = klog(['ack-loss-demo', '--clients', 'kcat'], { ...env, CI: '1' }, SLOW_HANG_MS);
      expect(failed.status).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toBe(
        'klog: CI is set, so every client must run, and one is missing: kcat (kcat is not on PATH)\n',
      );
    },
    SLOW_TEST_MS,
  );
});

describe('klog ack-loss-demo with five in flight and many batches: the invariants', () => {
  it(
    'every client: nothing missing either way; idempotence on, no duplicate; off, every record a lost ack left written again',
    () => {
      const run = klog(
        [
          'ack-loss-demo',
          '--in-flight',
          '5',
          '--batch',
          '20',
          '--messages',
          '1000',
          '--drop-acks',
          '3',
          '--close-after-append',
          '2',
        ],
        {},
        SLOW_HANG_MS,
      );
      expect(run.hung).toBe(false);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const summary = run.stdout.slice(run.stdout.indexOf('== สรุป'));
      const rows = [...summary.matchAll(/^ {2}(.+?) {2,}(\d+) +(\d+) +(\d+) +(\d+)$/gm)].map((m) => ({
        client: m[1],
        lost: Number(m[2]),
        offDuplicates: Number(m[3]),
        onDuplicates: Number(m[4]),
        onMissing: Number(m[5]),
      }));
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r).toMatchObject({ lost: 5, onDuplicates: 0, onMissing: 0 });
        // Every record the lost acks left was written again: at least as many duplicates as the five faulted
        // requests of the off run wrote, read from the broker's fault lines (how many records a request of
        // "at most 20" carries depends on the client's timing, so the count is read, not assumed).
        const section = run.stdout.slice(run.stdout.indexOf(`== ${r.client!.trim()} ==`));
        const offRun = section.slice(section.indexOf('  off  fault:'), section.indexOf('  on   fault:'));
        const faulted = [...offRun.matchAll(/offsets (\d+)\.\.(\d+)/g)].reduce(
          (n, m) => n + Number(m[2]) - Number(m[1]) + 1,
          0,
        );
        expect(faulted).toBeGreaterThanOrEqual(5);
        expect(r.offDuplicates).toBeGreaterThanOrEqual(faulted);
      }
    },
    SLOW_TEST_MS,
  );
});
