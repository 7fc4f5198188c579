import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHistory, type SendEvent, type SentBatch } from '../../src/lab/broker-history.js';
import { root, klog as runKlog } from '../run-klog.js';

const fixture = (name: string) => join(root, 'packages/cli/test/lab-fixtures', `${name}.ts`);

/** klog's own lines: Node's warning about NO_COLOR and FORCE_COLOR both set (run-klog sets both) left out. */
function klog(args: string[]) {
  const run = runKlog(args, {}, 60_000);
  const stderr = run.stderr
    .split(/(?<=\n)/)
    .filter(
      (l) => !/^\(node:\d+\) Warning: The 'NO_COLOR' env is ignored|^\(Use `node --trace-warnings/.test(l),
    )
    .join('');
  return { ...run, stderr };
}

/**
 * `klog lab check --stage broker`: the learner's window behind a real broker, judged by the history's
 * anomalies. Each of the lab's three planted mistakes passes a one-message-at-a-time run behind a broker
 * (`ack-loss-demo --window`); here each fails on its own, on the anomaly its mistake makes.
 */
describe('klog lab check --stage broker', () => {
  const MISTAKES = [
    // Four batches kept: the resend of the first of five in flight is refused, the application sends it again.
    {
      fixture: 'window-of-4',
      anomaly: 'duplicate',
      batch: /^producer A, batch a0 \(pid \d+, epoch \d+, seq 0\.\.1\)/,
    },
    // A resend merged from a5 and a6 matched on its first sequence: answered with a5's two offsets for four records.
    {
      fixture: 'first-seq-only',
      anomaly: 'inconsistent-offsets',
      batch: /^producer A, batch a5\+a6 \(pid \d+, epoch \d+, seq 10\.\.13\)/,
    },
    // The epoch bumped, sequence 0 again: taken for the old epoch's first batch, answered, never written.
    {
      fixture: 'forgets-epoch',
      anomaly: 'lost-write',
      batch: /^producer C, batch c2 \(pid \d+, epoch \d+, seq 0\.\.1\)/,
    },
  ] as const;

  for (const { fixture: name, anomaly, batch } of MISTAKES) {
    it(`fails ${name} alone, on ${anomaly}, naming the client, the batch and the rule`, () => {
      const run = klog(['lab', 'check', fixture(name), '--stage', 'broker', '--seed', '3', '--no-save']);
      // Run as `node …/bin.js`, not as `klog`: the line ends with how to put klog on PATH.
      expect(run.stderr).toMatch(
        /^klog: lab check: stage 10 broker ไม่ผ่าน \(รายงานอยู่ข้างบน\) · .*npm install -g \.\/packages\/cli.*\n$/,
      );
      expect(run.status).toBe(1);
      // Only the broker stage ran.
      expect(run.stdout.match(/^ {2}[✓✗] /gm)).toEqual(['  ✗ ']);
      expect(run.stdout).toMatch(new RegExp(`^stage 10 broker ไม่ผ่าน: ${anomaly}: .+$`, 'm'));
      const request = /^ {4}คำขอ {4}(.+)$/m.exec(run.stdout)?.[1] ?? '';
      expect(request).toMatch(batch);
      expect(run.stdout).toMatch(new RegExp(`^ {4}✗ anomaly +ไม่มี +${anomaly}$`, 'm'));
    });
  }

  it("leaves the run's sends and the partition as read, for the simulator's timeline", () => {
    const dir = mkdtempSync(join(tmpdir(), 'klog-lab-broker-history-'));
    try {
      copyFileSync(fixture('window-of-4'), join(dir, 'lab.ts'));
      const run = klog(['lab', 'check', join(dir, 'lab.ts'), '--stage', 'broker', '--seed', '3']);
      expect(run.status).toBe(1);
      const history = JSON.parse(readFileSync(join(dir, 'klog-lab-history.json'), 'utf8'));
      expect(history.stage).toBe('broker');
      expect(history.sends[0]).toMatchObject({
        who: expect.stringMatching(/^producer A · epoch \d+$/),
        seq: '0..1',
      });
      expect(history.sends[0].answer).toMatch(/^batch a0 · ack หาย/);
      // The duplicate the report names: a0's values written at two places on the log.
      const a0 = history.log.filter((w: { who: string }) => w.who === 'producer A · batch a0');
      expect(a0.map((w: { seq: string }) => w.seq)).toEqual(['ค่า a0.0..1', 'ค่า a0.0..1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes the solution alone and names the file whose window judged', () => {
    const run = klog(['lab', 'check', fixture('solution'), '--stage', 'broker', '--seed', '3', '--no-save']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`หน้าต่างที่ broker ใช้ตัดสินทุก batch: ${fixture('solution')}`);
    expect(run.stdout).toContain('ผ่าน stage broker');
  });

  it('refuses a stage that does not exist, naming the ones that do', () => {
    const run = klog(['lab', 'check', fixture('solution'), '--stage', 'nope']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'klog: lab check: --stage nope: ไม่มีขั้นชื่อนี้ (first-append, duplicate, gap, partial-overlap, eviction, epoch, wrap, rebuild, model, broker)\n',
    );
  });
});

describe('checkHistory', () => {
  const batch = (name: string, firstSeq: number, values: string[]): SentBatch => ({
    client: 'producer A',
    name,
    producerId: 1,
    epoch: 0,
    firstSeq,
    values,
  });
  const ack = (b: SentBatch, baseOffset: number): SendEvent => ({
    batch: b,
    attempt: 1,
    outcome: { kind: 'ack', baseOffset },
  });

  it('holds when every acknowledged value is read once, where its ack said', () => {
    const a0 = batch('a0', 0, ['x', 'y']);
    const a1 = batch('a1', 2, ['z']);
    const reads = [
      { offset: 0, value: 'x' },
      { offset: 1, value: 'y' },
      { offset: 2, value: 'z' },
    ];
    expect(checkHistory({ sends: [ack(a0, 0), ack(a1, 2)], reads })).toBeUndefined();
  });

  it('finds nonmonotonic-send: a later send of one producer acknowledged at an earlier offset', () => {
    const a0 = batch('a0', 0, ['x']);
    const a1 = batch('a1', 1, ['y']);
    const reads = [
      { offset: 0, value: 'y' },
      { offset: 1, value: 'x' },
    ];
    const found = checkHistory({ sends: [ack(a0, 1), ack(a1, 0)], reads });
    expect(found?.name).toBe('nonmonotonic-send');
    expect(found?.batch).toBe(a1);
  });
});
