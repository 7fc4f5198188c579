import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Broker, ConfigError, createLogger, DEFAULT_CONFIG, type LogLevel } from '@klog/broker';
import { LOG_CONFIG_BOUNDS } from '@klog/storage';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';
import { bytesText } from '../format.js';
import { LabFileError } from '../lab/lab-file-error.js';
import { servedWindow } from '../lab/served-window.js';
import { WindowHost } from '../lab/window-host.js';
import { flushPolicy, hostFlag, logLevel, optionalNumber } from '../serve/options.js';
import { readServerProperties } from '../serve/server-properties.js';

const HELP_AFTER = `
A Kafka broker on one node that unmodified Kafka clients (kcat, confluent-kafka,
KafkaJS, @platformatic/kafka) produce to idempotently and read from. Topics live
as Kafka's segment files under --data-dir; a retry of a batch the broker already
wrote is answered with the offsets it was first written at, a gap in sequence
numbers with OUT_OF_ORDER_SEQUENCE_NUMBER.

Served: ApiVersions 0-3, Metadata 0-9, Produce 3-8, Fetch 4-12, ListOffsets 0-5,
CreateTopics 0-7, InitProducerId 0-4, and consumer groups (Kafka's classic
protocol): FindCoordinator 0-4, JoinGroup 0-6, SyncGroup 0-4, Heartbeat 0-4,
LeaveGroup 0-4, OffsetCommit 1-8, OffsetFetch 1-8, ListGroups 0-5,
DescribeGroups 0-5, DeleteGroups 0-2, OffsetDelete 0. Groups and their committed
offsets live in the internal, compacted topic __consumer_offsets, as in Kafka, and
come back after a restart. Transactions are not built: a transactional client is
refused at once (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).

And the admin APIs: DeleteTopics, CreatePartitions, DescribeConfigs,
AlterConfigs, IncrementalAlterConfigs, DeleteRecords, DescribeCluster,
DescribeTopicPartitions, DescribeLogDirs, DescribeProducers.

Topics are created on first use (auto.create.topics.enable=true, Kafka's
default; --no-auto-create-topics turns it off). Topic configs (cleanup.policy,
compression.type, retention.ms, retention.bytes, segment.bytes, segment.ms,
max.message.bytes, message.timestamp.type, min.cleanable.dirty.ratio,
delete.retention.ms, min.compaction.lag.ms) are set per topic by admin clients;
their broker-level defaults by the --log-* flags, --compression-type or --config,
with Kafka's names:

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

Limits (Kafka's names): --max-connections (default 10000) and
--max-connections-per-ip close a connection past them, with one log line per 10 s;
--queued-max-request-bytes (default 256 MiB) bounds the bytes of requests and
responses held over all connections: past it, no socket is read until some go.

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

interface Raw {
  dataDir: string;
  host: string;
  port: string;
  advertisedHost?: string;
  advertisedPort?: string;
  nodeId: string;
  autoCreateTopics?: boolean;
  numPartitions: string;
  segmentBytes?: string;
  messageMaxBytes?: string;
  config?: string;
  logRetentionCheckIntervalMs?: string;
  logCleanerBackoffMs?: string;
  socketRequestMaxBytes?: string;
  connectionsMaxIdleMs?: string;
  flush: string;
  maxConnections?: string;
  maxConnectionsPerIp?: string;
  queuedMaxRequestBytes?: string;
  dropAcks: string;
  closeAfterAppend: string;
  groupInitialRebalanceDelayMs: string;
  groupMinSessionTimeoutMs: string;
  offsetsTopicNumPartitions: string;
  logLevel: string;
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

/** The --log-* flags (commander's option keys) and the Kafka broker settings they set. */
const LOG_FLAGS: readonly (readonly [string, string])[] = [
  ['logRetentionMs', 'log.retention.ms'],
  ['logRetentionBytes', 'log.retention.bytes'],
  ['logCleanupPolicy', 'log.cleanup.policy'],
  ['logRollMs', 'log.roll.ms'],
  ['logMessageTimestampType', 'log.message.timestamp.type'],
  ['logCleanerMinCleanableRatio', 'log.cleaner.min.cleanable.ratio'],
  ['logCleanerDeleteRetentionMs', 'log.cleaner.delete.retention.ms'],
  ['logCleanerMinCompactionLagMs', 'log.cleaner.min.compaction.lag.ms'],
  ['compressionType', 'compression.type'],
];

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

/** Storage's bounds (the one place): a value outside them is refused here, before the broker opens anything. */
const SEGMENT_BYTES = LOG_CONFIG_BOUNDS.segmentBytes;
const MAX_BATCH = LOG_CONFIG_BOUNDS.maxBatchBytes;

export function serveCommand(ctx: CommandContext): Command {
  return new Command('serve')
    .description('run a Kafka broker that Kafka clients produce to idempotently and read from')
    .addOption(
      new Option('--data-dir <dir>', 'where topics are kept (Kafka segment files)').default('klog-data'),
    )
    .addOption(new Option('--host <host>', 'address to listen on').default(DEFAULT_CONFIG.host))
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free port)').default(
        String(DEFAULT_CONFIG.port),
      ),
    )
    .addOption(
      new Option('--advertised-host <host>', 'host clients are told to connect to (default: --host)'),
    )
    .addOption(
      new Option('--advertised-port <port>', 'port clients are told to connect to (default: the port bound)'),
    )
    .addOption(new Option('--node-id <id>', "this broker's node id").default(String(DEFAULT_CONFIG.nodeId)))
    .option(
      '--auto-create-topics',
      'create a topic a client asks Metadata for (auto.create.topics.enable, the default)',
    )
    .option(
      '--no-auto-create-topics',
      'answer UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist instead',
    )
    .addOption(
      new Option('--num-partitions <n>', 'partitions of an auto-created topic (num.partitions)').default(
        String(DEFAULT_CONFIG.numPartitions),
      ),
    )
    .addOption(new Option('--config <file>', "a server.properties file: broker settings by Kafka's names"))
    .addOption(
      new Option(
        '--segment-bytes <n>',
        `roll a segment at this size (log.segment.bytes, ${SEGMENT_BYTES.min} to ${SEGMENT_BYTES.max}, default ${bytesText(DEFAULT_CONFIG.segmentBytes)})`,
      ),
    )
    .addOption(
      new Option(
        '--message-max-bytes <n>',
        `largest batch a producer may send (message.max.bytes, ${MAX_BATCH.min} to ${MAX_BATCH.max}, default ${DEFAULT_CONFIG.messageMaxBytes})`,
      ),
    )
    .addOption(
      new Option('--log-retention-ms <ms>', 'default retention.ms (log.retention.ms, 7 days; -1: forever)'),
    )
    .addOption(
      new Option('--log-retention-bytes <n>', 'default retention.bytes (log.retention.bytes, -1: no limit)'),
    )
    .addOption(
      new Option('--log-cleanup-policy <policy>', 'default cleanup.policy: delete, compact, or both'),
    )
    .addOption(new Option('--log-roll-ms <ms>', 'default segment.ms (log.roll.ms, 7 days)'))
    .addOption(
      new Option(
        '--log-message-timestamp-type <type>',
        'default message.timestamp.type: CreateTime or LogAppendTime',
      ),
    )
    .addOption(
      new Option(
        '--compression-type <type>',
        "default compression.type: producer (keep the producer's codec), uncompressed, gzip, snappy, lz4 or zstd",
      ),
    )
    .addOption(new Option('--log-cleaner-min-cleanable-ratio <r>', 'default min.cleanable.dirty.ratio (0.5)'))
    .addOption(
      new Option(
        '--log-cleaner-delete-retention-ms <ms>',
        'default delete.retention.ms for tombstones (1 day)',
      ),
    )
    .addOption(new Option('--log-cleaner-min-compaction-lag-ms <ms>', 'default min.compaction.lag.ms (0)'))
    .addOption(
      new Option(
        '--log-retention-check-interval-ms <ms>',
        `how often retention runs (default ${DEFAULT_CONFIG.logRetentionCheckIntervalMs})`,
      ),
    )
    .addOption(
      new Option(
        '--log-cleaner-backoff-ms <ms>',
        `how often the cleaner looks for topics to compact (default ${DEFAULT_CONFIG.logCleanerBackoffMs})`,
      ),
    )
    .addOption(
      new Option(
        '--socket-request-max-bytes <n>',
        `largest request accepted (default ${bytesText(DEFAULT_CONFIG.socketRequestMaxBytes)})`,
      ),
    )
    .addOption(
      new Option(
        '--connections-max-idle-ms <ms>',
        `close a connection idle this long (default ${DEFAULT_CONFIG.connectionsMaxIdleMs})`,
      ),
    )
    .addOption(
      new Option('--flush <policy>', 'when appends are fsynced: os, every-append, messages=N, ms=N').default(
        'os',
      ),
    )
    .addOption(
      new Option(
        '--max-connections <n>',
        `connections at most (max.connections, default ${DEFAULT_CONFIG.maxConnections})`,
      ),
    )
    .addOption(
      new Option(
        '--max-connections-per-ip <n>',
        'connections at most from one address (max.connections.per.ip)',
      ),
    )
    .addOption(
      new Option(
        '--queued-max-request-bytes <n>',
        `bytes of requests and responses held at most (default ${bytesText(DEFAULT_CONFIG.queuedMaxRequestBytes)})`,
      ),
    )
    .addOption(
      new Option(
        '--drop-acks <n>',
        'drop the responses of the first N Produce requests that write records',
      ).default('0'),
    )
    .addOption(
      new Option(
        '--close-after-append <n>',
        'then close the connection of the next N such requests instead of answering',
      ).default('0'),
    )
    .addOption(
      new Option(
        '--group-initial-rebalance-delay-ms <ms>',
        "an empty group's first rebalance waits this long for more members",
      ).default('3000'),
    )
    .addOption(
      new Option(
        '--group-min-session-timeout-ms <ms>',
        'shortest session timeout a group member may ask for',
      ).default('6000'),
    )
    .addOption(
      new Option(
        '--offsets-topic-num-partitions <n>',
        'partitions of __consumer_offsets when it is created',
      ).default('50'),
    )
    .addOption(
      new Option('--log-level <level>', 'error, warn, info, or debug (each connection and request)').default(
        'info',
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
      const level: LogLevel = logLevel(given.logLevel);
      // A server.properties fills in what the command line did not give (a flag wins over the file).
      const file = given.config === undefined ? undefined : readConfigFile(given.config);
      const raw: Raw = { ...given };
      const fromFile = (flag: string, key: Exclude<keyof Raw, 'autoCreateTopics'>) => {
        const value = file?.flags.get(flag);
        const source = command.getOptionValueSource(key);
        if (value !== undefined && (source === undefined || source === 'default')) raw[key] = value;
      };
      fromFile('--data-dir', 'dataDir');
      fromFile('--node-id', 'nodeId');
      fromFile('--num-partitions', 'numPartitions');
      fromFile('--message-max-bytes', 'messageMaxBytes');
      fromFile('--segment-bytes', 'segmentBytes');
      fromFile('--socket-request-max-bytes', 'socketRequestMaxBytes');
      fromFile('--connections-max-idle-ms', 'connectionsMaxIdleMs');
      fromFile('--log-retention-check-interval-ms', 'logRetentionCheckIntervalMs');
      fromFile('--log-cleaner-backoff-ms', 'logCleanerBackoffMs');
      const autoFromFile = file?.flags.get('--auto-create-topics');
      if (autoFromFile !== undefined && command.getOptionValueSource('autoCreateTopics') === undefined) {
        if (autoFromFile !== 'true' && autoFromFile !== 'false') {
          throw new UsageError(
            `${given.config}: auto.create.topics.enable=${autoFromFile}: expected true or false`,
          );
        }
        raw.autoCreateTopics = autoFromFile === 'true';
      }
      const logSettings: Record<string, string> = { ...file?.logSettings };
      for (const [flag, name] of LOG_FLAGS) {
        const value = command.getOptionValue(flag) as string | undefined;
        if (value !== undefined) logSettings[name] = value;
      }
      const options = {
        dataDir: resolve(raw.dataDir),
        host: hostFlag('--host', raw.host),
        port: wholeNumber('--port', raw.port, 0, 65535),
        ...(raw.advertisedHost === undefined
          ? {}
          : { advertisedHost: hostFlag('--advertised-host', raw.advertisedHost) }),
        ...(raw.advertisedPort === undefined
          ? {}
          : { advertisedPort: wholeNumber('--advertised-port', raw.advertisedPort, 1, 65535) }),
        nodeId: wholeNumber('--node-id', raw.nodeId, 0, 2 ** 31 - 1),
        autoCreateTopics: raw.autoCreateTopics ?? true,
        numPartitions: wholeNumber('--num-partitions', raw.numPartitions, 1, 100_000),
        ...optionalNumber('--segment-bytes', raw.segmentBytes, 'segmentBytes'),
        ...optionalNumber('--message-max-bytes', raw.messageMaxBytes, 'messageMaxBytes'),
        ...optionalNumber('--socket-request-max-bytes', raw.socketRequestMaxBytes, 'socketRequestMaxBytes'),
        ...optionalNumber('--connections-max-idle-ms', raw.connectionsMaxIdleMs, 'connectionsMaxIdleMs'),
        ...optionalNumber(
          '--log-retention-check-interval-ms',
          raw.logRetentionCheckIntervalMs,
          'logRetentionCheckIntervalMs',
        ),
        ...optionalNumber('--log-cleaner-backoff-ms', raw.logCleanerBackoffMs, 'logCleanerBackoffMs'),
        logSettings,
        ...flushPolicy(raw.flush),
        ...optionalNumber('--max-connections', raw.maxConnections, 'maxConnections'),
        ...optionalNumber('--max-connections-per-ip', raw.maxConnectionsPerIp, 'maxConnectionsPerIp'),
        ...optionalNumber('--queued-max-request-bytes', raw.queuedMaxRequestBytes, 'queuedMaxRequestBytes'),
        dropAcks: wholeNumber('--drop-acks', raw.dropAcks, 0, 2 ** 31 - 1),
        closeAfterAppend: wholeNumber('--close-after-append', raw.closeAfterAppend, 0, 2 ** 31 - 1),
        groupInitialRebalanceDelayMs: wholeNumber(
          '--group-initial-rebalance-delay-ms',
          raw.groupInitialRebalanceDelayMs,
          0,
          2 ** 31 - 1,
        ),
        groupMinSessionTimeoutMs: wholeNumber(
          '--group-min-session-timeout-ms',
          raw.groupMinSessionTimeoutMs,
          1,
          1_800_000,
        ),
        offsetsTopicNumPartitions: wholeNumber(
          '--offsets-topic-num-partitions',
          raw.offsetsTopicNumPartitions,
          1,
          1000,
        ),
      };
      // The log goes out line by line as it happens (a server's output is its log), not in chunks.
      const logger = createLogger(level, (l, line) =>
        ctx.log(`${timestamp()} ${l.toUpperCase().padEnd(5)} ${line}`),
      );
      for (const key of file?.ignored ?? [])
        logger.warn(`klog serve: ${given.config}: ignoring ${key} (not a setting klog has)`);
      const host = raw.window === undefined ? undefined : openWindow(raw.window);
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
          logger.info(`window: ${raw.window} judges every idempotent batch (klog lab's window)`);
      } catch (error) {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        host?.close();
        if (error instanceof ConfigError) throw new UsageError(error.message);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new Error(`cannot listen on ${options.host}:${options.port}: the address is in use`);
        if (code === 'EADDRNOTAVAIL')
          throw new Error(`cannot listen on ${options.host}: no such address on this machine`);
        if (code === 'EACCES')
          throw new Error(`cannot listen on ${options.host}:${options.port}: permission denied`);
        throw error;
      }
      if (signalled !== undefined) shutDown(signalled, broker);
      await finished;
    });
}
