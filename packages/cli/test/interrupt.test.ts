import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bin } from './run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-interrupt-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const slowWrites = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/slow-writes.mjs');

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly ms: number;
}

/**
 * Run `klog idem-demo` with its temporary directories under `tmp` and every write slowed down (so the
 * run lasts long enough to be interrupted), sending SIGINT after `delayMs` unless it is undefined.
 */
function run(tmp: string, delayMs: number | undefined): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', slowWrites, bin, 'idem-demo', '--resend', '--now-ms', '1'],
      {
        env: { ...process.env, TMPDIR: tmp },
        stdio: 'ignore',
      },
    );
    const timer = delayMs === undefined ? undefined : setTimeout(() => child.kill('SIGINT'), delayMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: performance.now() - started });
    });
  });
}

/** Up to 41 whole runs of node, each with its writes slowed: time out only on a hang. */
const LONG_TIMEOUT_MS = 600_000;

describe('Ctrl-C during klog idem-demo', { timeout: LONG_TIMEOUT_MS }, () => {
  it('never leaves a temporary directory behind, wherever in the run it lands', async () => {
    // How long a whole run takes on this machine now: the signal is sent at moments spread over it.
    const whole = await run(mkdtempSync(join(scratch, 'whole-')), undefined);
    expect(whole.code).toBe(0);
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      const tmp = mkdtempSync(join(scratch, 'tmp-'));
      const delayMs = Math.round((whole.ms * (i % 20)) / 20);
      const { code, signal } = await run(tmp, delayMs);
      const outcome = signal ? `signal ${signal}` : `code ${code}`;
      // Killed during start-up (before klog holds the signal), exited as interrupted (130) once the run
      // was over, or already on its way out when the signal came (0).
      expect(['signal SIGINT', 'code 130', 'code 0'], `SIGINT after ${delayMs} ms`).toContain(outcome);
      expect(readdirSync(tmp), `SIGINT after ${delayMs} ms: ${outcome}`).toEqual([]);
      outcomes.push(outcome);
      // Enough once a signal has landed both during start-up and in the middle of the run.
      if (outcomes.includes('code 130') && outcomes.includes('signal SIGINT') && i >= 19) break;
    }
    // The test means something only if some signal landed while the run was writing.
    expect(outcomes).toContain('code 130');
  });
});
