import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Every child process the demo starts (the broker, kcat, Python), so that every way out — the end of the
 * run, an error, Ctrl-C, SIGTERM — can stop the ones still running and leave nothing behind.
 */
export class Children {
  readonly #running = new Set<ChildProcess>();

  /** Starts `command` and keeps it until it exits. Throws (asynchronously, via 'error') if it cannot start. */
  spawn(command: string, args: readonly string[], stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
    const child = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe'] });
    this.#running.add(child);
    child.once('exit', () => this.#running.delete(child));
    child.once('error', () => this.#running.delete(child));
    return child;
  }

  /** Runs `command` to the end; kills it and rejects after `hangMs` (only a hang gets there). */
  run(command: string, args: readonly string[], hangMs: number): Promise<Finished> {
    return new Promise((resolve, reject) => {
      const child = this.spawn(command, args);
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${command} ${args.join(' ')} was still running after ${hangMs / 1000} s: killed`));
      }, hangMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  /** Kills every child still running (SIGKILL: they hold nothing the demo keeps). */
  killAll(): void {
    for (const child of this.#running) child.kill('SIGKILL');
    this.#running.clear();
  }
}

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}
