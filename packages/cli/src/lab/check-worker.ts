// The thread that runs a learner's code for `klog lab check`: their file is loaded and called here,
// so that the main thread, which cannot interrupt synchronous code, can still see a hang and end it.
import { resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { guardWindow, LearnerThrew } from './guard.js';
import { startTrace, trace } from './lab-history.js';
import { firstLine, loadWindowFile } from './load-window.js';
import { Rng } from './random.js';
import type { WorkerReport } from './stage-report.js';
import { STAGES } from './stages.js';
import { StageFailed } from './verdict-rows.js';

const { file, seed, cell, only } = workerData as {
  file: string;
  seed: number;
  cell: SharedArrayBuffer;
  /** The index of the one stage to run (`--stage`), or every stage when undefined. */
  only: number | undefined;
};
const post = (report: WorkerReport) => parentPort!.postMessage(report);
const calls = { cell: new Int32Array(cell), names: [] as string[] };

void run();

async function run(): Promise<void> {
  let lab: ReturnType<typeof loadWindowFile>;
  try {
    lab = guardWindow(loadWindowFile(file), calls, resolve(file));
  } catch (error) {
    post({ kind: 'load-error', message: firstLine(error).replace(/^LabFileError: /, '') });
    return;
  }
  post({ kind: 'names', names: calls.names });
  for (const [index, stage] of STAGES.entries()) {
    if (only !== undefined && index !== only) continue;
    post({ kind: 'start', index });
    startTrace();
    try {
      // Each stage draws from its own stream of the seed: passing an earlier stage changes no later input.
      await stage.run(lab, new Rng((seed + Math.imul(index + 1, 0x9e3779b9)) >>> 0), file);
      post({ kind: 'pass', index });
    } catch (error) {
      if (error instanceof StageFailed) post({ kind: 'fail', index, failure: error.failure, trace: trace() });
      else if (error instanceof LearnerThrew)
        post({ kind: 'threw', index, fn: error.fn, message: error.message });
      else post({ kind: 'error', index, message: firstLine(error) });
      return;
    }
  }
  post({ kind: 'done' });
}
