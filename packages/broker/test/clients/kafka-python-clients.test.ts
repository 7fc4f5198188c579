import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { startBroker, type TestBroker } from '../support/broker.js';
import { exec, PYTHON } from '../support/clients.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'kafka_python_idle.py');
const found = spawnSync(PYTHON, ['-c', 'import kafka'], { stdio: 'ignore' }).status === 0;
// Missing, the file fails, unless the user opted out (KLOG_SKIP=kafka-python): scripts/test-machine.mjs.
const skip = requireTool('kafka-python', found, `${PYTHON} -c 'import kafka' failed`);
/** The broker's idle limit, and the consumer's fetch wait past it. */
const IDLE_MS = 2000;
const FETCH_WAIT_MS = 3000;

describe.skipIf(skip)('kafka-python 2.0.2 against klog serve', { timeout: 180_000 }, () => {
  let b: TestBroker;
  beforeAll(async () => {
    b = await startBroker({ connectionsMaxIdleMs: IDLE_MS });
  });
  afterAll(() => b?.stop());

  it('produces, idles past connections.max.idle.ms and produces again, then reads all through a group whose fetches wait longer than that', async () => {
    // A hang bound only: a client stuck in a retry loop fails the test with what it printed.
    const r = await exec(
      PYTHON,
      [SCRIPT, `127.0.0.1:${b.port}`, String((IDLE_MS * 2) / 1000), String(FETCH_WAIT_MS)],
      { hangMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      firstAcked: number;
      lateAcked: number;
      keys: string[];
      committed: number;
    };
    expect(out.firstAcked).toBe(3000);
    expect(out.lateAcked).toBe(100);
    const expected = [
      ...Array.from({ length: 3000 }, (_, i) => `k${i}`),
      ...Array.from({ length: 100 }, (_, i) => `late${i}`),
    ].sort();
    expect(out.keys).toEqual(expected);
    expect(out.committed).toBe(3100);
    // The idle producer's connection was closed for idleness (so the limit was in force), and the client
    // came back on its own; the consumer's waiting fetches were answered, not dropped.
    expect(b.lines.some((l) => /closed: idle for connections.max.idle.ms \(2000 ms\)$/.test(l))).toBe(true);
  });
});
