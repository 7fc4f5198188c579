import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ: 100 on every Linux Node runs on). */
const CLOCK_TICKS = 100;

/**
 * CPU seconds a process has used so far, all its threads and its main thread alone (its thread id is the
 * process id): each thread's run time in nanoseconds from /proc/<pid>/task/<tid>/schedstat, read once. A
 * thread that exits between two readings takes its time with it, so this is for processes whose threads
 * live as long as they do.
 */
export function threadCpuSeconds(pid: number): { all: number; mainThread: number } {
  let all = 0;
  let main = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    all += ns;
    if (tid === String(pid)) main = ns;
  }
  return { all: all / 1e9, mainThread: main / 1e9 };
}

/**
 * CPU seconds a process has used so far, all its threads (`threadCpuSeconds`). /proc/<pid>/stat counts in
 * 10 ms ticks, too coarse for the mock, which takes a tick or two to swallow 100 MB (its klog ÷ mock ratio
 * swung 11× to 21× on one tick); that count is the fallback where schedstat is missing.
 */
export function cpuSeconds(pid: number): number {
  try {
    const { all } = threadCpuSeconds(pid);
    if (Number.isFinite(all)) return all;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { user, kernel } = statSeconds(pid);
  return user + kernel;
}

/** A process's user and kernel CPU seconds from /proc/<pid>/stat (utime, stime): 10 ms ticks. */
function statSeconds(pid: number): { user: number; kernel: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS, kernel: Number(fields[12]) / CLOCK_TICKS };
}

/**
 * CPU seconds so far that a process (all its threads) spent in the kernel: /proc/<pid>/stat's stime, in
 * 10 ms ticks. Coarse for one run, it is for figures added up over several (a 100 MB produce is 5 to 20 of
 * them).
 */
export function kernelCpuSeconds(pid: number): number {
  return statSeconds(pid).kernel;
}

/** Resident memory of a process in bytes, from /proc/<pid>/status. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** Runs a command to its end; rejects with its stderr when it fails. Resolves to its wall time in ms. */
export function run(
  command: string,
  args: readonly string[],
  options: { stdout?: 'ignore' | 'count-lines' } = {},
) {
  return new Promise<{ ms: number; lines: number }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      stdio: ['ignore', options.stdout === 'count-lines' ? 'pipe' : 'ignore', 'pipe'],
    });
    let stderr = '';
    let lines = 0;
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      for (const byte of d) if (byte === 10) lines++;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, lines });
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}

/** A long-running child that prints a line saying where it listens; stopped with SIGTERM (or stdin closed). */
export interface Service {
  readonly pid: number;
  readonly address: string;
  stop(): Promise<void>;
}

export function startService(
  command: string,
  args: readonly string[],
  addressFrom: (line: string) => string | undefined,
  stopBy: 'sigterm' | 'stdin',
): Promise<Service> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not say where it listens within 30 s: ${stderr}`));
    }, 30_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${command} exited ${code} before listening: ${stderr}`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const address = addressFrom(line);
      if (address === undefined) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        address,
        async stop() {
          if (stopBy === 'stdin') child.stdin?.end();
          else child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
