import { resolve } from 'node:path';
import { Broker, ConfigError, createLogger, type LogLevel } from '@klog/broker';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import type { CommandContext } from '../program.js';
import { wholeNumber } from '../flags.js';
import { hostFlag, logLevel } from '../serve/options.js';

const HELP_AFTER = `
A Kafka broker on one node that unmodified Kafka clients (kcat, confluent-kafka,
KafkaJS, @platformatic/kafka) produce to idempotently and read from. Topics live
as Kafka's segment files under --data-dir; a retry of a batch the broker already
wrote is answered with the offsets it was first written at, a gap in sequence
numbers with OUT_OF_ORDER_SEQUENCE_NUMBER.

Served: ApiVersions 0-3, Metadata 0-9, Produce 3-8, Fetch 4-12, ListOffsets 0-5,
CreateTopics 0-7, InitProducerId 0-4. Consumer groups and transactions are not
built: a client that needs them gets a clear error.

Faults for teaching, off unless asked: --drop-acks N drops the responses of the
first N Produce requests that write records, after their batches are on the log
(the connection stays open: the client times out and retries); --close-after-
append M closes the connection instead, for the M such requests after those. A
retry the broker answers as a duplicate writes nothing and is not counted; nor is
an acks=0 request. Each fault is logged in one line ("fault: ...").

Ctrl-C (SIGINT) or SIGTERM shuts it down cleanly: it stops accepting, answers the
requests in hand, flushes and closes the log, and exits 0.

Examples:
  klog serve --data-dir ./klog-data
  klog serve --data-dir ./klog-data --drop-acks 2   (a lost ack: see klog ack-loss-demo)
  klog topics create orders --partitions 3
  kcat -b 127.0.0.1:9092 -P -t orders -X enable.idempotence=true`;

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
  socketRequestMaxBytes?: string;
  connectionsMaxIdleMs?: string;
  dropAcks: string;
  closeAfterAppend: string;
  logLevel: string;
}

function timestamp(): string {
  return new Date().toISOString();
}

export function serveCommand(ctx: CommandContext): Command {
  return new Command('serve')
    .description('run a Kafka broker that Kafka clients produce to idempotently and read from')
    .addOption(new Option('--data-dir <dir>', 'where topics are kept (Kafka segment files)').default('klog-data'))
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'port to listen on (0: any free port)').default('9092'))
    .addOption(new Option('--advertised-host <host>', 'host clients are told to connect to (default: --host)'))
    .addOption(new Option('--advertised-port <port>', 'port clients are told to connect to (default: the port bound)'))
    .addOption(new Option('--node-id <id>', "this broker's node id").default('0'))
    .option('--auto-create-topics', 'create a topic a client asks Metadata for (auto.create.topics.enable, the default)')
    .option('--no-auto-create-topics', 'answer UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist instead')
    .addOption(new Option('--num-partitions <n>', 'partitions of an auto-created topic (num.partitions)').default('1'))
    .addOption(new Option('--segment-bytes <n>', 'roll a segment at this size (log.segment.bytes, default 1 GiB)'))
    .addOption(new Option('--socket-request-max-bytes <n>', 'largest request accepted (default 100 MiB)'))
    .addOption(new Option('--connections-max-idle-ms <ms>', 'close a connection idle this long (default 600000)'))
    .addOption(new Option('--drop-acks <n>', 'drop the responses of the first N Produce requests that write records').default('0'))
    .addOption(
      new Option('--close-after-append <n>', 'then close the connection of the next N such requests instead of answering').default('0'),
    )
    .addOption(new Option('--log-level <level>', 'error, warn, info, or debug (each connection and request)').default('info'))
    .addHelpText('after', HELP_AFTER)
    .action(async (raw: Raw) => {
      const level: LogLevel = logLevel(raw.logLevel);
      const options = {
        dataDir: resolve(raw.dataDir),
        host: hostFlag('--host', raw.host),
        port: wholeNumber('--port', raw.port, 0, 65535),
        ...(raw.advertisedHost === undefined ? {} : { advertisedHost: hostFlag('--advertised-host', raw.advertisedHost) }),
        ...(raw.advertisedPort === undefined ? {} : { advertisedPort: wholeNumber('--advertised-port', raw.advertisedPort, 1, 65535) }),
        nodeId: wholeNumber('--node-id', raw.nodeId, 0, 2 ** 31 - 1),
        autoCreateTopics: raw.autoCreateTopics ?? true,
        numPartitions: wholeNumber('--num-partitions', raw.numPartitions, 1, 100_000),
        ...(raw.segmentBytes === undefined ? {} : { segmentBytes: wholeNumber('--segment-bytes', raw.segmentBytes, 14, 2 ** 31 - 1) }),
        ...(raw.socketRequestMaxBytes === undefined
          ? {}
          : { socketRequestMaxBytes: wholeNumber('--socket-request-max-bytes', raw.socketRequestMaxBytes, 64, 2 ** 31 - 1) }),
        ...(raw.connectionsMaxIdleMs === undefined
          ? {}
          : { connectionsMaxIdleMs: wholeNumber('--connections-max-idle-ms', raw.connectionsMaxIdleMs, 1, 2 ** 31 - 1) }),
        dropAcks: wholeNumber('--drop-acks', raw.dropAcks, 0, 2 ** 31 - 1),
        closeAfterAppend: wholeNumber('--close-after-append', raw.closeAfterAppend, 0, 2 ** 31 - 1),
      };
      // The log goes out line by line as it happens (a server's output is its log), not in chunks.
      const logger = createLogger(level, (l, line) => ctx.log(`${timestamp()} ${l.toUpperCase().padEnd(5)} ${line}`));
      let broker: Broker;
      try {
        broker = await Broker.start({ ...options, logger });
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new Error(`cannot listen on ${options.host}:${options.port}: the address is in use`);
        if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${options.host}: no such address on this machine`);
        if (code === 'EACCES') throw new Error(`cannot listen on ${options.host}:${options.port}: permission denied`);
        throw error;
      }
      await new Promise<void>((done) => {
        let stopping = false;
        const stop = (signal: NodeJS.Signals) => {
          if (stopping) {
            logger.warn(`${signal} again: exiting without finishing the shutdown`);
            process.exit(1);
          }
          stopping = true;
          logger.info(`${signal} received`);
          broker.close().then(done, (error: unknown) => {
            ctx.err(`klog: serve: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
            process.exit(1);
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
