// kafka-consumer-perf-test.sh, after Kafka 4.1.0's `org.apache.kafka.tools.ConsumerPerformance`: a member of
// --group (perf-consumer-<n> by default) reads --messages records of --topic, from the committed offsets or
// the earliest (--from-latest: the latest), and prints Kafka's header and summary line — MB and messages a
// second overall and over the fetch time alone, the time spent joining the group apart — or, with
// --show-detailed-stats, a line every --reporting-interval.
import { randomInt } from 'node:crypto';
import type { CommandContext } from '../command-context.js';
import { BrokerUnreachable } from '../topics/admin-client.js';
import {
  ConsumerWarnings,
  committedOffsets,
  type FetchedRecord,
  fetchOnce,
  groupProtocolOf,
  listOffset,
  newGroupMember,
  partitionCount,
  tpKey,
} from './clients.js';
import { readProperties } from './console-producer.js';
import { KafkaApiError, withBootstrap } from './kafka-errors.js';
import { checkRequired, intOption, optionTable, parseToolArgs, ToolUsageError } from './tool-options.js';

export const CONSUMER_PERFORMANCE_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  REQUIRED: The server(s) to connect to.
--topic <topic>                           REQUIRED: The topic to consume from.
--group <gid>                             The group id to consume on. (default: perf-consumer-<random>)
--fetch-size <size>                       The amount of data to fetch in a single request. (default: 1048576)
--from-latest                             If the consumer does not already have an established offset to consume from, start with the latest message present in the log rather than the earliest message.
--socket-buffer-size <size>               The size of the tcp RECV size.
  unsupported: Node sets no receive buffer size on a socket
--consumer.config <config file>           Consumer config properties file.
--print-metrics                           Print out the metrics.
  unsupported: klog's consumer keeps no Java metrics registry to print
--show-detailed-stats                     If set, stats are reported for each reporting interval as configured by reporting-interval
--timeout [milliseconds]                  The maximum allowed time in milliseconds between returned records. (default: 10000)
--messages <count>                        REQUIRED: The number of messages to send or consume
--reporting-interval <interval_ms>        Interval in milliseconds at which to print progress info. (default: 5000)
--date-format <date format>               The date format to use for formatting the time field. See java.text.SimpleDateFormat for options. (default: yyyy-MM-dd HH:mm:ss:SSS)
--hide-header                             If set, skips printing the header for the stats
`);

/** Consumer settings a --consumer.config file may hold that this tool acts on; any other is refused. */
const CONSUMER_SETTINGS = new Set([
  'bootstrap.servers',
  'group.id',
  'client.id',
  'auto.offset.reset',
  'group.protocol',
]);

/**
 * java.text.SimpleDateFormat for the letters a date format in a perf run uses (y M d H h m s S a, quoted
 * text), in the local time zone as the JVM's default; another letter is refused, not printed wrongly.
 */
export function simpleDateFormat(pattern: string): (ms: number) => string {
  const tokens: ((d: Date) => string)[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      const text = end === i + 1 ? "'" : pattern.slice(i + 1, end === -1 ? undefined : end);
      tokens.push(() => text);
      i = end === -1 ? pattern.length : end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      tokens.push(() => c);
      i++;
      continue;
    }
    let n = 1;
    while (pattern[i + n] === c) n++;
    i += n;
    const pad = (v: number, width = n) => String(v).padStart(width, '0');
    switch (c) {
      case 'y':
        tokens.push((d) => (n === 2 ? pad(d.getFullYear() % 100, 2) : pad(d.getFullYear())));
        break;
      case 'M':
        tokens.push((d) => pad(d.getMonth() + 1));
        break;
      case 'd':
        tokens.push((d) => pad(d.getDate()));
        break;
      case 'H':
        tokens.push((d) => pad(d.getHours()));
        break;
      case 'h':
        tokens.push((d) => pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12));
        break;
      case 'm':
        tokens.push((d) => pad(d.getMinutes()));
        break;
      case 's':
        tokens.push((d) => pad(d.getSeconds()));
        break;
      case 'S':
        tokens.push((d) => pad(d.getMilliseconds()));
        break;
      case 'a':
        tokens.push((d) => (d.getHours() < 12 ? 'AM' : 'PM'));
        break;
      default:
        throw new ToolUsageError(
          `klog's kafka-consumer-perf-test.sh formats dates with the letters y M d H h m s S a only, not '${c}'`,
        );
    }
  }
  return (ms) => {
    const d = new Date(ms);
    return tokens.map((t) => t(d)).join('');
  };
}

/** Java's `%.4f`, with NaN and Infinity spelled as Java spells them (a run of 0 ms fetching). */
function f4(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return x.toFixed(4);
}

export async function kafkaConsumerPerfTest(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs(
    'kafka-consumer-perf-test.sh',
    'This tool is used to verify the consumer performance.',
    CONSUMER_PERFORMANCE_OPTIONS,
    args,
  );
  checkRequired(opts, 'topic', 'messages');
  const props = new Map<string, string>();
  const file = opts.value('consumer.config');
  if (file !== undefined) for (const [k, v] of readProperties(file)) props.set(k, v);
  for (const k of props.keys())
    if (!CONSUMER_SETTINGS.has(k))
      throw new ToolUsageError(
        `klog's kafka-consumer-perf-test.sh does not act on the consumer setting ${k}`,
      );
  const groupProtocol = groupProtocolOf(props.get('group.protocol'));
  if (typeof groupProtocol !== 'string') throw new ToolUsageError(groupProtocol.invalid);
  const bootstrap = opts.value('bootstrap-server') ?? props.get('bootstrap.servers');
  if (bootstrap === undefined) checkRequired(opts, 'bootstrap-server');
  const topic = opts.value('topic')!;
  const numMessages = intOption(opts, 'messages')!;
  const fetchSize = intOption(opts, 'fetch-size') ?? 1_048_576;
  const timeoutText = opts.value('timeout');
  const recordFetchTimeoutMs =
    timeoutText === undefined || timeoutText === '' ? 10_000 : intOption(opts, 'timeout')!;
  const reportingText = opts.value('reporting-interval');
  if (reportingText !== undefined && !/^\d+$/.test(reportingText))
    throw new ToolUsageError(`Value [${reportingText}] did not match pattern [^\\d+$]`);
  const reportingIntervalMs = reportingText === undefined ? 5000 : Number(reportingText);
  if (reportingIntervalMs <= 0) throw new ToolUsageError('Reporting interval must be greater than 0.');
  const detailed = opts.has('show-detailed-stats');
  const date = simpleDateFormat(opts.value('date-format') ?? 'yyyy-MM-dd HH:mm:ss:SSS');
  // ConsumerPerfOptions.props(): --group (or its random default) replaces a group.id from the file.
  const groupId = opts.value('group') ?? `perf-consumer-${randomInt(100_000)}`;
  const reset = opts.has('from-latest') ? 'latest' : 'earliest';

  if (!opts.has('hide-header')) {
    const extra = ', rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';
    ctx.out(
      detailed
        ? `time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${extra}`
        : `start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${extra}`,
    );
  }

  // ConsumerPerformance's default client.id: the broker's logs and the group's members show it.
  const clientId = props.get('client.id') ?? 'perf-consumer-client';
  return withBootstrap(
    bootstrap,
    async (client) => {
      const startMs = Date.now();
      // A broker that restarts is connected to again (NetworkClient's warning for each failed attempt) until
      // --timeout passes with no record, which ends the test as a fetch that brings nothing does.
      // (Until the first fetch, counted from the start: a join the broker drops is waited out as long.)
      let lastConsumedTimeMs = startMs;
      const waitedTooLong = () => Date.now() - lastConsumedTimeMs > recordFetchTimeoutMs;
      const warnings = new ConsumerWarnings((line) => ctx.err(line), clientId, groupId);
      client.reconnectWhenLost({ notConnected: warnings.notConnected, keepTrying: () => !waitedTooLong() });
      let joinTimeMs = 0;
      let joinTimeMsInSingleRound = 0;
      await partitionCount(client, topic, false);
      const member = newGroupMember(groupProtocol, client, groupId, [topic]);
      const positions = new Map<string, number>();
      /** Joins (again), as the rebalance listener times it: from the start of the join to the assignment. */
      const join = async () => {
        const joinStartMs = Date.now();
        await member.join();
        // Partitions kept through an incremental (consumer protocol) change keep their positions.
        const kept = member.incremental ? new Map(positions) : new Map<string, number>();
        positions.clear();
        const committed = await committedOffsets(client, groupId);
        for (const a of member.assignment)
          for (const p of a.partitions) {
            const k = tpKey(a.topic, p);
            positions.set(
              k,
              kept.get(k) ??
                committed.get(k) ??
                (await listOffset(client, a.topic, p, reset === 'earliest' ? -2 : -1)),
            );
          }
        const elapsed = Date.now() - joinStartMs;
        joinTimeMs += elapsed;
        joinTimeMsInSingleRound += elapsed;
      };
      await join();

      let bytesRead = 0;
      let messagesRead = 0;
      let lastBytesRead = 0;
      let lastMessagesRead = 0;
      let currentTimeMs = Date.now();
      let lastReportTimeMs = currentTimeMs;
      lastConsumedTimeMs = currentTimeMs;
      let committedAt = currentTimeMs;
      let fetched: FetchedRecord[] = [];
      // A failed commit is Kafka's consumer's warning on stderr; the test goes on, as Java's does.
      const commit = (kind: 'Asynchronous' | 'Synchronous') => warnings.autoCommit(member, kind, positions);
      // KafkaConsumer.close: commit, then leave, each given up on with the broker away past --timeout.
      const close = async () => {
        for (const step of [() => commit('Synchronous'), () => member.leave()]) {
          try {
            await step();
          } catch (error) {
            if (!(error instanceof BrokerUnreachable)) throw error;
          }
        }
      };
      try {
        while (messagesRead < numMessages && currentTimeMs - lastConsumedTimeMs <= recordFetchTimeoutMs) {
          // consumer.poll(Duration.ofMillis(100)): what the last fetch brought, at most max.poll.records (500).
          if (fetched.length === 0) {
            const wanted = [...positions].map(([k, offset]) => {
              const [t, p] = k.split('\u0000') as [string, string];
              return { topic: t, partition: Number(p), offset };
            });
            // Nothing assigned yet: poll(100 ms) blocks, it does not spin.
            if (wanted.length === 0)
              await new Promise((done) => setTimeout(done, Math.max(10, Math.min(100, member.pollWaitMs()))));
            const { records: got, errors } =
              wanted.length === 0
                ? { records: [], errors: [] }
                : await fetchOnce(client, wanted, 100, fetchSize);
            for (const e of errors) if (e.code !== 0) throw new KafkaApiError(e.code, null);
            fetched = got;
          }
          const records = fetched.splice(0, 500);
          currentTimeMs = Date.now();
          if (records.length > 0) lastConsumedTimeMs = currentTimeMs;
          for (const r of records) {
            messagesRead++;
            bytesRead += (r.record.key?.length ?? 0) + (r.record.value?.length ?? 0);
            positions.set(tpKey(r.topic, r.partition), r.offset + 1);
            if (currentTimeMs - lastReportTimeMs >= reportingIntervalMs) {
              if (detailed) {
                const elapsedMs = currentTimeMs - lastReportTimeMs;
                const totalMb = bytesRead / (1024 * 1024);
                const intervalMb = (bytesRead - lastBytesRead) / (1024 * 1024);
                const fetchTimeMs = elapsedMs - joinTimeMsInSingleRound;
                const intervalMessages = messagesRead - lastMessagesRead;
                ctx.out(
                  `${date(currentTimeMs)}, 0, ${f4(totalMb)}, ${f4((1000 * intervalMb) / elapsedMs)}, ${messagesRead}, ${f4((intervalMessages / elapsedMs) * 1000)}, ${joinTimeMsInSingleRound}, ${fetchTimeMs}, ${f4(fetchTimeMs <= 0 ? 0 : (1000 * intervalMb) / fetchTimeMs)}, ${f4(fetchTimeMs <= 0 ? 0 : (1000 * intervalMessages) / fetchTimeMs)}`,
                );
              }
              joinTimeMsInSingleRound = 0;
              lastReportTimeMs = currentTimeMs;
              lastMessagesRead = messagesRead;
              lastBytesRead = bytesRead;
            }
          }
          // enable.auto.commit, every auto.commit.interval.ms (5 s), and a heartbeat between polls.
          if (currentTimeMs - committedAt >= 5_000) {
            await commit('Asynchronous');
            committedAt = currentTimeMs;
          }
          if (!(await member.heartbeat())) {
            // ConsumerCoordinator.onJoinPrepare commits asynchronously before the rejoin.
            await commit('Asynchronous');
            await join();
            fetched = [];
          }
        }
      } catch (error) {
        if (!(error instanceof BrokerUnreachable && waitedTooLong())) throw error;
      } finally {
        await close();
      }
      if (messagesRead < numMessages)
        ctx.out(
          `WARNING: Exiting before consuming the expected number of messages: timeout (${recordFetchTimeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`,
        );
      const endMs = Date.now();
      const elapsedSec = (endMs - startMs) / 1000;
      const fetchTimeInMs = endMs - startMs - joinTimeMs;
      if (!detailed) {
        const totalMb = bytesRead / (1024 * 1024);
        ctx.out(
          `${date(startMs)}, ${date(endMs)}, ${f4(totalMb)}, ${f4(totalMb / elapsedSec)}, ${messagesRead}, ${f4(messagesRead / elapsedSec)}, ${joinTimeMs}, ${fetchTimeInMs}, ${f4(totalMb / (fetchTimeInMs / 1000))}, ${f4(messagesRead / (fetchTimeInMs / 1000))}`,
        );
      }
      return 0;
    },
    // A JoinGroup waits for the group's rebalance: far longer than an admin request's 10 s.
    330_000,
    clientId,
  );
}
