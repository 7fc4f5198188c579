import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  BROKER_CONFIGS,
  Broker,
  type BrokerOptions,
  ConfigError,
  createLogger,
  type LogLevel,
  type SettingValue,
  TOPIC_CONFIGS,
} from '@klog/broker';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { LabFileError } from '../lab/lab-file-error.js';
import { servedWindow } from '../lab/served-window.js';
import { WindowHost } from '../lab/window-host.js';
import { flushPolicy, logLevel } from '../serve/options.js';
import { readServerProperties } from '../serve/server-properties.js';
import { addSettingOptions, givenSettings, settingFlags } from '../serve/settings.js';

/** Names as lines of at most 80 columns, indented by two. */
function indentedList(names: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const name of names) {
    const next = line === '' ? `  ${name}` : `${line}, ${name}`;
    if (next.length > 79 && line !== '') {
      lines.push(`${line},`);
      line = `  ${name}`;
    } else line = next;
  }
  return [...lines, line].join('\n');
}

const HELP_AFTER = `
A Kafka broker on one node that unmodified Kafka clients (kcat, confluent-kafka,
KafkaJS, @platformatic/kafka) produce to idempotently and read from. Topics live
as Kafka's segment files under --data-dir; a retry of a batch the broker already
wrote is answered with the offsets it was first written at, a gap in sequence
numbers with OUT_OF_ORDER_SEQUENCE_NUMBER.

Served: ApiVersions 0-3, Metadata 0-13, Produce 3-8, Fetch 4-18, ListOffsets 0-5,
CreateTopics 0-7, InitProducerId 0-4, and consumer groups (Kafka's classic
protocol): FindCoordinator 0-4, JoinGroup 0-6, SyncGroup 0-4, Heartbeat 0-4,
LeaveGroup 0-4, OffsetCommit 1-9, OffsetFetch 1-9, ListGroups 0-5,
DescribeGroups 0-5, DeleteGroups 0-2, OffsetDelete 0. Groups and their committed
offsets live in the internal, compacted topic __consumer_offsets, as in Kafka, and
come back after a restart. Transactions are not built: a transactional client is
refused at once (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).

And the admin APIs: DeleteTopics, CreatePartitions, DescribeConfigs,
AlterConfigs, IncrementalAlterConfigs, DeleteRecords, DescribeCluster,
DescribeTopicPartitions, DescribeLogDirs, DescribeProducers.

Topics are created on first use (auto.create.topics.enable=true, Kafka's
default; --no-auto-create-topics turns it off). A topic's configs are set by
admin clients; their broker-level defaults by the flags that say "default
<topic config>" above, or --config. The topic configs klog applies:
${indentedList(TOPIC_CONFIGS.map((d) => d.name))}

Every setting above whose help names a Kafka setting (num.partitions...) may
be given in a Kafka server.properties instead, by that name:

  klog serve --config server.properties   (log.retention.hours=168, ...)

A flag wins over the file; settings a one-node klog has no use for are named
in one warning line each and ignored.

Faults for teaching, off unless asked: --drop-acks N drops the responses of the
first N Produce requests that write records, after their batches are on the log
(the connection stays open: the client times out and retries); --close-after-
append M closes the connection instead, for the M such requests after those. A
retry the broker answers as a duplicate writes nothing and is not counted; nor is
an acks=0 request. Each fault is logged in one line ("fault: ...").

What "acknowledged" means, by --flush (Kafka's log.flush.interval.messages and
log.flush.interval.ms; a roll and a clean shutdown fsync whatever the policy):
  os             the default, as Kafka's: an acknowledged record was written to
                 the OS page cache. It survives klog dying (kill -9), not a power
                 cut, a kernel crash or a disk that goes read-only before the OS
                 wrote it back.
  every-append   fsync before each Produce is answered: an acknowledged record is
                 on the disk, and survives a power cut too. One fsync per batch.
  messages=N     fsync once N records were appended since the last fsync; what came
                 after it is as safe as under os.
  ms=N           fsync every N ms; up to N ms of acknowledged records are as safe as
                 under os. messages=N,ms=M does both.

Limits: --max-connections and --max-connections-per-ip close a connection past
them, with one log line per 10 s; --queued-max-request-bytes bounds the bytes of
requests and responses held over all connections: past it, no socket is read
until some go.

--window lab.ts judges every idempotent batch with the window you wrote for
klog lab (its appendBatch decides what is written and what the producer hears;
your windows are rebuilt from each partition's active segment on its first
batch). A function of yours that throws, or does not return within 2 s, gets the
Produce answered UNKNOWN_SERVER_ERROR, nothing written, and one log line naming
it; the broker goes on.

Ctrl-C (SIGINT) or SIGTERM shuts it down cleanly: it stops accepting, answers the
requests in hand, flushes and closes the log, and exits 0.

Examples:
  klog serve --data-dir ./klog-data
  klog serve --data-dir ./klog-data --drop-acks 2   (a lost ack: see klog ack-loss-demo)
  klog topics create orders --partitions 3
  kcat -b 127.0.0.1:9092 -P -t orders -X enable.idempotence=true
  kcat -b 127.0.0.1:9092 -G billing orders      (a consumer group)
  klog groups describe billing`;

/** The options of `klog serve` that are not broker settings (those come from the tables: settings.ts). */
interface Raw {
  config?: string;
  flush?: string;
  logLevel?: string;
  window?: string;
}

/** The learner's window file, loaded on its worker; one that does not load is bad usage. */
function openWindow(file: string): WindowHost {
  try {
    return WindowHost.open(file);
  } catch (error) {
    if (error instanceof LabFileError) throw new UsageError(`serve --window: ${error.message}`);
    throw error;
  }
}

function readConfigFile(path: string): ReturnType<typeof readServerProperties> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`--config ${JSON.stringify(path)}: ${why}`);
  }
  return readServerProperties(text, path);
}

function timestamp(): string {
  return new Date().toISOString();
}

/** A broker setting's default (the broker applies it too; the CLI needs a few to resolve paths and say errors). */
function defaultOf(key: string): SettingValue | undefined {
  return BROKER_CONFIGS.find((d) => d.key === key)?.defaultValue;
}

export function serveCommand(ctx: CommandContext): Command {
  const flags = settingFlags();
  return addSettingOptions(
    new Command('serve').description(
      'run a Kafka broker that Kafka clients produce to idempotently and read from',
    ),
    flags,
  )
    .addOption(new Option('--config <file>', "a server.properties file: broker settings by Kafka's names"))
    .addOption(
      new Option(
        '--flush <policy>',
        'when appends are fsynced: os, every-append, messages=N, ms=N (log.flush.interval.messages and log.flush.interval.ms, default os)',
      ),
    )
    .addOption(
      new Option(
        '--log-level <level>',
        'error, warn, info, or debug (each connection and request) (default info)',
      ),
    )
    .addOption(
      new Option(
        '--window <file>',
        "judge idempotent batches with your lab window (klog lab init writes one) instead of klog's",
      ),
    )
    .addHelpText('after', HELP_AFTER)
    .action(async (given: Raw, command: Command) => {
      const level: LogLevel = logLevel(given.logLevel ?? 'info');
      // A server.properties fills in what the command line did not give (a flag wins over the file).
      const file = given.config === undefined ? undefined : readConfigFile(given.config);
      const settings = givenSettings(command, flags, file);
      const dataDir = String(settings.options.dataDir ?? defaultOf('dataDir'));
      const options = {
        ...settings.options,
        // --flush, when given, wins over log.flush.interval.* in the file.
        ...(given.flush === undefined ? {} : flushPolicy(given.flush)),
        dataDir: resolve(dataDir),
        logSettings: settings.logSettings,
      } as BrokerOptions;
      const listenHost = String(options.host ?? defaultOf('host'));
      const listenPort = String(options.port ?? defaultOf('port'));
      // The log goes out line by line as it happens (a server's output is its log), not in chunks.
      const logger = createLogger(level, (l, line) =>
        ctx.log(`${timestamp()} ${l.toUpperCase().padEnd(5)} ${line}`),
      );
      for (const key of file?.ignored ?? [])
        logger.warn(`klog serve: ${given.config}: ignoring ${key} (not a setting klog has)`);
      const host = given.window === undefined ? undefined : openWindow(given.window);
      const producerWindow =
        host === undefined ? undefined : servedWindow(host, (line) => logger.error(line));
      // The signals are caught from the start: one that comes while the broker starts (its partitions are
      // loaded) shuts it down once it has started, never kills it half-way with the log open.
      let broker: Broker | undefined;
      let signalled: NodeJS.Signals | undefined;
      let stopped: () => void = () => {};
      const finished = new Promise<void>((done) => {
        stopped = done;
      });
      const shutDown = (signal: NodeJS.Signals, b: Broker) => {
        logger.info(`${signal} received`);
        b.close().then(
          () => {
            host?.close();
            stopped();
          },
          (error: unknown) => {
            ctx.err(
              `klog: serve: shutdown failed: ${error instanceof Error ? error.message : String(error)}`,
            );
            process.exit(1);
          },
        );
      };
      const stop = (signal: NodeJS.Signals) => {
        if (signalled !== undefined) {
          logger.warn(`${signal} again: exiting without finishing the shutdown`);
          process.exit(1);
        }
        signalled = signal;
        if (broker !== undefined) shutDown(signal, broker);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      try {
        broker = await Broker.start({
          ...options,
          logger,
          ...(producerWindow === undefined ? {} : { producerWindow }),
        });
        if (host !== undefined)
          logger.info(`window: ${given.window} judges every idempotent batch (klog lab's window)`);
      } catch (error) {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        host?.close();
        if (error instanceof ConfigError) throw new UsageError(error.message);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new Error(`cannot listen on ${listenHost}:${listenPort}: the address is in use`);
        if (code === 'EADDRNOTAVAIL')
          throw new Error(`cannot listen on ${listenHost}: no such address on this machine`);
        if (code === 'EACCES')
          throw new Error(`cannot listen on ${listenHost}:${listenPort}: permission denied`);
        throw error;
      }
      if (signalled !== undefined) shutDown(signalled, broker);
      await finished;
    });
}
