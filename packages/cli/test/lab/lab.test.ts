import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WindowEntry, WindowModule } from '@klog/core';
import { afterAll, describe, expect, it } from 'vitest';
import type * as Reference from '../../lab/reference.js';
import type * as Starter from '../../lab/starter.js';
import type * as Solution from '../lab-fixtures/solution.js';
import { root, klog as runKlog } from '../run-klog.js';

/**
 * klog, with Node's own warning about NO_COLOR and FORCE_COLOR both set (as run-klog sets them, empty,
 * and jiti asks whether stderr has colours) taken out of stderr: the rest is klog's.
 */
function klog(args: string[], env: NodeJS.ProcessEnv = {}, hangMs?: number, cwd?: string) {
  const run = runKlog(args, env, hangMs, cwd);
  const stderr = run.stderr
    .split(/(?<=\n)/)
    .filter(
      (l) => !/^\(node:\d+\) Warning: The 'NO_COLOR' env is ignored|^\(Use `node --trace-warnings/.test(l),
    )
    .join('');
  return { ...run, stderr };
}

// At compile time (pnpm typecheck): the starter, the solution and klog's reference are core's WindowModule.
type IsWindow<M extends { ProducerStateEntry: abstract new (...args: never[]) => unknown }> =
  M extends WindowModule<InstanceType<M['ProducerStateEntry']> & WindowEntry> ? true : false;
const shapes: [IsWindow<typeof Starter>, IsWindow<typeof Solution>, IsWindow<typeof Reference>] = [
  true,
  true,
  true,
];

// Run as `node …/dist/bin.js`, not as `klog`: the lines that say `klog` add how to get that command.
const PATH_HINT =
  'ถ้า shell ยังไม่รู้จักคำสั่ง klog: รัน npm install -g ./packages/cli ครั้งเดียวที่ราก repository (หลัง build)';

const fixtures = join(root, 'packages/cli/test/lab-fixtures');
const fixture = (name: string) => join(fixtures, `${name}.ts`);
const scratch = mkdtempSync(join(tmpdir(), 'klog-lab-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The 1-based number of the first line of `file` that holds `text`. */
function lineOf(file: string, text: string): number {
  return (
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(text)) + 1
  );
}

/** The line that says why a check failed, and the stage it names. */
function failure(stdout: string) {
  const line = stdout.split('\n').find((l) => /^stage \d+ \S+ ไม่ผ่าน: /.test(l));
  const m = /^stage (\d+) (\S+) ไม่ผ่าน: (.*)$/.exec(line ?? '');
  return m === null ? undefined : { number: Number(m[1]), stage: m[2], message: m[3]! };
}

// The lab's own tests: each fixture is the solution with one mistake a learner makes, and must be rejected
// at the stage that teaches it, with the message that names the mistake, whatever the seed.
const NEGATIVE: readonly { fixture: string; stage: string; message: RegExp }[] = [
  {
    fixture: 'window-of-4',
    stage: 'eviction',
    message: /^batch ที่ห้า: appendBatch\(.*\): window ควรเป็น \[(\S+ ){4}\S+\] แต่ได้ \[(\S+ ){3}\S+\]$/,
  },
  {
    fixture: 'first-seq-only',
    stage: 'partial-overlap',
    message: /^batch \d กับ \d มัดรวมส่งซ้ำเป็นก้อนเดียว: .*: kind ควรเป็น OutOfOrderSequence แต่ได้ Duplicate$/,
  },
  {
    fixture: 'forgets-epoch',
    stage: 'epoch',
    message: /^ช่วงเดิมจาก epoch \d+: .*: kind ควรเป็น OutOfOrderSequence แต่ได้ Duplicate$/,
  },
  {
    fixture: 'wrap-off-by-one',
    stage: 'wrap',
    message: /^incrementSequence\(2147483646, 1\): result ควรเป็น 2147483647 แต่ได้ 0$/,
  },
  {
    fixture: 'duplicate-new-offsets',
    stage: 'duplicate',
    message: /^ส่ง batch \d ซ้ำ: .*: firstOffset ควรเป็น \d+ แต่ได้ \d+$/,
  },
  {
    fixture: 'appends-before-judging',
    stage: 'duplicate',
    message: /^ส่ง batch \d ซ้ำ: .*: log end offset \(ต้องไม่มีอะไรถูกเขียน\) ควรเป็น (\d+) แต่ได้ (?!\1)\d+$/,
  },
  {
    fixture: 'never-evicts',
    stage: 'eviction',
    message: /^batch ที่หก: appendBatch\(.*\): window ควรเป็น \[(\S+ ){4}\S+\] แต่ได้ \[(\S+ ){5}\S+\]$/,
  },
];

describe('klog lab check', () => {
  it('the starter, the solution and the reference have the shape of WindowModule', () => {
    expect(shapes).toEqual([true, true, true]);
  });

  for (const reference of ['packages/cli/lab/reference.ts', 'packages/cli/test/lab-fixtures/solution.ts']) {
    it(`passes every stage on ${reference}`, () => {
      const run = klog(['lab', 'check', join(root, reference), '--no-save']);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout.match(/^ {2}✓ \d+\/10 /gm)).toHaveLength(10);
      expect(run.stdout).toContain('ผ่านครบ 10 จาก 10 stage');
      // The broker stage names the file its window came from.
      expect(run.stdout).toContain(`หน้าต่างที่ broker ใช้ตัดสินทุก batch: ${join(root, reference)}`);
    });
  }

  describe.each(NEGATIVE)('rejects $fixture at stage $stage', ({ fixture: name, stage, message }) => {
    for (const seed of ['1', '2026', '4294967295']) {
      it(`seed ${seed}`, () => {
        const run = klog(['lab', 'check', fixture(name), '--seed', seed, '--no-save']);
        expect(run.status).toBe(1);
        const failed = failure(run.stdout);
        expect(failed?.stage).toBe(stage);
        expect(failed?.message).toMatch(message);
        // Every stage before it passed, and the report names the section to reread and the replay.
        expect(run.stdout.match(/^ {2}✓ /gm) ?? []).toHaveLength(failed!.number - 1);
        expect(run.stdout).toMatch(/^ {4}อ่านทวน {2}docs\/07-idem\.mdx § \S/m);
        expect(run.stdout).toContain(`รันซ้ำ    klog lab check ${fixture(name)} --seed ${seed}`);
        expect(run.stderr).toBe(
          `klog: lab check: stage ${failed!.number} ${stage} ไม่ผ่าน (รายงานอยู่ข้างบน) · ${PATH_HINT}\n`,
        );
      });
    }
  });

  // The learner keeps the starter's imports and writes the bodies: `new BatchMetadata(…)` must find a value.
  it("passes every stage on the solution's bodies under the starter's own imports", () => {
    const imports = /^import \{[^}]*\} from '@klog\/core';\n/m;
    const starterImports = imports.exec(readFileSync(join(root, 'packages/cli/lab/starter.ts'), 'utf8'))![0];
    const bodies = readFileSync(fixture('solution'), 'utf8').replace(imports, '');
    const file = join(scratch, 'starter-imports.ts');
    writeFileSync(file, starterImports + bodies);
    const run = klog(['lab', 'check', file, '--no-save']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/ผ่านครบ (\d+) จาก \1 stage/);
  });

  it('shows the failed request field by field: expected and actual, the differing field marked', () => {
    const run = klog(['lab', 'check', fixture('duplicate-new-offsets'), '--seed', '5', '--no-save']);
    const lines = run.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('    คำขอ    ส่ง batch'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {6}ช่อง +ควรเป็น +ได้จริง$/);
    expect(lines[at + 2]).toMatch(/^ {4}✓ kind +Duplicate +Duplicate$/);
    expect(lines[at + 3]).toMatch(/^ {4}✗ firstOffset +(\d+) +(?!\1)\d+$/);
  });

  it("the epoch stage's report shows the window's epoch beside its batches", () => {
    const run = klog([
      'lab',
      'check',
      fixture('forgets-epoch'),
      '--stage',
      'epoch',
      '--seed',
      '7',
      '--no-save',
    ]);
    expect(run.status).toBe(1);
    const newer = Number(/^ {4}คำขอ {4}ช่วงเดิมจาก epoch (\d+):/m.exec(run.stdout)?.[1]);
    // The batch of the new epoch was refused: the window is still the old epoch's.
    expect(run.stdout).toMatch(new RegExp(`^ {4}✓ producerEpoch +${newer - 1} +${newer - 1}$`, 'm'));
  });

  it('replays a run from its seed, and draws other inputs from another seed', () => {
    const args = ['lab', 'check', fixture('never-evicts'), '--no-save'];
    const a = klog([...args, '--seed', '77']);
    const b = klog([...args, '--seed', '77']);
    const c = klog([...args, '--seed', '78']);
    expect(b.stdout).toBe(a.stdout);
    expect(c.stdout).not.toBe(a.stdout);
    // Without --seed, the first line prints the seed drawn, and it replays the same run.
    const fresh = klog(args);
    const seed = /· seed (\d+)$/m.exec(fresh.stdout)?.[1];
    expect(seed).toBeDefined();
    expect(klog([...args, '--seed', seed!]).stdout).toBe(fresh.stdout);
  });

  it("names the learner's function that throws, with the line of their file", () => {
    const run = klog(['lab', 'check', fixture('judge-throws'), '--seed', '3', '--no-save']);
    expect(run.status).toBe(1);
    const line = lineOf(fixture('judge-throws'), 'throw new TypeError');
    expect(failure(run.stdout)).toEqual({
      number: 1,
      stage: 'first-append',
      message: `appendBatch ของคุณโยน TypeError: Cannot read properties of undefined (reading 'lastSeq') (ที่ judge, judge-throws.ts:${line})`,
    });
  });

  it("stops a function of the learner's that never returns, and names it", () => {
    const run = klog([
      'lab',
      'check',
      fixture('judge-hangs'),
      '--seed',
      '3',
      '--no-save',
      '--call-timeout-ms',
      '500',
    ]);
    expect(run.hung).toBe(false);
    expect(run.status).toBe(1);
    expect(failure(run.stdout)?.message).toBe(
      'ProducerStateEntry.findDuplicateBatch ของคุณไม่คืนค่าภายใน 0.5 วินาที (loop ที่ไม่มีวันจบ?) ตัวตรวจหยุดมันแล้ว',
    );
  });

  it('on the starter, fails the first stage at the first TODO, naming its lesson section', () => {
    const starter = join(root, 'packages/cli/lab/starter.ts');
    const run = klog(['lab', 'check', starter, '--seed', '1', '--no-save']);
    expect(run.status).toBe(1);
    // appendBatch is the first function the first stage calls; its line is the todo(...) in its body.
    const line = lineOf(starter, 'export function appendBatch') + 1;
    expect(failure(run.stdout)).toEqual({
      number: 1,
      stage: 'first-append',
      message: `appendBatch ของคุณโยน Error: TODO: not written yet (lesson: สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ) (ที่ appendBatch, starter.ts:${line})`,
    });
  });

  it('refuses a file that is missing, does not compile, or lacks an export: one line, exit 2', () => {
    const missing = klog(['lab', 'check', join(scratch, 'nope.ts')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(
      `klog: lab check: ${join(scratch, 'nope.ts')}: ไม่มี file นี้ (หาที่ ${join(scratch, 'nope.ts')}; klog lab init <folder> เขียน lab.ts ให้)\n`,
    );
    const broken = join(scratch, 'broken.ts');
    writeFileSync(broken, 'export function judge( {\n');
    const bad = klog(['lab', 'check', broken]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^klog: lab check: \S+broken\.ts did not load: .+\n$/);
    const partial = join(scratch, 'partial.ts');
    writeFileSync(partial, 'export function judge() {}\nexport function incrementSequence() {}\n');
    const lacking = klog(['lab', 'check', partial]);
    expect(lacking.status).toBe(2);
    expect(lacking.stderr).toBe(
      `klog: lab check: ${partial} exports no ProducerStateEntry: the lab calls it (klog lab init shows every export)\n`,
    );
    const seed = klog(['lab', 'check', partial, '--seed', '-1']);
    expect(seed.status).toBe(2);
    expect(seed.stderr).toMatch(/^klog: --seed "-1": expected a whole number from 0 to 4294967295\n$/);
  });

  // Each stage teaches one behaviour: the section it sends a learner to must be a heading of the lesson.
  it("names only sections that are headings of the chapter's page", () => {
    const page = readFileSync(join(root, 'docs/07-idem.mdx'), 'utf8');
    const headings = new Set([...page.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!.trim()));
    const help = klog(['lab', 'check', '--help']);
    expect(help.status).toBe(0);
    for (const name of NEGATIVE.map((n) => n.fixture)) {
      const run = klog(['lab', 'check', fixture(name), '--seed', '9', '--no-save']);
      const section = /^ {4}อ่านทวน {2}docs\/07-idem\.mdx § (.+)$/m.exec(run.stdout)?.[1];
      expect(headings.has(section ?? '')).toBe(true);
    }
  });
});

describe("the lab's help", () => {
  it("is Thai, Commander's own titles and help lines too, for the lab and each of its commands", () => {
    for (const args of [
      ['lab', '--help'],
      ['help', 'lab'],
      ['lab', 'init', '--help'],
      ['lab', 'check', '--help'],
      ['lab', 'status', '--help'],
    ]) {
      const help = klog(args);
      expect(help.status, args.join(' ')).toBe(0);
      expect(help.stdout, args.join(' ')).toMatch(/^วิธีใช้: klog lab/);
      expect(help.stdout, args.join(' ')).toContain('-h, --help');
      expect(help.stdout, args.join(' ')).not.toMatch(/Usage:|Options:|Arguments:|Commands:|display help/);
    }
  });
});

describe('`pnpm klog …` from a lab folder', () => {
  it('reads paths from the folder it was typed in (INIT_CWD), not the workspace root pnpm runs it in', () => {
    const typedIn = mkdtempSync(join(scratch, 'typed-in-'));
    // As pnpm runs the root script `klog`: the workspace root as cwd, the user's folder in INIT_CWD.
    const asPnpm = { npm_lifecycle_event: 'klog', INIT_CWD: typedIn };
    const init = klog(['lab', 'init', 'my-lab'], asPnpm, undefined, root);
    expect(init.status).toBe(0);
    expect(existsSync(join(typedIn, 'my-lab', 'lab.ts'))).toBe(true);
    expect(existsSync(join(root, 'my-lab'))).toBe(false);
    const status = klog(['lab', 'status'], { ...asPnpm, INIT_CWD: join(typedIn, 'my-lab') }, undefined, root);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^lab\.ts: ยังไม่เคยตรวจ/);
  });
});

describe('klog lab init, then check, then status', () => {
  it("writes the starter and its README, refuses to overwrite them, and keeps the learner's progress", () => {
    const dir = join(scratch, 'my-lab');
    const init = klog(['lab', 'init', dir]);
    expect(init.status).toBe(0);
    expect(init.stdout).toBe(
      `เขียน ${join(dir, 'lab.ts')} แล้ว\nเขียน ${join(dir, 'README.md')} แล้ว\n\nต่อไป: cd ${dir} เติม TODO ใน lab.ts แล้วรัน klog lab check\n(${PATH_HINT})\n`,
    );
    expect(readFileSync(join(dir, 'lab.ts'), 'utf8')).toBe(
      readFileSync(join(root, 'packages/cli/lab/starter.ts'), 'utf8'),
    );
    const again = klog(['lab', 'init', dir]);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(
      `klog: lab init: ${join(dir, 'lab.ts')} มีอยู่แล้ว จึงไม่ได้เขียนอะไรเลย (เลือก folder อื่น)\n`,
    );

    const none = klog(['lab', 'status', join(dir, 'lab.ts')]);
    expect(none.stdout).toBe(
      `${join(dir, 'lab.ts')}: ยังไม่เคยตรวจ (รัน: klog lab check ${join(dir, 'lab.ts')})\n`,
    );

    // The learner writes most of it, but keeps four batches.
    copyFileSync(fixture('window-of-4'), join(dir, 'lab.ts'));
    const first = klog(['lab', 'check', join(dir, 'lab.ts'), '--seed', '11']);
    expect(first.status).toBe(1);
    expect(existsSync(join(dir, '.klog-lab.json'))).toBe(true);
    const status = klog(['lab', 'status', join(dir, 'lab.ts')]);
    expect(status.status).toBe(0);
    const lines = status.stdout.split('\n');
    expect(lines[0]).toBe(`${join(dir, 'lab.ts')}: ผ่าน 4 จาก 10 stage`);
    expect(lines.slice(1, 11).map((l) => l.slice(2, 3))).toEqual([
      '✓',
      '✓',
      '✓',
      '✓',
      '✗',
      '·',
      '·',
      '·',
      '·',
      '·',
    ]);
    expect(lines[12]).toMatch(/^รันล่าสุด \d{4}-\d\d-\d\dT\S+Z · seed 11 · ไม่ผ่านที่ stage 5 eviction$/);

    // Fixed: every stage passes, and status says so.
    copyFileSync(fixture('solution'), join(dir, 'lab.ts'));
    expect(klog(['lab', 'check', join(dir, 'lab.ts')]).status).toBe(0);
    const done = klog(['lab', 'status', join(dir, 'lab.ts')]).stdout.split('\n');
    expect(done[0]).toBe(`${join(dir, 'lab.ts')}: ผ่าน 10 จาก 10 stage`);
    expect(done[12]).toMatch(/ · ผ่านทุก stage$/);
  });

  it('--no-save leaves no progress file and no history', () => {
    const dir = mkdtempSync(join(scratch, 'nosave-'));
    copyFileSync(fixture('never-evicts'), join(dir, 'lab.ts'));
    klog(['lab', 'check', join(dir, 'lab.ts'), '--no-save', '--seed', '1']);
    expect(existsSync(join(dir, '.klog-lab.json'))).toBe(false);
    expect(existsSync(join(dir, 'klog-lab-history.json'))).toBe(false);
  });

  it("a failed stage leaves its history beside the file, for the simulator's timeline", () => {
    const dir = mkdtempSync(join(scratch, 'history-'));
    copyFileSync(fixture('appends-before-judging'), join(dir, 'lab.ts'));
    const run = klog(['lab', 'check', join(dir, 'lab.ts'), '--seed', '3']);
    expect(run.status).toBe(1);
    const path = join(dir, 'klog-lab-history.json');
    expect(run.stdout).toContain(`    ดูบน timeline  ${path}\n`);
    expect(run.stdout).toContain('(หน้า simulator ของเว็บบทเรียน › เปิดประวัติจาก klog lab check)');
    const history = JSON.parse(readFileSync(path, 'utf8'));
    expect(history).toMatchObject({ version: 1, stage: 'duplicate', seed: 3 });
    expect(history.summary).toBe(failure(run.stdout)!.message);
    // Every send in order with its answer, and the log as written: the resent batch is on it twice.
    const answers = history.sends.map((s: { answer: string }) => s.answer.split(' ')[0]);
    expect(answers.at(-1)).toBe('DUPLICATE');
    expect(answers.slice(0, -1).every((a: string) => a === 'APPEND')).toBe(true);
    const last = history.sends.at(-1);
    const writes = history.log.filter(
      (w: { who: string; seq: string }) => w.who === last.who && w.seq === last.seq,
    );
    expect(writes).toHaveLength(2);
    expect(history.rows.find((r: { field: string }) => r.field === 'window')).toBeDefined();
  });
});
