import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Children } from './processes.js';

/** The built `klog` this demo is part of: the broker it starts is `klog serve`, as a user would run it. */
export const KLOG_BIN = fileURLToPath(new URL('../bin.js', import.meta.url));

/** The faults `klog serve` is started with. */
export interface Faults {
  readonly dropAcks: number;
  readonly closeAfterAppend: number;
  /** A lab file the broker judges idempotent batches with (`klog serve --window`). */
  readonly window?: string | undefined;
}

export function serveArgs(dataDir: string, faults: Faults): string[] {
  return [
    'serve',
    '--data-dir',
    dataDir,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--drop-acks',
    String(faults.dropAcks),
    '--close-after-append',
    String(faults.closeAfterAppend),
    ...(faults.window === undefined ? [] : ['--window', faults.window]),
  ];
}

/** A `klog serve` process on a port the kernel picked, its log read line by line. */
export interface ServedBroker {
  readonly port: number;
  /** The broker's `fault: …` lines so far, without their time stamps. */
  readonly faults: readonly string[];
  /** SIGTERM, then the clean shutdown; rejects unless it exits 0. */
  stop(): Promise<void>;
}

/**
 * Starts `klog serve` (this same klog, as a child process) on 127.0.0.1 with port 0 and the faults, and
 * resolves once it listens, with the port it says it took. Its log goes nowhere but here: the demo keeps
 * the fault lines and, if the broker fails, the last lines for the error.
 */
export function serveWithFaults(
  children: Children,
  dataDir: string,
  faults: Faults,
  hangMs: number,
): Promise<ServedBroker> {
  if (!existsSync(KLOG_BIN)) throw new Error(`${KLOG_BIN} is missing: build @klog/cli first`);
  const child = children.spawn(process.execPath, [KLOG_BIN, ...serveArgs(dataDir, faults)]);
  const log: string[] = [];
  const faultLines: string[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  // 'close', not 'exit': by then every line it wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const tail = () => [...log.slice(-5), stderr.trim()].filter((l) => l !== '').join('\n  ');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`klog serve did not start listening within ${hangMs / 1000} s:\n  ${tail()}`));
    }, hangMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`klog serve exited (${code}) before it listened:\n  ${tail()}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.push(line);
      const fault = /\b(fault: .*)$/.exec(line);
      if (fault !== null) faultLines.push(fault[1]!);
      const listening = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (listening === null) return;
      clearTimeout(timer);
      resolve({
        port: Number(listening[1]),
        faults: faultLines,
        async stop() {
          child.kill('SIGTERM');
          const stopTimer = setTimeout(() => child.kill('SIGKILL'), hangMs);
          const code = await exited;
          clearTimeout(stopTimer);
          if (code !== 0) throw new Error(`klog serve exited ${code} on SIGTERM:\n  ${tail()}`);
        },
      });
    });
  });
}
