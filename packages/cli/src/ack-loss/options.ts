import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';
import type { KafkaClient } from './clients/client.js';
import { confluentKafka } from './clients/confluent-kafka.js';
import { kafkajs } from './clients/kafkajs.js';
import { kcat } from './clients/kcat.js';
import { platformatic } from './clients/platformatic.js';

/** Every client the demo knows, in the order it runs them, by the name `--clients` takes. */
export const CLIENTS: ReadonlyMap<string, KafkaClient> = new Map([
  ['kcat', kcat],
  ['confluent-kafka', confluentKafka],
  ['kafkajs', kafkajs],
  ['platformatic', platformatic],
]);

export interface AckLossOptions {
  readonly clients: readonly KafkaClient[];
  readonly messages: number;
  readonly batch: number;
  readonly inFlight: number;
  readonly dropAcks: number;
  readonly closeAfterAppend: number;
  readonly requestTimeoutMs: number;
  /** A client that is not installed fails the run instead of being skipped (set by the CI environment variable). */
  readonly requireAll: boolean;
  /** `--window`: the brokers judge with this lab file (absolute), not klog's own window. */
  readonly window: string | undefined;
}

/** The exact run: one message per request, one request in flight. Its counts are claims, checked one by one. */
export function isExact(o: Pick<AckLossOptions, 'batch' | 'inFlight'>): boolean {
  return o.batch === 1 && o.inFlight === 1;
}

export function parseClients(text: string): KafkaClient[] {
  const names = text.split(',').map((n) => n.trim());
  const picked: KafkaClient[] = [];
  for (const name of names) {
    const client = CLIENTS.get(name);
    if (client === undefined) {
      throw new UsageError(
        `--clients ${JSON.stringify(text)}: unknown client ${JSON.stringify(name)}; expected some of ${[...CLIENTS.keys()].join(', ')}`,
      );
    }
    if (picked.includes(client))
      throw new UsageError(`--clients ${JSON.stringify(text)}: ${name} is named twice`);
    picked.push(client);
  }
  // Always in the demo's order, whatever order they were named in.
  return [...CLIENTS.values()].filter((c) => picked.includes(c));
}

export interface RawAckLossOptions {
  clients: string;
  messages: string;
  batch: string;
  inFlight: string;
  dropAcks: string;
  closeAfterAppend: string;
  requestTimeoutMs: string;
  window?: string;
}

/**
 * The largest run: enough for many batches with five in flight, small enough to finish in a minute or two
 * per client on a loaded machine.
 */
export const MAX_MESSAGES = 100_000;

export function parseAckLossOptions(raw: RawAckLossOptions, env: NodeJS.ProcessEnv): AckLossOptions {
  const messages = wholeNumber('--messages', raw.messages, 1, MAX_MESSAGES);
  const batch = wholeNumber('--batch', raw.batch, 1, 10_000);
  const inFlight = wholeNumber('--in-flight', raw.inFlight, 1, 5);
  const dropAcks = wholeNumber('--drop-acks', raw.dropAcks, 0, 1000);
  const closeAfterAppend = wholeNumber('--close-after-append', raw.closeAfterAppend, 0, 1000);
  const requestTimeoutMs = wholeNumber('--request-timeout-ms', raw.requestTimeoutMs, 100, 60_000);
  const requests = Math.ceil(messages / batch);
  if (dropAcks + closeAfterAppend > requests) {
    throw new UsageError(
      `--drop-acks ${dropAcks} --close-after-append ${closeAfterAppend}: more lost acks than the ${requests} request${requests === 1 ? '' : 's'} that write (with idempotence on, each batch is written once)`,
    );
  }
  const ci = env['CI'];
  return {
    clients: parseClients(raw.clients),
    messages,
    batch,
    inFlight,
    dropAcks,
    closeAfterAppend,
    requestTimeoutMs,
    requireAll: ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false',
    window: raw.window === undefined ? undefined : resolve(raw.window),
  };
}
