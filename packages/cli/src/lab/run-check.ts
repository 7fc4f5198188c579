import { Worker } from 'node:worker_threads';
import { LabFileError } from './lab-file-error.js';
import type { CheckOutcome, WorkerReport } from './stage-report.js';

/** No single call of a learner's function takes this long unless it never returns. */
export const DEFAULT_CALL_TIMEOUT_MS = 5000;

/**
 * Run every stage (or the one at index `only`) over the learner's file in a worker; `onStage` hears each stage pass as it does.
 * A learner's function that has not returned after `callTimeoutMs` is taken as a hang: the worker is
 * ended, and the outcome names the function.
 */
export function runCheck(
  file: string,
  seed: number,
  onPass: (index: number) => void,
  callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  only?: number,
): Promise<CheckOutcome> {
  const cell = new SharedArrayBuffer(8);
  const calls = new Int32Array(cell);
  const worker = new Worker(new URL('./check-worker.js', import.meta.url), {
    workerData: { file, seed, cell, only },
    env: workerEnv(),
  });
  let names: readonly string[] = [];
  let current = 0;
  let passed = 0;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: CheckOutcome | Error) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      void worker.terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    let lastCount = -1;
    let sinceMs = Date.now();
    const watch = setInterval(() => {
      const count = Atomics.load(calls, 0);
      const running = Atomics.load(calls, 1);
      if (count !== lastCount || running === 0) {
        lastCount = count;
        sinceMs = Date.now();
        return;
      }
      if (Date.now() - sinceMs < callTimeoutMs) return;
      const fn = names[running - 1] ?? 'a function of yours';
      finish({ kind: 'failed', index: current, passed, why: { kind: 'hung', fn, ms: callTimeoutMs } });
    }, 50);
    worker.on('message', (report: WorkerReport) => {
      switch (report.kind) {
        case 'load-error':
          return finish(new LabFileError(report.message));
        case 'names':
          names = report.names;
          return;
        case 'start':
          current = report.index;
          return;
        case 'pass':
          passed++;
          onPass(report.index);
          return;
        case 'fail':
          return finish({
            kind: 'failed',
            index: report.index,
            passed,
            why: { kind: 'verdict', failure: report.failure, trace: report.trace },
          });
        case 'threw':
          return finish({
            kind: 'failed',
            index: report.index,
            passed,
            why: { kind: 'threw', fn: report.fn, message: report.message },
          });
        case 'error':
          return finish({
            kind: 'failed',
            index: report.index,
            passed,
            why: { kind: 'error', message: report.message },
          });
        case 'done':
          return finish({ kind: 'passed', passed });
      }
    });
    worker.on('error', (error) =>
      finish({ kind: 'failed', index: current, passed, why: { kind: 'error', message: String(error) } }),
    );
    worker.on('exit', (code) => {
      if (!settled) {
        finish({
          kind: 'failed',
          index: current,
          passed,
          why: { kind: 'error', message: `the check's worker stopped (exit code ${code})` },
        });
      }
    });
  });
}

/**
 * The worker's environment: klog's, less the colour switches, which klog has already read (a worker that
 * sees both NO_COLOR and FORCE_COLOR set, even empty, prints a warning of Node's about them).
 */
export function workerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['NO_COLOR'];
  delete env['FORCE_COLOR'];
  return env;
}
