// kafka-get-offsets.sh, after Kafka 4.1.0's `org.apache.kafka.tools.GetOffsetShell`: the partitions
// `--topic`/`--partitions` or `--topic-partitions` select, each one's offset for `--time` (ListOffsets),
// printed `topic:partition:offset` in the order of the partitions' names (`topic-partition`, as a string).
import type { CommandContext } from '../command-context.js';
import { listOffset, listTopicPartitions } from './clients.js';
import { exceptionText, KafkaApiError, withBootstrap } from './kafka-errors.js';
import { checkRequired, NO_SECURITY, optionTable, parseToolArgs, ToolUsageError } from './tool-options.js';
import { includeList } from './topic-command.js';

const USAGE_TEXT = 'An interactive shell for getting topic-partition offsets.';

export const GET_OFFSET_SHELL_OPTIONS = optionTable(`
--bootstrap-server <HOST1:PORT1,...,HOST3:PORT3>  REQUIRED. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.
--topic-partitions <topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3>  Comma separated list of topic-partition patterns to get the offsets for: a topic regex, then an optional \`:\` and a partition, a range (lower inclusive, upper exclusive), \`N-\` or \`-N\`.
--topic <topic>                           The topic to get the offsets for. It also accepts a regular expression. If not present, all authorized topics are queried. Cannot be used if --topic-partitions is present.
--partitions <partition ids>              Comma separated list of partition ids to get the offsets for. If not present, all partitions of the authorized topics are queried. Cannot be used if --topic-partitions is present.
--time <<timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered>  timestamp of the offsets before that. [Note: No offset is returned, if the timestamp greater than recently committed record timestamp is given.] (default: latest)
--command-config <command config property file>  Property file containing configs to be passed to Admin Client.
  unsupported: ${NO_SECURITY}
--exclude-internal-topics                 By default, internal topics are included. If specified, internal topics are excluded.
`);

/** GetOffsetShell.parseOffsetSpec: a name or ListOffsetsRequest's special timestamp, or a timestamp. */
export function parseOffsetSpec(text: string): number {
  const named: Readonly<Record<string, number>> = {
    latest: -1,
    earliest: -2,
    'max-timestamp': -3,
    'earliest-local': -4,
    'latest-tiered': -5,
  };
  const byName = named[text];
  if (byName !== undefined) return byName;
  // Long.parseLong: an optional sign and digits, nothing else.
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new ToolUsageError(
      `Malformed time argument ${text}. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp`,
    );
  return n;
}

/** TopicPartitionFilter: whether a topic is wanted, and which of its partitions. */
interface TopicPartitionFilter {
  topic(name: string): boolean;
  partition(name: string, partition: number): boolean;
}

/** One `--topic-partitions` rule: GetOffsetShell's TOPIC_PARTITION_PATTERN, `regex(:N|:N-M)?`. */
function parseRuleSpec(spec: string): TopicPartitionFilter {
  const m = /^([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?$/.exec(spec);
  if (m === null) throw new ToolUsageError(`Invalid rule specification: ${spec}`);
  const group = (i: number) => (m[i] === undefined || m[i] === '' ? undefined : m[i]);
  const topic = includeList(group(1) ?? '.*');
  const only = group(2);
  const lower = Number(group(3) ?? 0);
  const upper = group(4) === undefined ? Number.POSITIVE_INFINITY : Number(group(4));
  return {
    topic: (name) => topic.test(name),
    partition: (name, p) =>
      topic.test(name) && (only !== undefined ? p === Number(only) : p >= lower && p < upper),
  };
}

/** `--topic` and `--partitions` (TopicFilterAndPartitionFilter), or `--topic-partitions`' rules (any of them). */
function partitionFilter(
  topicPartitions: string | undefined,
  topic: string | undefined,
  partitions: string | undefined,
): TopicPartitionFilter {
  if (topicPartitions !== undefined) {
    const rules = topicPartitions.split(',').map(parseRuleSpec);
    return {
      topic: (name) => rules.some((r) => r.topic(name)),
      partition: (name, p) => rules.some((r) => r.partition(name, p)),
    };
  }
  const regex = includeList(topic ?? '.*');
  let ids: Set<number> | undefined;
  if (partitions !== undefined && partitions !== '') {
    const parsed = partitions.split(',').map((s) => (/^[+-]?\d+$/.test(s) ? Number(s) : Number.NaN));
    if (parsed.some((n) => !Number.isSafeInteger(n)))
      throw new ToolUsageError(
        `--partitions expects a comma separated list of numeric partition ids, but received: ${partitions}`,
      );
    ids = new Set(parsed);
  }
  return { topic: (name) => regex.test(name), partition: (_, p) => ids === undefined || ids.has(p) };
}

/** GetOffsetShell.execute: exit code 0, or 1 with `Error occurred: …` on stderr (its TerseException). */
export async function kafkaGetOffsets(args: readonly string[], ctx: CommandContext): Promise<number> {
  // printUsageAndExit: no arguments at all is the usage, exit 1.
  if (args.length === 0) throw new ToolUsageError(USAGE_TEXT);
  let opts: ReturnType<typeof parseToolArgs>;
  try {
    opts = parseToolArgs('kafka-get-offsets.sh', USAGE_TEXT, GET_OFFSET_SHELL_OPTIONS, args);
  } catch (error) {
    throw error instanceof ToolUsageError ? new ToolUsageError(`Error occurred: ${error.message}`) : error;
  }
  checkRequired(opts, 'bootstrap-server');
  try {
    if (opts.has('topic-partitions') && (opts.has('topic') || opts.has('partitions')))
      throw new ToolUsageError('--topic-partitions cannot be used with --topic or --partitions');
    const timestamp = parseOffsetSpec(opts.value('time') ?? 'latest');
    const filter = partitionFilter(
      opts.value('topic-partitions'),
      opts.value('topic'),
      opts.value('partitions'),
    );
    await withBootstrap(opts.value('bootstrap-server'), async (client) => {
      const topics = await listTopicPartitions(client, !opts.has('exclude-internal-topics'));
      const wanted = topics
        .filter((t) => filter.topic(t.name))
        .flatMap((t) =>
          t.partitions.filter((p) => filter.partition(t.name, p)).map((p) => [t.name, p] as const),
        );
      if (wanted.length === 0)
        throw new ToolUsageError('Could not match any topic-partitions with the specified filters');
      const rows: [string, string][] = [];
      for (const [topic, partition] of wanted) {
        let offset: number;
        try {
          offset = await listOffset(client, topic, partition, timestamp);
        } catch (error) {
          if (!(error instanceof KafkaApiError)) throw error;
          // ExecutionException.getMessage(): the cause's class and message.
          ctx.err(
            `Skip getting offsets for topic-partition ${topic}-${partition} due to error: ${exceptionText(error)}`,
          );
          continue;
        }
        // ListOffsetsResponse.UNKNOWN_OFFSET (-1): no offset for that time, so no line.
        if (offset !== -1) rows.push([`${topic}-${partition}`, `${topic}:${partition}:${offset}`]);
      }
      // A TreeMap ordered by TopicPartition.toString(): "t-10" before "t-2".
      rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, line] of rows) ctx.out(line);
    });
    return 0;
  } catch (error) {
    if (error instanceof ToolUsageError || error instanceof KafkaApiError)
      throw new ToolUsageError(`Error occurred: ${error.message}`);
    throw error;
  }
}
