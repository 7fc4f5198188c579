import type { Children } from '../processes.js';

/** One producer run: the same messages, the same settings, for every client; only `idempotence` differs. */
export interface ProduceRun {
  readonly port: number;
  readonly topic: string;
  /** Messages `<prefix>-0` … `<prefix>-<count − 1>`, sent in that order, all to partition 0. */
  readonly prefix: string;
  readonly count: number;
  readonly idempotence: boolean;
  /** max.in.flight.requests.per.connection (or the client's name for it). */
  readonly inFlight: number;
  /** At most this many messages in one request. */
  readonly batch: number;
  /** How long the client waits for a response before it gives up on it and retries. */
  readonly requestTimeoutMs: number;
  /** A scratch directory for files the client reads. */
  readonly scratch: string;
  /** A run still going after this long is a hang: killed, and the demo fails. */
  readonly hangMs: number;
}

/** The keys of a run's messages, in the order they are sent. */
export function keysOf(run: Pick<ProduceRun, 'prefix' | 'count'>): string[] {
  return Array.from({ length: run.count }, (_, i) => `${run.prefix}-${i}`);
}

/** A message's value (the Python side makes the same). */
export const messageValue = (key: string) => `value of ${key}`;

/**
 * What the application was told about one message: the offset its delivery report or promise gave, or the
 * error. `key` is undefined when the client's report does not name the message (kcat): such reports come
 * in the order the messages were sent.
 */
export type Told =
  | { readonly key: string | undefined; readonly offset: number }
  | { readonly key: string | undefined; readonly error: string };

/** What a producer run came to, on the application's side. */
export interface Produced {
  /** One entry per message, the last thing the application was told about it. */
  readonly told: readonly Told[];
  /**
   * Sends the application itself made again because the client library reported a failure it did not retry
   * (@platformatic/kafka gives up on a request that timed out); 0 for a library that retries on its own.
   */
  readonly resentByApplication: number;
}

export type Found =
  | { readonly found: true; readonly version: string }
  | { readonly found: false; readonly why: string; readonly install: string };

/** A Kafka client the demo drives, unmodified, against `klog serve`. */
export interface KafkaClient {
  /** As the output names it. */
  readonly name: string;
  find(children: Children): Promise<Found>;
  produce(children: Children, run: ProduceRun): Promise<Produced>;
  /** What it does with more requests in flight than asked, when it does not do as asked (printed as a note). */
  inFlightNote(run: Pick<ProduceRun, 'idempotence' | 'inFlight'>): string | undefined;
  /** Why the application had to send again, when `resentByApplication` > 0 (printed as a note). */
  readonly resendNote?: string;
}

/** A librdkafka client: asked for idempotence with `inFlight` requests in flight, does it start? */
export interface GuardedClient extends KafkaClient {
  /** The command as a person would type it, and the library's refusal (undefined if it started). */
  guard(
    children: Children,
    inFlight: number,
    hangMs: number,
  ): Promise<{ readonly command: string; readonly refusal: string | undefined }>;
}

export function isGuarded(client: KafkaClient): client is GuardedClient {
  return 'guard' in client;
}
