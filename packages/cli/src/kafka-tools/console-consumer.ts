// kafka-console-consumer.sh, after Kafka 4.1.0's `org.apache.kafka.tools.consumer.ConsoleConsumer`,
// `ConsoleConsumerOptions` and `DefaultMessageFormatter`: a topic read in a group (Kafka's console
// consumer always has one: `console-consumer-<n>` without --group, then committing nothing), or one
// partition from --offset; each record printed by the formatter's properties; "Processed a total of N
// messages" on stderr at the end.
import { randomInt } from 'node:crypto';
import type { CommandContext } from '../command-context.js';
import { BrokerUnreachable } from '../topics/admin-client.js';
import {
  ConsumerWarnings,
  committedOffsets,
  type FetchedRecord,
  fetchOnce,
  type GroupMember,
  groupProtocolOf,
  listOffset,
  newGroupMember,
  partitionCount,
  tpKey,
} from './clients.js';
import { KafkaApiError, withBootstrap } from './kafka-errors.js';
import {
  intOption,
  optionTable,
  type ParsedOptions,
  pairs,
  parseToolArgs,
  ToolUsageError,
} from './tool-options.js';

export const CONSOLE_CONSUMER_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  REQUIRED: The server(s) to connect to.
--topic <topic>                           The topic to consume on.
--include <Java regex (String)>           Regular expression specifying list of topics to include for consumption.
  unsupported: name one topic with --topic
--partition <partition>                   The partition to consume from.
--offset <consume offset>                 The offset to consume from (a non-negative number), or 'earliest' which means from beginning, or 'latest' which means from end
--consumer-property <consumer_prop>...    A mechanism to pass user-defined properties in the form key=value to the consumer.
--command-property <consumer_prop>...     Consumer properties (Kafka 4.1).
--consumer.config <config file>           Consumer config properties file.
  unsupported: pass settings with --consumer-property
--command-config <config file>            Consumer config properties file (Kafka 4.1).
  unsupported: pass settings with --consumer-property
--formatter <class>                       The name of a class to use for formatting kafka messages for display.
--formatter-config <config file>          Config properties file to initialize the message formatter.
  unsupported: use --property
--property <prop>...                      The properties to initialize the message formatter.
--from-beginning                          If the consumer does not already have an established offset to consume from, start with the earliest message present in the log rather than the latest message.
--max-messages <num_messages>             The maximum number of messages to consume before exiting.
--timeout-ms <timeout_ms>                 If specified, exit if no message is available for consumption for the specified interval.
--skip-message-on-error                   If there is an error when processing a message, skip it instead of halt.
--group <consumer group id>               The consumer group id of the consumer.
--isolation-level <isolation level>       read_committed or read_uncommitted
--key-deserializer <deserializer for key>  The key deserializer.
  unsupported: klog prints keys and values as UTF-8 (ByteArrayDeserializer)
--value-deserializer <deserializer for values>  The value deserializer.
  unsupported: klog prints keys and values as UTF-8 (ByteArrayDeserializer)
--enable-systest-events                   Log lifecycle events of the consumer.
  unsupported: a system-test hook of Kafka's
`);

/** KafkaConsumer.close()'s default timeout (DEFAULT_CLOSE_TIMEOUT_MS). */
const CLOSE_TIMEOUT_MS = 30_000;

const CONSUMER_SETTINGS = new Set([
  'group.id',
  'auto.offset.reset',
  'client.id',
  'enable.auto.commit',
  'group.protocol',
  'isolation.level',
]);
const FORMATTER_PROPERTIES = [
  'print.timestamp',
  'print.key',
  'print.value',
  'print.partition',
  'print.offset',
  'print.delivery',
  'print.epoch',
  'print.headers',
  'key.separator',
  'line.separator',
  'headers.separator',
  'null.literal',
];

/** DefaultMessageFormatter's configuration. */
export interface FormatterConfig {
  readonly props: ReadonlyMap<string, string>;
}

/** DefaultMessageFormatter.writeTo: one record as the formatter's properties ask. */
export function formatRecord(r: FetchedRecord, props: ReadonlyMap<string, string>): string {
  const bool = (k: string, d: boolean) => (props.has(k) ? props.get(k)!.trim().toLowerCase() === 'true' : d);
  const fields: string[] = [];
  const nullLiteral = props.get('null.literal') ?? 'null';
  const text = (b: Uint8Array | null) => (b === null ? nullLiteral : new TextDecoder().decode(b));
  if (bool('print.timestamp', false)) fields.push(`${r.timestampType}:${r.timestamp}`);
  if (bool('print.partition', false)) fields.push(`Partition:${r.partition}`);
  if (bool('print.offset', false)) fields.push(`Offset:${r.offset}`);
  if (bool('print.delivery', false)) fields.push('Delivery:NOT_PRESENT');
  if (bool('print.epoch', false)) fields.push('Epoch:NOT_PRESENT');
  if (bool('print.headers', false)) {
    const hs = r.record.headers;
    fields.push(
      hs.length === 0
        ? 'NO_HEADERS'
        : hs.map((h) => `${h.key}:${text(h.value)}`).join(props.get('headers.separator') ?? ','),
    );
  }
  if (bool('print.key', false)) fields.push(text(r.record.key));
  const printValue = bool('print.value', true);
  if (printValue) fields.push(text(r.record.value));
  // The key separator goes between fields; the line separator ends a record only when its value is printed.
  return (
    fields.join(props.get('key.separator') ?? '\t') +
    (printValue ? (props.get('line.separator') ?? '\n') : '')
  );
}

/** ConsoleConsumerOptions' checks, with its messages. */
function checkOptions(opts: ParsedOptions): void {
  if (!opts.has('bootstrap-server'))
    throw new ToolUsageError('Missing required argument "[bootstrap-server]"');
  if (!opts.has('topic')) throw new ToolUsageError('Exactly one of include/topic is required.');
  if (opts.has('partition') && opts.has('group'))
    throw new ToolUsageError('Options group and partition cannot be specified together.');
  if (opts.has('offset') && !opts.has('partition'))
    throw new ToolUsageError('The partition is required when offset is specified.');
  if (opts.has('from-beginning') && opts.has('offset'))
    throw new ToolUsageError('Options from-beginning and offset cannot be specified together.');
  const formatter = opts.value('formatter');
  if (formatter !== undefined && !/(^|\.)DefaultMessageFormatter$/.test(formatter))
    throw new ToolUsageError(
      `klog's kafka-console-consumer.sh has DefaultMessageFormatter only, not ${formatter}`,
    );
}

export async function kafkaConsoleConsumer(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs(
    'kafka-console-consumer.sh',
    'This tool helps to read data from Kafka topics and outputs it to standard output.',
    CONSOLE_CONSUMER_OPTIONS,
    args,
  );
  checkOptions(opts);
  const topic = opts.value('topic')!;
  const formatter = pairs('--property', opts.values('property'));
  for (const k of formatter.keys())
    if (!FORMATTER_PROPERTIES.includes(k))
      throw new ToolUsageError(`klog's DefaultMessageFormatter does not know the property ${k}`);
  const settings = pairs('--consumer-property', [
    ...opts.values('consumer-property'),
    ...opts.values('command-property'),
  ]);
  for (const k of settings.keys())
    if (!CONSUMER_SETTINGS.has(k))
      throw new ToolUsageError(`klog's kafka-console-consumer.sh does not support the consumer setting ${k}`);
  const groupProtocol = groupProtocolOf(settings.get('group.protocol'));
  if (typeof groupProtocol !== 'string') throw new ToolUsageError(groupProtocol.invalid);
  if (opts.has('group') && settings.has('group.id') && settings.get('group.id') !== opts.value('group'))
    throw new ToolUsageError(
      `The group ids provided in different places (directly using '--group': ${opts.value('group')}, via '--consumer-property': ${settings.get('group.id')}) do not match`,
    );
  const maxMessages = intOption(opts, 'max-messages') ?? -1;
  const timeoutMs = intOption(opts, 'timeout-ms') ?? -1;
  const partition = intOption(opts, 'partition');
  const offsetText = opts.value('offset') ?? 'latest';
  if (!/^(earliest|latest|\d+)$/.test(offsetText))
    throw new ToolUsageError(
      `The provided offset value '${offsetText}' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.`,
    );
  // ConsoleConsumerOptions: a consumer with no group gets console-consumer-<n> and commits nothing.
  const explicitGroup = opts.value('group') ?? settings.get('group.id');
  const groupId = explicitGroup ?? `console-consumer-${randomInt(100_000)}`;
  const autoCommit = explicitGroup !== undefined && (settings.get('enable.auto.commit') ?? 'true') === 'true';
  const reset = opts.has('from-beginning') ? 'earliest' : (settings.get('auto.offset.reset') ?? 'latest');

  // ConsoleConsumer's default client.id: the broker's logs and the group's members show it.
  const clientId = settings.get('client.id') ?? 'console-consumer';
  let processed = 0;
  // Ctrl-C: Kafka's shutdown hook wakes the consumer, which commits, leaves its group and prints its count;
  // the JVM then exits as a process stopped by SIGINT does (130). A second Ctrl-C stops at once.
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.once('SIGINT', onInterrupt);
  const code = await withBootstrap(
    opts.value('bootstrap-server'),
    async (client) => {
      const warnings = new ConsumerWarnings((line) => ctx.err(line), clientId, groupId);
      let lastRecordAt = Date.now();
      // --timeout-ms: no record for that long ends the consumer, a broker away included.
      const timedOut = () => timeoutMs >= 0 && Date.now() - lastRecordAt > timeoutMs;
      // KafkaConsumer.close's default timeout: a broker away at the end is waited for this long.
      let closingSince: number | undefined;
      const givenUp = () =>
        interrupted ||
        timedOut() ||
        (closingSince !== undefined && Date.now() - closingSince > CLOSE_TIMEOUT_MS);
      // A broker that restarts or drops the connection is connected to again, as Kafka's consumer does,
      // with NetworkClient's warning for each attempt that fails, until it answers or the consumer gives up.
      client.reconnectWhenLost({ notConnected: warnings.notConnected, keepTrying: () => !givenUp() });
      const timeoutLines = () => {
        // ConsumerWrapper.receive's TimeoutException, logged by process() before it stops.
        ctx.err(
          'ERROR Error processing message, terminating consumer process:  (org.apache.kafka.tools.consumer.ConsoleConsumer)',
        );
        ctx.err('org.apache.kafka.common.errors.TimeoutException');
      };
      const positions = new Map<string, number>();
      let member: GroupMember | undefined;
      const startPositions = async () => {
        // The consumer protocol hands over partitions one by one: those kept keep their positions (Java's
        // SubscriptionState); a classic (eager) rebalance starts every partition again from its commit.
        const kept = member?.incremental === true ? new Map(positions) : new Map<string, number>();
        positions.clear();
        const committed =
          member === undefined ? new Map<string, number>() : await committedOffsets(client, groupId);
        const assigned = member === undefined ? [{ topic, partitions: [partition!] }] : member.assignment;
        for (const a of assigned) {
          for (const p of a.partitions) {
            const k = tpKey(a.topic, p);
            const held = kept.get(k);
            if (held !== undefined) {
              positions.set(k, held);
              continue;
            }
            const c = committed.get(k);
            if (c !== undefined) positions.set(k, c);
            else if (member === undefined && /^\d+$/.test(offsetText)) positions.set(k, Number(offsetText));
            else {
              const which = member === undefined ? offsetText : reset;
              if (which !== 'earliest' && which !== 'latest')
                throw new KafkaApiError(
                  1,
                  `Undefined offset with no reset policy for partitions: [${a.topic}-${p}]`,
                );
              positions.set(k, await listOffset(client, a.topic, p, which === 'earliest' ? -2 : -1));
            }
          }
        }
      };
      let committedAt = Date.now();
      // A failed commit is Kafka's consumer's warning on stderr, and consuming goes on (the records after the
      // last good commit are read again by whoever owns the partition next).
      const commit = async (kind: 'Asynchronous' | 'Synchronous') => {
        if (member !== undefined && autoCommit) await warnings.autoCommit(member, kind, positions);
      };
      // KafkaConsumer.close: commit, then leave, each given up on with the broker away (no line of its own:
      // NetworkClient's warnings have said so).
      const close = async () => {
        closingSince = Date.now();
        for (const step of [() => commit('Synchronous'), () => member?.leave()]) {
          try {
            await step();
          } catch (error) {
            if (!(error instanceof BrokerUnreachable && givenUp())) throw error;
          }
        }
      };
      try {
        if (partition === undefined) {
          await partitionCount(client, topic, false);
          member = newGroupMember(groupProtocol, client, groupId, [topic]);
          await member.join();
        }
        await startPositions();
        while ((maxMessages === -1 || processed < maxMessages) && !interrupted) {
          const wanted = [...positions].map(([k, offset]) => {
            const [t, p] = k.split('\u0000') as [string, string];
            return { topic: t, partition: Number(p), offset };
          });
          const waitMs =
            timeoutMs >= 0 ? Math.max(0, Math.min(500, timeoutMs - (Date.now() - lastRecordAt))) : 500;
          // Nothing assigned (more members than partitions, or a revocation pending elsewhere): the poll
          // waits until the member's next heartbeat, as a Java poll blocks, rather than spinning.
          if (wanted.length === 0 && member !== undefined)
            await new Promise((done) =>
              setTimeout(done, Math.max(10, Math.min(waitMs, member!.pollWaitMs()))),
            );
          const { records, errors } =
            wanted.length === 0 ? { records: [], errors: [] } : await fetchOnce(client, wanted, waitMs);
          for (const e of errors) if (e.code !== 0) throw new KafkaApiError(e.code, null);
          for (const r of records) {
            if (maxMessages !== -1 && processed >= maxMessages) break;
            ctx.out(formatRecord(r, formatter).replace(/\n$/, ''));
            processed++;
            positions.set(tpKey(r.topic, r.partition), r.offset + 1);
          }
          // ConsoleConsumer.process flushes after each record: what was read shows at once, not at the end.
          ctx.flush?.();
          if (records.length > 0) lastRecordAt = Date.now();
          else if (timedOut()) {
            timeoutLines();
            break;
          }
          if (member !== undefined) {
            if (Date.now() - committedAt >= 5_000) {
              await commit('Asynchronous');
              committedAt = Date.now();
            }
            if (!(await member.heartbeat())) {
              // ConsumerCoordinator.onJoinPrepare commits asynchronously before the rejoin.
              await commit('Asynchronous');
              await member.join();
              await startPositions();
            }
          }
        }
      } catch (error) {
        // Ctrl-C or --timeout-ms while the broker was away ends the wait for it, not with an error.
        if (!(error instanceof BrokerUnreachable && (interrupted || timedOut()))) throw error;
        if (!interrupted) timeoutLines();
      } finally {
        await close();
      }
      return 0;
      // A JoinGroup waits for the group's rebalance: far longer than an admin request's 10 s.
    },
    330_000,
    clientId,
  );
  process.off('SIGINT', onInterrupt);
  ctx.err(`Processed a total of ${processed} messages`);
  return interrupted ? 130 : code;
}
