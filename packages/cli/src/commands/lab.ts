import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';
import { initLab } from '../lab/init.js';
import { LabFileError } from '../lab/lab-file-error.js';
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
Loads your file (TypeScript, no build step) and runs the stages in the chapter's
order, stopping at the first that fails:
${STAGES.map((s, i) => `  ${i + 1}. ${s.title}`).join('\n')}
Inputs are drawn from a seed the first line prints; --seed replays a run. A
failure shows the request, the expected and the actual answer field by field,
and the section of ${LESSON_PAGE} to reread. A function of yours that throws is
named; one that does not return within ${DEFAULT_CALL_TIMEOUT_MS / 1000} s is stopped and named.

--stage NAME runs one stage alone (${STAGES.map((s) => s.id).join(', ')}); such a run
is not kept in the progress. The broker stage starts the broker of klog serve
on 127.0.0.1 with your window judging every idempotent batch, sends it raw
Produce requests, and checks the history for Jepsen's anomalies (duplicate,
lost-write, inconsistent-offsets, nonmonotonic-send).

Progress is kept in .klog-lab.json beside your file (klog lab status shows it).

Exit codes: 0 every stage passed, 1 a stage failed (the report is on stdout),
2 bad usage or a file that does not load.`;

export function labCommand(ctx: CommandContext): Command {
  const lab = new Command('lab').description(
    'the chapter as a lab: write the window yourself, and klog checks it',
  );
  lab
    .command('init')
    .description('write the starter: lab.ts (the functions the chapter builds, as TODOs) and its README')
    .argument('[dir]', 'folder to write it in (made if missing)', 'klog-lab')
    .action((dir: string) => {
      const written = initLab(dir);
      for (const path of written) ctx.out(`wrote ${path}`);
      ctx.out('');
      ctx.out(`next: cd ${dir}, fill in the TODOs of lab.ts, then run: klog lab check`);
    });
  lab
    .command('check')
    .description('check your window stage by stage, stopping at the first stage that fails')
    .argument('[file]', 'your lab file', 'lab.ts')
    .addOption(new Option('--seed <n>', `replay the inputs of a run (0..${MAX_SEED}; default: a new seed)`))
    .option('--no-save', 'do not record the result in .klog-lab.json')
    .option('--stage <name>', `run this stage alone (${STAGES.map((s) => s.id).join(', ')})`)
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
            `lab check: --stage ${raw.stage}: no such stage (${STAGES.map((s) => s.id).join(', ')})`,
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
        ctx.out('');
        ctx.out(
          only === undefined ? `ผ่าน ${outcome.passed} จาก ${STAGES.length} stage` : 'stage ที่รันแยกไม่ผ่าน',
        );
        throw new LabCheckFailed(
          `lab check: stage ${outcome.index + 1} ${STAGES[outcome.index]!.id} failed (the report is above)`,
        );
      },
    );
  lab
    .command('status')
    .description('show which stages your lab file has passed')
    .argument('[file]', 'your lab file', 'lab.ts')
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
