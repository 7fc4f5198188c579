// kafka-console-producer.sh, after Kafka 4.1.0's `org.apache.kafka.tools.ConsoleProducer` and its
// `LineMessageReader`: one record per stdin line (key, headers per --property), sent by an idempotent
// producer (Kafka's default: enable.idempotence=true, acks=all), keyed records placed by murmur2 as
// Kafka's default partitioner places them.
import { readFileSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isatty } from 'node:tty';
import { Produce } from '@klog/protocol';
import type { RecordInput } from '@klog/storage';
import { buildProducerBatch } from '@klog/storage/internals';
import type { CommandContext } from '../command-context.js';
import { type AdminClient, BrokerUnreachable } from '../topics/admin-client.js';
import { initProducerId, NO_PRODUCER_ID, partitionCount, partitionForKey } from './clients.js';
import { connectBootstrap, KafkaApiError, withBootstrap } from './kafka-errors.js';
import {
  checkRequired,
  optionTable,
  type ParsedOptions,
  pairs,
  parseToolArgs,
  ToolUsageError,
} from './tool-options.js';

const TUNING = 'a batching or retry knob of the Java producer; klog sends each line as it comes';

export const CONSOLE_PRODUCER_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  REQUIRED: The server(s) to connect to.
--topic <topic>                           REQUIRED: The topic id to produce messages to.
--property <prop>...                      A mechanism to pass properties in the form key=value to the message reader.
--producer-property <producer_prop>...    A mechanism to pass properties in the form key=value to the producer.
--command-property <producer_prop>...     Properties for the producer (Kafka 4.1).
--producer.config <config file>           Producer config properties file.
--command-config <config file>            Producer config properties file (Kafka 4.1).
--sync                                    If set message send requests to the brokers are synchronously, one at a time as they arrive.
--request-required-acks <request required acks>  The required acks of the producer requests
--reader-config <config file>             Config properties file for the message reader.
  unsupported: use --property
--line-reader <reader_class>              The class name of the class to use for reading lines from standard in.
  unsupported: klog has LineMessageReader only
--compression-codec <compression-codec>   The compression codec.
  unsupported: klog sends uncompressed batches (the broker compresses per compression.type)
--batch-size <batch-size>                 The Java producer's batch-size.
  unsupported: ${TUNING}
--message-send-max-retries <message-send-max-retries>  How many times a send that failed for a reason that may pass (no answer in time, a lost connection) is sent again: the producer's retries. (default: 3)
--retry-backoff-ms <retry-backoff-ms>     How long to wait before each retry: the producer's retry.backoff.ms. (default: 100)
--timeout <timeout>                       The Java producer's timeout.
  unsupported: ${TUNING}
--request-timeout-ms <request-timeout-ms>  The ack timeout of the producer requests. Value must be non-negative and non-zero. (default: 1500)
--metadata-expiry-ms <metadata-expiry-ms>  The Java producer's metadata-expiry-ms.
  unsupported: ${TUNING}
--max-block-ms <max-block-ms>             The Java producer's max-block-ms.
  unsupported: ${TUNING}
--max-memory-bytes <max-memory-bytes>     The Java producer's max-memory-bytes.
  unsupported: ${TUNING}
--max-partition-memory-bytes <max-partition-memory-bytes>  The Java producer's max-partition-memory-bytes.
  unsupported: ${TUNING}
--socket-buffer-size <socket-buffer-size>  The Java producer's socket-buffer-size.
  unsupported: ${TUNING}
`);

/** Producer settings klog honours; any other is refused by name. */
const PRODUCER_SETTINGS = new Set([
  'acks',
  'enable.idempotence',
  'client.id',
  'bootstrap.servers',
  'linger.ms',
  'batch.size',
  'request.timeout.ms',
  'retries',
  'retry.backoff.ms',
  'delivery.timeout.ms',
]);

/** A Java .properties file, in brief: `key=value` lines, `#` and `!` comments. */
export function readProperties(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ToolUsageError(
      `${path} (${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : String(error)})`,
    );
  }
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (m !== null) out.set(m[1]!, m[2]!);
  }
  return out;
}

interface ReaderConfig {
  parseKey: boolean;
  keySeparator: string;
  parseHeaders: boolean;
  headersDelimiter: string;
  headersSeparator: string;
  headersKeySeparator: string;
  ignoreError: boolean;
  nullMarker: string | undefined;
}

function readerConfig(props: ReadonlyMap<string, string>): ReaderConfig {
  const bool = (k: string) => props.get(k)?.trim().toLowerCase() === 'true';
  for (const k of props.keys()) {
    if (
      ![
        'parse.key',
        'key.separator',
        'parse.headers',
        'headers.delimiter',
        'headers.separator',
        'headers.key.separator',
        'ignore.error',
        'null.marker',
      ].includes(k)
    )
      throw new ToolUsageError(`klog's kafka-console-producer.sh does not know the reader property ${k}`);
  }
  return {
    parseKey: bool('parse.key'),
    keySeparator: props.get('key.separator') ?? '\t',
    parseHeaders: bool('parse.headers'),
    headersDelimiter: props.get('headers.delimiter') ?? '\t',
    headersSeparator: props.get('headers.separator') ?? ',',
    headersKeySeparator: props.get('headers.key.separator') ?? ':',
    ignoreError: bool('ignore.error'),
    nullMarker: props.get('null.marker'),
  };
}

/** A line the reader cannot read: Kafka's KafkaException, which ends the producer (exit 1). */
class ReaderError extends Error {}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** LineMessageReader.readRecords for one line. */
export function readLine(line: string, n: number, c: ReaderConfig): RecordInput {
  const parse = (enabled: boolean, start: number, demarcation: string, what: string): string | null => {
    if (!enabled) return null;
    const index = line.indexOf(demarcation, start);
    if (index === -1) {
      if (c.ignoreError) return null;
      throw new ReaderError(`No ${what} found on line number ${n}: '${line}'`);
    }
    return line.slice(start, index);
  };
  const headers = parse(c.parseHeaders, 0, c.headersDelimiter, 'headers delimiter');
  const headerOffset = headers === null ? 0 : headers.length + c.headersDelimiter.length;
  const key = parse(c.parseKey, headerOffset, c.keySeparator, 'key separator');
  const keyOffset = key === null ? 0 : key.length + c.keySeparator.length;
  const value = line.slice(headerOffset + keyOffset);
  const parsedHeaders =
    headers === null || headers === c.nullMarker
      ? []
      : headers.split(c.headersSeparator).map((pair) => {
          const i = pair.indexOf(c.headersKeySeparator);
          if (i === -1) {
            if (c.ignoreError) return { key: pair, value: null };
            throw new ReaderError(`No header key separator found in pair '${pair}' on line number ${n}`);
          }
          const v = pair.slice(i + c.headersKeySeparator.length);
          return { key: pair.slice(0, i), value: v === c.nullMarker ? null : utf8(v) };
        });
  return {
    key: key !== null && key !== c.nullMarker ? utf8(key) : null,
    value: value !== c.nullMarker ? utf8(value) : null,
    headers: parsedHeaders,
  };
}

export async function kafkaConsoleProducer(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts: ParsedOptions = parseToolArgs(
    'kafka-console-producer.sh',
    'This tool helps to read data from standard input and publish it to Kafka.',
    CONSOLE_PRODUCER_OPTIONS,
    args,
  );
  checkRequired(opts, 'topic');
  if (!opts.has('bootstrap-server'))
    throw new ToolUsageError('Missing required argument "[bootstrap-server]"');
  const topic = opts.value('topic')!;
  const reader = readerConfig(pairs('--property', opts.values('property')));
  const settings = new Map<string, string>();
  for (const file of [opts.value('producer.config'), opts.value('command-config')])
    if (file !== undefined) for (const [k, v] of readProperties(file)) settings.set(k, v);
  for (const [k, v] of pairs('--producer-property', [
    ...opts.values('producer-property'),
    ...opts.values('command-property'),
  ]))
    settings.set(k, v);
  for (const k of settings.keys())
    if (!PRODUCER_SETTINGS.has(k))
      throw new ToolUsageError(`klog's kafka-console-producer.sh does not support the producer setting ${k}`);
  const acksText = opts.value('request-required-acks') ?? settings.get('acks') ?? 'all';
  const acks = acksText === 'all' ? -1 : Number(acksText);
  if (acks === 0)
    throw new ToolUsageError(
      "klog's kafka-console-producer.sh does not support acks=0: it waits for each answer",
    );
  if (![-1, 1].includes(acks)) throw new ToolUsageError(`Invalid value ${acksText} for configuration acks`);
  const idempotent = (settings.get('enable.idempotence') ?? 'true').trim().toLowerCase() === 'true';
  if (idempotent && acks !== -1)
    throw new ToolUsageError(
      'Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );

  // ConsoleProducerOptions.producerProps (CommandLineUtils.maybeMergeOptions): the option when given, else the
  // producer's own setting, else the option's default.
  const merged = (option: string, setting: string, fallback: number) => {
    const text = opts.value(option) ?? settings.get(setting);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
      throw new ToolUsageError(
        `Invalid value ${text} for configuration ${setting}: Not a number of type INT`,
      );
    return n;
  };
  const requestTimeoutMs = merged('request-timeout-ms', 'request.timeout.ms', 1500);
  if (requestTimeoutMs === 0)
    throw new ToolUsageError(
      'Invalid value 0 for configuration request.timeout.ms: Value must be at least 1',
    );
  const retries = merged('message-send-max-retries', 'retries', 3);
  const retryBackoffMs = merged('retry-backoff-ms', 'retry.backoff.ms', 100);
  const bootstrap = opts.value('bootstrap-server');
  const clientId = settings.get('client.id') ?? 'console-producer';
  const log4j = (level: string, message: string, logger: string) => {
    const d = new Date();
    const p2 = (n: number, w = 2) => String(n).padStart(w, '0');
    // Kafka's tools-log4j2.yaml: "[%d] %p %m (%c)%n" on stderr, WARN and above.
    ctx.err(
      `[${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())},${p2(d.getMilliseconds(), 3)}] ${level} ${message} (${logger})`,
    );
  };

  return withBootstrap(bootstrap, async (first) => {
    let client = first;
    const opened: AdminClient[] = [];
    const { producerId, producerEpoch } = idempotent ? await initProducerId(client) : NO_PRODUCER_ID;
    const partitions = await partitionCount(client, topic, true);
    const sequences = new Map<number, number>();
    let sticky = Math.floor(Math.random() * partitions);
    // LineMessageReader prints a prompt when it reads from a console.
    const prompt = isatty(0) && isatty(1);
    const input = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    let n = 0;
    if (prompt) writeSync(1, '>');
    for await (const line of input) {
      n++;
      let record: RecordInput;
      try {
        record = readLine(line, n, reader);
      } catch (error) {
        if (!(error instanceof ReaderError)) throw error;
        ctx.err(`org.apache.kafka.common.KafkaException: ${error.message}`);
        return 1;
      }
      // Kafka's BuiltInPartitioner: keyed records by murmur2; unkeyed ones stick to one partition a batch.
      const partition = record.key === null ? sticky : partitionForKey(record.key, partitions);
      if (record.key === null) sticky = (sticky + 1) % partitions;
      const sequence = sequences.get(partition) ?? 0;
      const batch = buildProducerBatch([record], 0, Date.now(), {
        producerId,
        producerEpoch,
        baseSequence: idempotent ? sequence : -1,
      });
      const body = {
        transactionalId: null,
        acks,
        timeoutMs: 30_000,
        topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
      } as never;
      // The Java producer's Sender: a request with no answer within request.timeout.ms is a disconnect, and the
      // same batch — same producer id, epoch and sequence — goes again on a new connection, up to `retries`
      // times. With idempotence the broker knows it for a DUPLICATE and answers with the first write's offsets;
      // without, it is written twice: chapter 7's lost ack.
      let p: { errorCode: number; errorMessage: string | null } | undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await client.request(Produce, body, requestTimeoutMs);
          p = res?.responses[0]?.partitionResponses[0];
          break;
        } catch (error) {
          if (!(error instanceof BrokerUnreachable)) throw error;
          const timedOut = error.message.startsWith('no answer');
          const lost = timedOut
            ? { errorCode: 7, errorMessage: 'Disconnected from node 0 due to timeout' }
            : { errorCode: 13, errorMessage: 'Disconnected from node 0' };
          if (attempt >= retries) {
            p = lost;
            break;
          }
          log4j(
            'WARN',
            `[Producer clientId=${clientId}] Got error produce response with correlation id ${client.correlationId} on topic-partition ${topic}-${partition}, retrying (${retries - attempt - 1} attempts left). Error: ${timedOut ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION'}. Error Message: ${lost.errorMessage}`,
            'org.apache.kafka.clients.producer.internals.Sender',
          );
          client.close();
          await new Promise((done) => setTimeout(done, retryBackoffMs));
          client = await connectBootstrap(bootstrap);
          opened.push(client);
        }
      }
      sequences.set(partition, sequence + 1);
      if (acks !== 0 && p !== undefined && p.errorCode !== 0) {
        // Kafka's ErrorLoggingCallback: the failure is reported and the producer goes on.
        const e = new KafkaApiError(p.errorCode, p.errorMessage);
        ctx.err(
          `ERROR Error when sending message to topic ${topic} with key: ${record.key === null ? 'null' : `${record.key.length} bytes`}, value: ${record.value === null ? 'null' : `${record.value.length} bytes`} with error: ${e.message}`,
        );
      }
      if (prompt) writeSync(1, '>');
    }
    for (const c of opened) c.close();
    return 0;
  });
}
