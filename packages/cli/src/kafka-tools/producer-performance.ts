// kafka-producer-perf-test.sh, after Kafka 4.1.0's `org.apache.kafka.tools.ProducerPerformance`: --num-records
// records of --record-size random capital letters (or lines of --payload-file, or 0, 1, 2… with
// --payload-monotonic) sent as the Java producer sends them — keyless records stuck to one partition per
// batch (Kafka's BuiltInPartitioner), batches of batch.size closed by size or linger.ms, up to
// max.in.flight.requests.per.connection Produce requests in flight, idempotent by default — and its `Stats`:
// a line every 5 s, then the total line with latency percentiles, in Kafka's words and number formats.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Produce } from '@klog/protocol';
import type { RecordInput } from '@klog/storage';
import { buildProducerBatch } from '@klog/storage/internals';
import type { CommandContext } from '../command-context.js';
import type { AdminClient } from '../topics/admin-client.js';
import { initProducerId, NO_PRODUCER_ID, partitionCount } from './clients.js';
import { readProperties } from './console-producer.js';
import { exceptionText, KafkaApiError, UncaughtJavaException, withBootstrap } from './kafka-errors.js';
import { optionTable, type ParsedOptions, parseToolArgs, ToolUsageError } from './tool-options.js';

const TOOL = 'producer-performance';

export const PRODUCER_PERFORMANCE_OPTIONS = optionTable(`
--topic <TOPIC>                           produce messages to this topic
--num-records <NUM-RECORDS>               number of messages to produce
--record-size <RECORD-SIZE>               message size in bytes. Note that you must provide exactly one of --record-size or --payload-file or --payload-monotonic.
--payload-file <PAYLOAD-FILE>             file to read the message payloads from. This works only for UTF-8 encoded text files. Payloads will be read from this file and a payload will be randomly selected when sending messages.
--payload-monotonic                       payload is monotonically increasing integer.
--payload-delimiter <PAYLOAD-DELIMITER>   provides delimiter to be used when --payload-file is provided. Defaults to new line.
--throughput <THROUGHPUT>                 throttle maximum message throughput to *approximately* THROUGHPUT messages/sec. Set this to -1 to disable throttling.
--producer-props <PROP-NAME=PROP-VALUE>...  kafka producer related configuration properties like bootstrap.servers,client.id etc. These configs take precedence over those passed via --producer.config.
--producer.config <CONFIG-FILE>           producer config properties file.
--print-metrics                           print out metrics at the end of the test.
  unsupported: klog's producer keeps no Java metrics registry to print
--transactional-id <TRANSACTIONAL-ID>     The transactional id to use.
  unsupported: klog has no transactions (it refuses InitProducerId with a transactional id)
--transaction-duration-ms <TRANSACTION-DURATION>  The max age of each transaction.
  unsupported: klog has no transactions (it refuses InitProducerId with a transactional id)
`);

/** Producer settings this tool acts on, with the Java producer's defaults (Kafka 4: linger.ms is 5). */
const SETTINGS: Readonly<Record<string, string>> = {
  'bootstrap.servers': '',
  acks: 'all',
  'enable.idempotence': 'true',
  'linger.ms': '5',
  'batch.size': '16384',
  'max.in.flight.requests.per.connection': '5',
  'client.id': 'perf-producer-client',
  'compression.type': 'none',
  'key.serializer': '',
  'value.serializer': '',
};

/** argparse4j's failure: the usage line and `producer-performance: error: …` on stderr, exit 1. */
function argumentError(message: string): ToolUsageError {
  return new ToolUsageError(
    `usage: ${TOOL} [-h] --topic TOPIC --num-records NUM-RECORDS (--record-size RECORD-SIZE | --payload-file PAYLOAD-FILE | --payload-monotonic) [--payload-delimiter PAYLOAD-DELIMITER] --throughput THROUGHPUT [--producer-props PROP-NAME=PROP-VALUE [PROP-NAME=PROP-VALUE ...]] [--producer.config CONFIG-FILE] [--print-metrics] [--transactional-id TRANSACTIONAL-ID] [--transaction-duration-ms TRANSACTION-DURATION]\n${TOOL}: error: ${message}`,
  );
}

/** argparse4j's `nargs("+")`: `--producer-props a=1 b=2` is two values, up to the next option. */
function expandNargs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a !== '--producer-props') {
      out.push(a);
      continue;
    }
    let n = 0;
    while (i + 1 < args.length && !args[i + 1]!.startsWith('--')) {
      out.push('--producer-props', args[++i]!);
      n++;
    }
    if (n === 0) throw argumentError('argument --producer-props: expected at least one argument');
  }
  return out;
}

export interface PerfConfig {
  readonly topic: string;
  readonly numRecords: number;
  readonly recordSize: number | undefined;
  readonly payloads: readonly Uint8Array[];
  readonly monotonic: boolean;
  readonly throughput: number;
  readonly props: ReadonlyMap<string, string>;
}

function wholeNumber(opts: ParsedOptions, name: string): number | undefined {
  const text = opts.value(name);
  if (text === undefined) return undefined;
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw argumentError(`argument --${name}: could not convert '${text}' to a number`);
  return n;
}

/** ProducerPerformance.ConfigPostProcessor: the checks and their messages, in Kafka's order. */
export function perfConfig(args: readonly string[], out: (line: string) => void): PerfConfig {
  let opts: ParsedOptions;
  try {
    opts = parseToolArgs(
      'kafka-producer-perf-test.sh',
      'This tool is used to verify the producer performance.',
      PRODUCER_PERFORMANCE_OPTIONS,
      expandNargs(args),
    );
  } catch (error) {
    if (error instanceof ToolUsageError && !error.message.startsWith("klog's"))
      throw argumentError(error.message);
    throw error;
  }
  for (const name of ['topic', 'num-records', 'throughput'])
    if (!opts.has(name)) throw argumentError(`argument --${name} is required`);
  const payloadWays = ['record-size', 'payload-file', 'payload-monotonic'].filter((n) => opts.has(n));
  if (payloadWays.length === 0)
    throw argumentError('one of the arguments --record-size --payload-file --payload-monotonic is required');
  if (payloadWays.length > 1)
    throw argumentError(`argument --${payloadWays[1]}: not allowed with argument --${payloadWays[0]}`);
  const numRecords = wholeNumber(opts, 'num-records')!;
  const recordSize = wholeNumber(opts, 'record-size');
  const throughputText = opts.value('throughput')!;
  const throughput = Number(throughputText);
  if (throughputText.trim() === '' || !Number.isFinite(throughput))
    throw argumentError(`argument --throughput: could not convert '${throughputText}' to a number`);
  if (numRecords <= 0) throw argumentError('--num-records should be greater than zero');
  if (recordSize !== undefined && recordSize <= 0)
    throw argumentError('--record-size should be greater than zero');
  if (!opts.has('producer-props') && !opts.has('producer.config'))
    throw argumentError('Either --producer-props or --producer.config must be specified.');

  const payloads: Uint8Array[] = [];
  const file = opts.value('payload-file');
  if (file !== undefined) {
    const path = resolve(file);
    out(`Reading payloads from: ${path}`);
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {}
    if (size === 0)
      throw new UncaughtJavaException(
        'java.lang.IllegalArgumentException',
        'File does not exist or empty file provided.',
      );
    const delimiter =
      (opts.value('payload-delimiter') ?? '\\n') === '\\n' ? '\n' : opts.value('payload-delimiter')!;
    // Scanner.useDelimiter takes a regular expression and skips empty tokens.
    for (const piece of readFileSync(path, 'utf8').split(new RegExp(delimiter)))
      if (piece !== '') payloads.push(new TextEncoder().encode(piece));
    out(`Number of messages read: ${payloads.length}`);
  }

  const props = new Map<string, string>();
  const config = opts.value('producer.config');
  if (config !== undefined) for (const [k, v] of readProperties(config)) props.set(k, v);
  for (const prop of opts.values('producer-props')) {
    const pieces = prop.split('=');
    // readProps: exactly one '=' (String.split drops trailing empty pieces, so `a=` is one piece).
    if (pieces.length !== 2 || pieces[1] === '')
      throw new UncaughtJavaException('java.lang.IllegalArgumentException', `Invalid property: ${prop}`);
    props.set(pieces[0]!, pieces[1]!);
  }
  for (const k of props.keys()) {
    if (!(k in SETTINGS))
      throw new ToolUsageError(
        `klog's kafka-producer-perf-test.sh does not act on the producer setting ${k}`,
      );
  }
  if (props.has('transactional.id'))
    throw new ToolUsageError(
      "klog's kafka-producer-perf-test.sh does not support transactions: klog has none",
    );
  return {
    topic: opts.value('topic')!,
    numRecords,
    recordSize,
    payloads,
    monotonic: opts.has('payload-monotonic'),
    throughput,
    props,
  };
}

/** ProducerPerformance.Stats: counts, a sample of latencies for the percentiles, a window printed every 5 s. */
export class PerfStats {
  readonly #start: number;
  readonly #latencies: Int32Array;
  readonly #sampling: number;
  #iteration = 0;
  #index = 0;
  #count = 0;
  #bytes = 0;
  #maxLatency = 0;
  #totalLatency = 0;
  #windowCount = 0;
  #windowMaxLatency = 0;
  #windowTotalLatency = 0;
  #windowBytes = 0;
  #windowStart: number;

  constructor(
    numRecords: number,
    readonly reportingIntervalMs: number,
    readonly print: (line: string) => void,
    readonly now: () => number = Date.now,
  ) {
    this.#start = now();
    this.#windowStart = this.#start;
    this.#sampling = Math.floor(numRecords / Math.min(numRecords, 500_000));
    this.#latencies = new Int32Array(Math.floor(numRecords / this.#sampling) + 1);
  }

  /** PerfCallback.onCompletion of a record sent without error. */
  record(latency: number, bytes: number, time: number): void {
    this.#count++;
    this.#bytes += bytes;
    this.#totalLatency += latency;
    this.#maxLatency = Math.max(this.#maxLatency, latency);
    this.#windowCount++;
    this.#windowBytes += bytes;
    this.#windowTotalLatency += latency;
    this.#windowMaxLatency = Math.max(this.#windowMaxLatency, latency);
    if (this.#iteration % this.#sampling === 0) this.#latencies[this.#index++] = latency;
    this.#iteration++;
    if (time - this.#windowStart >= this.reportingIntervalMs) {
      this.#printWindow();
      this.#windowStart = this.now();
      this.#windowCount = 0;
      this.#windowMaxLatency = 0;
      this.#windowTotalLatency = 0;
      this.#windowBytes = 0;
    }
  }

  get count(): number {
    return this.#count;
  }

  #printWindow(): void {
    const elapsed = this.now() - this.#windowStart;
    this.print(
      `${this.#windowCount} records sent, ${fixed(rate(this.#windowCount, elapsed), 1)} records/sec (${fixed(mb(this.#windowBytes, elapsed), 2)} MB/sec), ${fixed(this.#windowTotalLatency / this.#windowCount, 1)} ms avg latency, ${fixed(this.#windowMaxLatency, 1)} ms max latency.`,
    );
  }

  printTotal(): void {
    const elapsed = this.now() - this.#start;
    const sorted = this.#latencies.slice(0, this.#index).sort();
    const at = (p: number) => sorted[Math.floor(p * sorted.length)] ?? 0;
    this.print(
      `${this.#count} records sent, ${fixed(rate(this.#count, elapsed), 1)} records/sec (${fixed(mb(this.#bytes, elapsed), 2)} MB/sec), ${fixed(this.#totalLatency / this.#count, 2)} ms avg latency, ${fixed(this.#maxLatency, 2)} ms max latency, ${at(0.5)} ms 50th, ${at(0.95)} ms 95th, ${at(0.99)} ms 99th, ${at(0.999)} ms 99.9th.`,
    );
  }
}

const rate = (n: number, ms: number) => (1000 * n) / ms;
const mb = (bytes: number, ms: number) => (1000 * bytes) / ms / (1024 * 1024);
/** Java's `%.Nf`: half-up rounding, and NaN or Infinity spelled as Java spells them. */
function fixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return x.toFixed(digits);
}

/** Kafka's ThroughputThrottler: sleeps so that `i` records by now is about `perSec` a second. */
class Throttler {
  readonly #sleepNsPerRecord: number;
  #sleepDeficitNs = 0;
  constructor(
    readonly perSec: number,
    readonly startMs: number,
  ) {
    this.#sleepNsPerRecord = perSec > 0 ? 1e9 / perSec : 0;
  }
  shouldThrottle(amountSoFar: number, sendStartMs: number): boolean {
    if (this.perSec < 0) return false;
    const elapsedSec = (sendStartMs - this.startMs) / 1000;
    return elapsedSec > 0 && amountSoFar / elapsedSec > this.perSec;
  }
  async throttle(): Promise<void> {
    if (this.perSec === 0) {
      // Kafka's throttler waits forever at 0; here, until the process is stopped.
      await new Promise(() => {});
    }
    this.#sleepDeficitNs += this.#sleepNsPerRecord;
    if (this.#sleepDeficitNs >= 2_000_000) {
      const ms = Math.floor(this.#sleepDeficitNs / 1e6);
      this.#sleepDeficitNs -= ms * 1e6;
      await new Promise((done) => setTimeout(done, ms));
    }
  }
}

interface OpenBatch {
  readonly partition: number;
  readonly records: RecordInput[];
  readonly sentAt: number[];
  bytes: number;
  readonly opened: number;
}

/** Kafka's DefaultRecord.sizeInBytes, near enough to close a batch at batch.size as the Java producer does. */
const recordBytes = (value: Uint8Array) => value.length + 10;

/** The Java producer's accumulator and sender, for one topic over one connection. */
async function produceAll(
  client: AdminClient,
  config: PerfConfig,
  stats: PerfStats,
  err: (line: string) => void,
): Promise<void> {
  const setting = (k: string) => config.props.get(k) ?? SETTINGS[k]!;
  const acksText = setting('acks');
  const acks = acksText === 'all' ? -1 : Number(acksText);
  if (![-1, 0, 1].includes(acks))
    throw new ToolUsageError(`Invalid value ${acksText} for configuration acks`);
  const idempotentAsked = config.props.get('enable.idempotence');
  // Kafka 3+: idempotence is on unless turned off, or unless acks is not all and it was not asked for.
  const idempotent = idempotentAsked === undefined ? acks === -1 : idempotentAsked.toLowerCase() === 'true';
  if (idempotent && acks !== -1)
    throw new ToolUsageError(
      'Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );
  const lingerMs = Number(setting('linger.ms'));
  const batchSize = Number(setting('batch.size'));
  const maxInFlight = Number(setting('max.in.flight.requests.per.connection'));
  if (!(lingerMs >= 0) || !(batchSize > 0) || !(maxInFlight > 0))
    throw new ToolUsageError('linger.ms, batch.size and max.in.flight.requests.per.connection take numbers');
  if (idempotent && maxInFlight > 5)
    throw new ToolUsageError(
      'Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.',
    );
  if (setting('compression.type') !== 'none')
    throw new ToolUsageError(
      "klog's kafka-producer-perf-test.sh sends uncompressed batches (a topic's compression.type compresses them on the broker)",
    );

  const { producerId, producerEpoch } = idempotent ? await initProducerId(client) : NO_PRODUCER_ID;
  const partitions = await partitionCount(client, config.topic, true);
  const sequences = new Map<number, number>();
  let sticky = Math.floor(Math.random() * partitions);
  let open: OpenBatch | undefined;
  const ready: OpenBatch[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: Error | undefined;

  const send = (batch: OpenBatch) => {
    const sequence = sequences.get(batch.partition) ?? 0;
    sequences.set(batch.partition, sequence + batch.records.length);
    const bytes = buildProducerBatch(batch.records, 0, Date.now(), {
      producerId,
      producerEpoch,
      baseSequence: idempotent ? sequence : -1,
    });
    const body = {
      transactionalId: null,
      acks,
      timeoutMs: 30_000,
      topicData: [{ name: config.topic, partitionData: [{ index: batch.partition, records: bytes }] }],
    } as never;
    const done = (errorCode: number, message: string | null) => {
      const now = Date.now();
      for (let i = 0; i < batch.records.length; i++) {
        if (errorCode === 0) stats.record(now - batch.sentAt[i]!, batch.records[i]!.value!.length, now);
        // PerfCallback prints each failed record's exception; the count leaves it out.
        else err(exceptionText(new KafkaApiError(errorCode, message)));
      }
    };
    if (acks === 0) {
      client.post(Produce, body);
      done(0, null);
      return;
    }
    const p = client
      .request(Produce, body)
      .then((res) => {
        const r = res.responses[0]?.partitionResponses[0];
        done(r?.errorCode ?? 0, r?.errorMessage ?? null);
      })
      .catch((error: Error) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const close = () => {
    if (open === undefined) return;
    ready.push(open);
    open = undefined;
    // BuiltInPartitioner: keyless records move on to another partition once a batch is full.
    if (partitions > 1) sticky = (sticky + 1 + Math.floor(Math.random() * (partitions - 1))) % partitions;
  };
  /** Sends what is ready while there is room in flight; waits for room when the queue is long. */
  const pump = async (flush: boolean) => {
    for (;;) {
      if (failure !== undefined) throw failure;
      while (ready.length > 0 && inFlight.size < maxInFlight) send(ready.shift()!);
      if (acks === 0) await client.drained();
      // buffer.memory's role: a producer blocks in send() once its queue is full.
      const wait = flush ? ready.length > 0 || inFlight.size > 0 : ready.length >= maxInFlight * 2;
      if (!wait) return;
      if (inFlight.size > 0) await Promise.race(inFlight);
    }
  };

  const throttler = new Throttler(config.throughput, Date.now());
  const random = seededRandom(0);
  const fixedPayload = config.recordSize === undefined ? undefined : new Uint8Array(config.recordSize);
  for (let i = 0; i < config.numRecords; i++) {
    let value: Uint8Array;
    if (config.payloads.length > 0) value = config.payloads[Math.floor(random() * config.payloads.length)]!;
    else if (fixedPayload !== undefined) {
      for (let j = 0; j < fixedPayload.length; j++) fixedPayload[j] = 65 + Math.floor(random() * 26);
      value = fixedPayload.slice();
    } else value = new TextEncoder().encode(String(i));
    const sendStartMs = Date.now();
    if (open !== undefined && open.bytes + recordBytes(value) > batchSize && open.records.length > 0) close();
    open ??= { partition: sticky, records: [], sentAt: [], bytes: 61, opened: sendStartMs };
    open.records.push({ key: null, value, headers: [] });
    open.sentAt.push(sendStartMs);
    open.bytes += recordBytes(value);
    if (open.bytes >= batchSize || sendStartMs - open.opened >= lingerMs) close();
    await pump(false);
    if (throttler.shouldThrottle(i, sendStartMs)) {
      // While the loop sleeps, a lingering batch would wait: the sender thread would have sent it.
      close();
      await pump(false);
      await throttler.throttle();
    } else if (i % 1000 === 999) {
      // Let answers in: the Java sender runs on its own thread.
      await new Promise((done) => setImmediate(done));
    }
  }
  close();
  await pump(true);
}

/** A small seeded generator (mulberry32): the same payloads every run, as Kafka's SplittableRandom(0). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function kafkaProducerPerfTest(args: readonly string[], ctx: CommandContext): Promise<number> {
  if (args.length === 0) args = ['--help'];
  const config = perfConfig(args, ctx.out);
  const bootstrap = config.props.get('bootstrap.servers');
  if (bootstrap === undefined || bootstrap === '')
    throw new UncaughtJavaException(
      'org.apache.kafka.common.config.ConfigException',
      'Missing required configuration "bootstrap.servers" which has no default value.',
    );
  return withBootstrap(bootstrap, async (client) => {
    const stats = new PerfStats(config.numRecords, 5000, ctx.out);
    await produceAll(client, config, stats, ctx.err);
    stats.printTotal();
    return 0;
  });
}
