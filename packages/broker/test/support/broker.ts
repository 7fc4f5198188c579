import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker, createLogger, type StartOptions } from '../../src/index.js';

export interface TestBroker {
  readonly broker: Broker;
  readonly port: number;
  readonly dataDir: string;
  /** Every log line so far, `level: text`. */
  readonly lines: string[];
  restart(options?: Partial<StartOptions>): Promise<TestBroker>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'klog-broker-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A broker on 127.0.0.1, on a port the kernel picks, over a data directory of its own. */
export async function startBroker(
  options: Partial<StartOptions> = {},
  dataDir?: string,
): Promise<TestBroker> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'klog-broker-'));
  const lines: string[] = [];
  const logger = createLogger('debug', (level, line) => lines.push(`${level}: ${line}`));
  const broker = await Broker.start({ dataDir: dir, host: '127.0.0.1', port: 0, logger, ...options });
  const self: TestBroker = {
    broker,
    port: broker.address.port,
    dataDir: dir,
    lines,
    async restart(more = {}) {
      await broker.close();
      return startBroker({ ...options, ...more }, dir);
    },
    async stop() {
      await broker.close();
      if (dataDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}
