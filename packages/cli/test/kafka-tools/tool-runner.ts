import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bin, HANG_MS, root } from '../run-klog.js';

/** packages/cli/kafka/bin: Kafka's tools as scripts, as a learner or librdkafka's tests run them. */
export const kafkaBin = join(root, 'packages/cli/kafka/bin');

export type Server = { child: ChildProcess; port: number; exited: Promise<number | null> };

/**
 * `klog serve` as a process on `port` (by default one the kernel picks), over `dataDir`, with no initial
 * rebalance delay.
 */
export function startServer(dataDir: string, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--group-initial-rebalance-delay-ms',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) resolve({ child, port: Number(m[1]), exited });
    });
  });
}

/** One of the scripts, as `sh` runs it: `kafka('kafka-topics.sh', ['--list', …])`. */
export function kafka(script: string, args: string[], input?: string) {
  const run = spawnSync(join(kafkaBin, script), args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '' },
    timeout: HANG_MS,
    killSignal: 'SIGKILL',
    ...(input === undefined ? {} : { input }),
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, hung: run.signal === 'SIGKILL' };
}
