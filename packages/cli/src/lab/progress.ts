import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CheckOutcome } from './stage-report.js';
import type { Stage } from './stages.js';

/** Where a lab folder keeps its progress: beside the learner's file. */
export const PROGRESS_FILE = '.klog-lab.json';

/** A lab's progress: each stage's last result, and the last run. */
export interface Progress {
  readonly file: string;
  readonly stages: Readonly<
    Record<string, { readonly passed: boolean; readonly seed: number; readonly at: string }>
  >;
  readonly last?: { readonly seed: number; readonly at: string; readonly result: string };
}

export function progressPath(labFile: string): string {
  return join(dirname(labFile), PROGRESS_FILE);
}

export function readProgress(path: string): Progress | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Progress;
  } catch {
    return undefined;
  }
}

/** Record a run: the stages it passed, the one it failed (stages after it keep their earlier result). */
export function saveProgress(
  labFile: string,
  stages: readonly Stage[],
  outcome: CheckOutcome,
  seed: number,
  at: string,
): void {
  const path = progressPath(labFile);
  const before = readProgress(path);
  const kept = before?.file === basename(labFile) ? before.stages : {};
  const result: Record<string, Progress['stages'][string]> = { ...kept };
  const failedAt = outcome.kind === 'failed' ? outcome.index : stages.length;
  stages.forEach((stage, i) => {
    if (i < failedAt) result[stage.id] = { passed: true, seed, at };
    else if (i === failedAt) result[stage.id] = { passed: false, seed, at };
  });
  const progress: Progress = {
    file: basename(labFile),
    stages: result,
    last: {
      seed,
      at,
      result:
        outcome.kind === 'passed' ? 'ผ่านทุก stage' : `ไม่ผ่านที่ stage ${failedAt + 1} ${stages[failedAt]!.id}`,
    },
  };
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(progress, null, 2)}\n`);
  renameSync(temporary, path);
}
