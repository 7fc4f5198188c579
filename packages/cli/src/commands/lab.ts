import { randomInt } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';
import { initLab } from '../lab/init.js';
import { LabFileError } from '../lab/lab-file-error.js';
import { LAB_HISTORY_VERSION, OPEN_HISTORY, writeHistory } from '../lab/lab-history.js';
import { progressPath, readProgress, saveProgress } from '../lab/progress.js';
import { MAX_SEED } from '../lab/random.js';
import { failureLines, LESSON_PAGE, stageLine } from '../lab/report.js';
import { DEFAULT_CALL_TIMEOUT_MS, runCheck } from '../lab/run-check.js';
import { STAGES } from '../lab/stages.js';

/** A stage failed: the report is on stdout, exit code 1. */
export class LabCheckFailed extends Error {
  override readonly name = 'LabCheckFailed';
}

// The output's sections, `== title ==` lines as every lesson run output has: the lab page shows them.
const SECTION_STAGES = 'ผลทีละ stage';
const SECTION_FAILED = 'stage แรกที่ไม่ผ่าน';
const SECTION_PASSED = 'ผ่านทุก stage';

const CHECK_HELP = `
โหลด file ของคุณ (TypeScript ไม่ต้อง build) แล้วไล่ตรวจตามลำดับของบท หยุดที่ขั้นแรกที่ไม่ผ่าน:
${STAGES.map((s, i) => `  ${i + 1}. ${s.title}`).join('\n')}
ค่าที่ป้อนสุ่มจาก seed ที่บรรทัดแรกพิมพ์ไว้ --seed ให้ค่าชุดเดิมอีกรอบ เมื่อไม่ผ่าน
รายงานแสดงคำขอ คำตอบที่ควรได้กับที่ได้จริงทีละช่อง และหัวข้อใน ${LESSON_PAGE} ที่ควรอ่านทวน
ฟังก์ชันของคุณที่โยน error ถูกบอกชื่อ ตัวที่ไม่คืนค่าใน ${DEFAULT_CALL_TIMEOUT_MS / 1000} วินาทีถูกหยุดและบอกชื่อ

--stage NAME รันขั้นเดียวแยกออกมา (${STAGES.map((s) => s.id).join(', ')}) รอบแบบนี้ไม่บันทึกผล
ขั้น broker เปิด broker ของ klog serve บน 127.0.0.1 ให้หน้าต่างของคุณตัดสินทุก batch แบบ idempotent
ส่ง Produce request ดิบเข้าไป แล้วตรวจประวัติหา anomaly ตามชื่อที่ Jepsen ใช้ (duplicate,
lost-write, inconsistent-offsets, nonmonotonic-send)

ผลเก็บไว้ใน .klog-lab.json ข้าง file ของคุณ (klog lab status แสดงผลนี้) เมื่อขั้นใดไม่ผ่าน ลำดับการส่ง
คำตอบ และ log ของขั้นนั้นถูกเขียนลง klog-lab-history.json ข้างกัน ให้เปิดในหน้า simulator ของเว็บบทเรียน

exit code: 0 ผ่านทุกขั้น, 1 มีขั้นที่ไม่ผ่าน (รายงานอยู่บน stdout),
2 ใช้คำสั่งผิด หรือ file โหลดไม่ได้`;

const HELP_TITLES: Record<string, string> = {
  'Usage:': 'วิธีใช้:',
  'Arguments:': 'argument:',
  'Options:': 'ตัวเลือก:',
  'Commands:': 'คำสั่งย่อย:',
};

/**
 * The lab's help is Thai through and through, as the site and its reports are: Commander's titles and its
 * own help lines too.
 */
export function thaiHelp(command: Command): Command {
  return command
    .configureHelp({ styleTitle: (title) => HELP_TITLES[title] ?? title })
    .helpOption('-h, --help', 'แสดงวิธีใช้')
    .helpCommand('help [command]', 'แสดงวิธีใช้ของคำสั่งย่อย');
}

/**
 * The lines tell the learner to type `klog`. Run as something else (`node …/dist/bin.js`, `pnpm klog`), the
 * shell may not know that name yet: say once how to get it. npm's link and Windows shim both reach
 * bin/klog.js, so its name is how klog knows it was typed as `klog`.
 */
const PATH_HINT =
  'ถ้า shell ยังไม่รู้จักคำสั่ง klog: รัน npm install -g ./packages/cli ครั้งเดียวที่ราก repository (หลัง build)';
function typedAsKlog(): boolean {
  return /^klog(\.js)?$/.test(basename(process.argv[1] ?? ''));
}

export function labCommand(ctx: CommandContext): Command {
  // Set on `lab` before its subcommands, which inherit them; the program sets them again on `lab` once it
  // has copied its own settings there (buildProgram).
  const lab = thaiHelp(new Command('lab').description('แล็บของบทที่ 7: คุณเขียนหน้าต่างเอง แล้ว klog ตรวจให้'));
  lab
    .command('init')
    .description('เขียนชุดเริ่มต้น: lab.ts (ฟังก์ชันที่บทสร้าง เป็น TODO) กับ README ของมัน')
    .argument('[dir]', 'folder ที่จะเขียนลงไป (ถ้ายังไม่มีจะสร้างให้)', 'klog-lab')
    .action((dir: string) => {
      const written = initLab(dir);
      for (const path of written) ctx.out(`เขียน ${path} แล้ว`);
      ctx.out('');
      ctx.out(`ต่อไป: cd ${dir} เติม TODO ใน lab.ts แล้วรัน klog lab check`);
      if (!typedAsKlog()) ctx.out(`(${PATH_HINT})`);
    });
  lab
    .command('check')
    .description('ตรวจหน้าต่างของคุณทีละขั้น หยุดที่ขั้นแรกที่ไม่ผ่าน')
    .argument('[file]', 'file แล็บของคุณ', 'lab.ts')
    .addOption(new Option('--seed <n>', `ใช้ค่าชุดเดิมของรอบก่อน (0..${MAX_SEED}; ถ้าไม่ใส่ สุ่ม seed ใหม่)`))
    .option('--no-save', 'ไม่บันทึกผลลง .klog-lab.json')
    .option('--stage <name>', `รันขั้นนี้ขั้นเดียว (${STAGES.map((s) => s.id).join(', ')})`)
    .addOption(
      new Option('--call-timeout-ms <ms>', 'a call of yours longer than this is a hang')
        .default(String(DEFAULT_CALL_TIMEOUT_MS))
        .hideHelp(),
    )
    .addHelpText('after', CHECK_HELP)
    .action(
      async (file: string, raw: { seed?: string; save: boolean; callTimeoutMs: string; stage?: string }) => {
        const seed =
          raw.seed === undefined ? randomInt(0, MAX_SEED) : wholeNumber('--seed', raw.seed, 0, MAX_SEED);
        const timeout = wholeNumber('--call-timeout-ms', raw.callTimeoutMs, 100, 600_000);
        const only = raw.stage === undefined ? undefined : STAGES.findIndex((s) => s.id === raw.stage);
        if (only === -1) {
          throw new UsageError(
            `lab check: --stage ${raw.stage}: ไม่มีขั้นชื่อนี้ (${STAGES.map((s) => s.id).join(', ')})`,
          );
        }
        const stageFlag = raw.stage === undefined ? '' : ` --stage ${raw.stage}`;
        const replay = `klog lab check ${file} --seed ${seed}${stageFlag}`;
        ctx.out(`klog lab check ${file}${stageFlag} · seed ${seed}`);
        ctx.out('');
        ctx.out(`== ${SECTION_STAGES} ==`);
        let outcome: Awaited<ReturnType<typeof runCheck>>;
        try {
          outcome = await runCheck(
            file,
            seed,
            (index) => {
              ctx.out(stageLine(STAGES, index, '✓'));
              // The broker stage loads the file again, behind the broker: say which file judged there.
              if (STAGES[index]!.id === 'broker')
                ctx.out(`      หน้าต่างที่ broker ใช้ตัดสินทุก batch: ${resolve(file)}`);
            },
            timeout,
            only,
          );
        } catch (error) {
          if (error instanceof LabFileError) throw new UsageError(`lab check: ${error.message}`);
          throw error;
        }
        if (raw.save && only === undefined)
          saveProgress(file, STAGES, outcome, seed, new Date().toISOString());
        if (outcome.kind === 'passed' && only !== undefined) {
          ctx.out('');
          ctx.out(`== ${SECTION_PASSED} ==`);
          ctx.out(`ผ่าน stage ${STAGES[only]!.id} (รันแยก stage เดียว ไม่ได้บันทึกใน .klog-lab.json)`);
          return;
        }
        if (outcome.kind === 'passed') {
          ctx.out('');
          ctx.out(`== ${SECTION_PASSED} ==`);
          ctx.out(`ผ่านครบ ${STAGES.length} จาก ${STAGES.length} stage: หน้าต่างของคุณทำทุกอย่างที่หน้าต่างของบทนี้ทำ`);
          ctx.out(`ต่อไป: วางมันไว้หลัง broker ตัวจริง: klog serve --window ${file}`);
          return;
        }
        ctx.out(stageLine(STAGES, outcome.index, '✗'));
        ctx.out('');
        ctx.out(`== ${SECTION_FAILED} ==`);
        for (const line of failureLines(STAGES, outcome, replay, ctx.style)) ctx.out(line);
        // The failing history as a file the site's simulator opens (--no-save writes nothing beside the file).
        if (raw.save && outcome.why.kind === 'verdict') {
          const stage = STAGES[outcome.index]!;
          const path = writeHistory(file, {
            version: LAB_HISTORY_VERSION,
            stage: stage.id,
            title: stage.title,
            seed,
            summary: outcome.why.failure.summary,
            rows: outcome.why.failure.rows,
            ...outcome.why.trace,
          });
          ctx.out(`    ดูบน timeline  ${path}`);
          ctx.out(`                   (หน้า simulator ของเว็บบทเรียน › ${OPEN_HISTORY})`);
        }
        ctx.out('');
        ctx.out(
          only === undefined ? `ผ่าน ${outcome.passed} จาก ${STAGES.length} stage` : 'stage ที่รันแยกไม่ผ่าน',
        );
        // One line on stderr, as every failing klog run ends.
        const hint = typedAsKlog() ? '' : ` · ${PATH_HINT}`;
        throw new LabCheckFailed(
          `lab check: stage ${outcome.index + 1} ${STAGES[outcome.index]!.id} ไม่ผ่าน (รายงานอยู่ข้างบน)${hint}`,
        );
      },
    );
  lab
    .command('status')
    .description('แสดงว่า file แล็บของคุณผ่านมาถึงขั้นไหนแล้ว')
    .argument('[file]', 'file แล็บของคุณ', 'lab.ts')
    .action((file: string) => {
      const progress = readProgress(progressPath(file));
      if (progress === undefined || progress.last === undefined) {
        ctx.out(`${file}: ยังไม่เคยตรวจ (รัน: klog lab check ${file})`);
        return;
      }
      const passed = STAGES.filter((s) => progress.stages[s.id]?.passed === true).length;
      ctx.out(`${file}: ผ่าน ${passed} จาก ${STAGES.length} stage`);
      STAGES.forEach((stage, i) => {
        const result = progress.stages[stage.id];
        const mark = result === undefined ? '·' : result.passed ? '✓' : '✗';
        ctx.out(stageLine(STAGES, i, mark));
      });
      ctx.out('');
      ctx.out(`รันล่าสุด ${progress.last.at} · seed ${progress.last.seed} · ${progress.last.result}`);
    });
  return lab;
}
