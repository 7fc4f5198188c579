// A broker inside a Node process, for a project's own tests: one call starts it on 127.0.0.1 and a port the
// kernel picks, over a temporary data directory that closing removes. What Testcontainers' KafkaContainer
// gives a JVM project (and its settings for one node: no initial rebalance delay), without a container.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerOptions } from './config/config.js';
import { Broker, type StartOptions } from './server.js';

/** A running broker and what a client needs to reach it; `await using` closes it at the end of the scope. */
export interface EmbeddedKafka extends AsyncDisposable {
  /** `127.0.0.1:<port>`: KafkaJS's `brokers: [k.bootstrap]`, librdkafka's `bootstrap.servers`. */
  readonly bootstrap: string;
  readonly host: string;
  readonly port: number;
  /** Where its log is: a fresh temporary directory unless `dataDir` was given. */
  readonly dataDir: string;
  readonly broker: Broker;
  /** Shuts down cleanly (answers in hand go out, the log is flushed), then removes a temporary data directory. */
  close(): Promise<void>;
}

export type EmbeddedKafkaOptions = Partial<BrokerOptions> & Omit<StartOptions, keyof BrokerOptions>;

/**
 * Starts a broker in this process. Every setting of `klog serve` may be given by its option name
 * (`numPartitions`, `autoCreateTopicsEnable`…); `groupInitialRebalanceDelayMs` defaults to 0, as Kafka's
 * test containers set it, so a test's consumer joins at once. A `dataDir` given is kept on close.
 *
 * ```ts
 * await using kafka = await startKafka();
 * const client = new Kafka({ brokers: [kafka.bootstrap] });
 * ```
 */
export async function startKafka(options: EmbeddedKafkaOptions = {}): Promise<EmbeddedKafka> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'klog-embedded-'));
  let broker: Broker;
  try {
    broker = await Broker.start({
      host: '127.0.0.1',
      port: 0,
      groupInitialRebalanceDelayMs: 0,
      ...options,
      dataDir,
    });
  } catch (error) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { host, port } = broker.address;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= broker.close().finally(() => {
      if (temporary) rmSync(dataDir, { recursive: true, force: true });
    });
    return closing;
  };
  return {
    bootstrap: `${host}:${port}`,
    host,
    port,
    dataDir,
    broker,
    close,
    [Symbol.asyncDispose]: close,
  };
}
