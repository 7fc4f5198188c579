// kafka-topics.sh, after Kafka 4.1.0's `org.apache.kafka.tools.TopicCommand`: its options, its checks, its
// layouts and its exit codes, over klog's own small client (so it works against any Kafka broker too).
// `klog topics` is this same code under klog's subcommand names (commands/topics.ts).
import {
  CreatePartitions,
  CreateTopics,
  DeleteTopics,
  DescribeConfigs,
  type DescribeConfigsResponse,
  DescribeTopicPartitions,
  type DescribeTopicPartitionsResponse,
  Metadata,
} from '@klog/protocol';
import type { CommandContext } from '../command-context.js';
import type { AdminClient } from '../topics/admin-client.js';
import { kafkaUuid } from '../topics/describe-output.js';
import { INTERNAL_TOPICS } from './clients.js';
import { KafkaApiError, withBootstrap } from './kafka-errors.js';
import {
  checkInvalid,
  checkRequired,
  intOption,
  NO_SECURITY,
  optionTable,
  type ParsedOptions,
  parseToolArgs,
  ToolUsageError,
} from './tool-options.js';

const TOPIC_RESOURCE = 2;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
/** DescribeConfigs' ConfigSource for a value nobody set (Kafka's `ConfigEntry.isDefault()`). */
const DEFAULT_CONFIG_SOURCE = 5;

export const TOPIC_COMMAND_PURPOSE = 'This tool helps to create, delete, describe, or change a topic.';

export const TOPIC_COMMAND_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  REQUIRED: The Kafka server to connect to.
--command-config <command config property file>  Property file containing configs to be passed to Admin Client.
  unsupported: ${NO_SECURITY}
--list                                    List all available topics.
--create                                  Create a new topic.
--delete                                  Delete a topic.
--alter                                   Alter the number of partitions and replica assignment.
--describe                                List details for the given topics.
--topic <topic>                           The topic to create, alter, describe or delete. It also accepts a regular expression, except for --create option.
--topic-id <topic-id>                     The topic-id to describe.
  unsupported: klog describes topics by name (--topic)
--config <name=value>...                  A topic configuration override for the topic being created.
--delete-config <name>...                 This option is no longer supported and has been deprecated since 4.0
  unsupported: removed in Kafka 4.0; use kafka-configs.sh --alter --delete-config
--partitions <# of partitions>            The number of partitions for the topic being created or altered.
--replication-factor <replication factor>  The replication factor for each partition in the topic being created.
--replica-assignment <broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , ...>  A list of manual partition-to-broker assignments for the topic being created or altered.
  unsupported: klog is one broker and places every partition on it
--under-replicated-partitions             If set when describing topics, only show under-replicated partitions.
--unavailable-partitions                  If set when describing topics, only show partitions whose leader is not available.
--under-min-isr-partitions                If set when describing topics, only show partitions whose isr count is less than the configured minimum.
--at-min-isr-partitions                   If set when describing topics, only show partitions whose isr count is equal to the configured minimum.
--topics-with-overrides                   If set when describing topics, only show topics that have overridden configs.
--if-exists                               If set when altering or deleting or describing topics, the action will only execute if the topic exists.
--if-not-exists                           If set when creating topics, the create request will not fail if the topic already exists.
--exclude-internal                        Exclude internal topics when listing or describing topics. By default, the internal topics are included.
--partition-size-limit-per-response <maximum number of partitions per response>  The maximum partition size to be included in one DescribeTopicPartitions response.
`);

const ACTIONS = ['alter', 'create', 'describe', 'list', 'delete'] as const;
const REPORTS = [
  'under-replicated-partitions',
  'under-min-isr-partitions',
  'at-min-isr-partitions',
  'unavailable-partitions',
] as const;
const ALTER_HINT = ' (To alter topic configurations, the kafka-configs tool can be used.)';

/** TopicCommandOptions.checkArgs: exactly one action, and the options that go with it. */
export function parseTopicCommand(args: readonly string[]): ParsedOptions {
  if (args.length === 0) throw new ToolUsageError('Create, delete, describe, or change a topic.');
  const opts = parseToolArgs('kafka-topics.sh', TOPIC_COMMAND_PURPOSE, TOPIC_COMMAND_OPTIONS, args);
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1)
    throw new ToolUsageError(
      'Command must include exactly one action: --list, --describe, --create, --alter or --delete',
    );
  if (!opts.has('bootstrap-server')) throw new ToolUsageError('--bootstrap-server must be specified');
  if (!opts.has('list') && !opts.has('describe')) checkRequired(opts, 'topic');
  if (opts.has('alter')) {
    if (opts.has('config'))
      throw new ToolUsageError(`Option "[alter]" can't be used with option "[config]"${ALTER_HINT}`);
    checkRequired(opts, 'partitions');
  }
  const others = (keep: readonly string[], add: readonly string[] = []) => [
    ...ACTIONS.filter((a) => !keep.includes(a)),
    ...add,
  ];
  checkInvalid(opts, 'config', others(['alter', 'create']));
  checkInvalid(opts, 'partitions', others(['alter', 'create']));
  checkInvalid(opts, 'replication-factor', others(['create']));
  for (const r of REPORTS) checkInvalid(opts, r, others(['describe', r], ['topics-with-overrides']));
  checkInvalid(opts, 'topics-with-overrides', others(['describe'], REPORTS));
  checkInvalid(opts, 'if-exists', others(['alter', 'delete', 'describe']));
  checkInvalid(opts, 'if-not-exists', others(['create']));
  checkInvalid(opts, 'exclude-internal', others(['list', 'describe']));
  return opts;
}

/**
 * Kafka's `TopicFilter.IncludeList`: `--topic` is a regular expression matched against the whole name,
 * commas read as `|`, spaces and surrounding quotes dropped.
 */
export function includeList(raw: string): RegExp {
  const source = raw
    .trim()
    .replaceAll(',', '|')
    .replaceAll(' ', '')
    .replace(/^["']+/, '')
    .replace(/["']+$/, '');
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    throw new ToolUsageError(`${raw} is an invalid regex.`);
  }
}

/** A topic `--topic` named matched nothing: Kafka's ensureTopicExists (an IllegalArgumentException, exit 1). */
export class TopicMissing extends ToolUsageError {}

/** The configs of a create, `name=value` each (TopicCommand.parseTopicConfigsToBeAdded). */
function topicConfigs(opts: ParsedOptions): { name: string; value: string }[] {
  return opts.values('config').map((s) => {
    const parts = s.split(/\s*=\s*/);
    if (parts.length !== 2)
      throw new ToolUsageError(
        'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".',
      );
    return { name: parts[0]!.trim(), value: parts[1]!.trim() };
  });
}

type ConfigEntry = DescribeConfigsResponse.DescribeConfigsResourceResult;

interface PartitionInfo {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly elr: readonly number[] | null;
  readonly lastKnownElr: readonly number[] | null;
}

/** TopicCommand.TopicService, talking to one broker through klog's client. */
export class TopicService {
  constructor(
    private readonly client: AdminClient,
    private readonly out: (line: string) => void,
  ) {}

  /** Every topic's name, sorted, filtered by `--topic`'s regex and `--exclude-internal` (getTopics). */
  async getTopics(topic: string | undefined, excludeInternal: boolean): Promise<string[]> {
    const metadata = await this.client.request(Metadata, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const internal = (t: { name: string; isInternal: boolean }) =>
      t.isInternal || INTERNAL_TOPICS.has(t.name);
    const filter = topic === undefined ? undefined : includeList(topic);
    return metadata.topics
      .flatMap((t) =>
        t.errorCode === 0 && t.name !== null ? [{ name: t.name, isInternal: t.isInternal }] : [],
      )
      .filter((t) => !(excludeInternal && internal(t)))
      .map((t) => t.name)
      .filter((name) => filter === undefined || filter.test(name))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Kafka's ensureTopicExists: a named topic that matched nothing, unless `--if-exists`. */
  #ensureTopicExists(found: readonly string[], topic: string | undefined, required: boolean): void {
    if (topic !== undefined && topic !== '' && required && found.length === 0)
      throw new TopicMissing(`Topic '${topic}' does not exist as expected`);
  }

  async createTopic(opts: ParsedOptions): Promise<void> {
    const name = opts.value('topic')!;
    const configs = topicConfigs(opts);
    if (name.includes('.') || name.includes('_')) {
      this.out(
        "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.",
      );
    }
    const rf = intOption(opts, 'replication-factor');
    const partitions = intOption(opts, 'partitions');
    if (rf !== undefined && (rf > 32767 || rf < 1))
      throw new ToolUsageError('The replication factor must be between 1 and 32767 inclusive');
    if (partitions !== undefined && partitions < 1)
      throw new ToolUsageError('The partitions must be greater than 0');
    const res = await this.client.request(CreateTopics, {
      topics: [
        { name, numPartitions: partitions ?? -1, replicationFactor: rf ?? -1, assignments: [], configs },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const t = res.topics[0];
    if (t === undefined) throw new KafkaApiError(-1, 'the broker answered CreateTopics without the topic');
    if (t.errorCode !== 0) {
      // TOPIC_ALREADY_EXISTS with --if-not-exists is no error (and prints nothing).
      if (t.errorCode === 36 && opts.has('if-not-exists')) return;
      throw new KafkaApiError(t.errorCode, t.errorMessage);
    }
    this.out(`Created topic ${name}.`);
  }

  async listTopics(opts: ParsedOptions): Promise<void> {
    // println of the names joined by newlines: one empty line when there are none.
    this.out((await this.getTopics(opts.value('topic'), opts.has('exclude-internal'))).join('\n'));
  }

  async alterTopic(opts: ParsedOptions): Promise<void> {
    const topics = await this.getTopics(opts.value('topic'), opts.has('exclude-internal'));
    this.#ensureTopicExists(topics, opts.value('topic'), !opts.has('if-exists'));
    if (topics.length === 0) return;
    const count = intOption(opts, 'partitions')!;
    const res = await this.client.request(CreatePartitions, {
      topics: topics.map((name) => ({ name, count, assignments: null })),
      timeoutMs: 30_000,
      validateOnly: false,
    });
    for (const r of res.results) if (r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage);
  }

  async deleteTopic(opts: ParsedOptions): Promise<void> {
    const topics = await this.getTopics(opts.value('topic'), opts.has('exclude-internal'));
    this.#ensureTopicExists(topics, opts.value('topic'), !opts.has('if-exists'));
    if (topics.length === 0) return;
    // Version 6 names topics in Topics, the ones before in TopicNames.
    const byName = this.client.versionOf(DeleteTopics as never) >= 6;
    const res = await this.client.request(DeleteTopics, {
      topics: byName ? topics.map((name) => ({ name, topicId: ZERO_UUID })) : [],
      topicNames: byName ? [] : topics,
      timeoutMs: 30_000,
    });
    for (const r of res.responses)
      if (r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage);
  }

  async #configs(name: string): Promise<ConfigEntry[]> {
    const res = await this.client.request(DescribeConfigs, {
      resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configurationKeys: null }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const r = res.results[0];
    if (r === undefined) throw new KafkaApiError(-1, 'the broker answered DescribeConfigs without the topic');
    if (r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage);
    return r.configs;
  }

  /**
   * The topics' partitions as DescribeTopicPartitions gives them, or Metadata where a broker lacks it
   * (Kafka's Admin client falls back the same way; Metadata before v10 has no topic id).
   */
  async #describe(
    names: readonly string[],
    limit: number,
  ): Promise<{ name: string; topicId: string; partitions: PartitionInfo[] }[]> {
    let dtp = true;
    try {
      this.client.versionOf(DescribeTopicPartitions as never);
    } catch {
      dtp = false;
    }
    if (dtp) {
      const out: { name: string; topicId: string; partitions: PartitionInfo[] }[] = [];
      let cursor: { topicName: string; partitionIndex: number } | null = null;
      do {
        const res: DescribeTopicPartitionsResponse = await this.client.request(DescribeTopicPartitions, {
          topics: names.map((name) => ({ name, topicId: ZERO_UUID })),
          responsePartitionLimit: limit,
          cursor,
        });
        for (const t of res.topics) {
          if (t.errorCode !== 0) throw new KafkaApiError(t.errorCode, null);
          const partitions = t.partitions.map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            elr: p.eligibleLeaderReplicas,
            lastKnownElr: p.lastKnownElr,
          }));
          const seen = out.find((o) => o.name === t.name);
          if (seen === undefined) out.push({ name: t.name ?? '', topicId: t.topicId, partitions });
          else seen.partitions.push(...partitions);
        }
        cursor = res.nextCursor;
      } while (cursor !== null);
      return out;
    }
    const metadata = await this.client.request(Metadata, {
      topics: names.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    return metadata.topics.map((t) => {
      if (t.errorCode !== 0 || t.name === null) throw new KafkaApiError(t.errorCode, null);
      return {
        name: t.name,
        // Metadata 10+ carries the id; older versions leave it zero (no id printed).
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex,
          leader: p.leaderId,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          elr: null,
          lastKnownElr: null,
        })),
      };
    });
  }

  async describeTopic(opts: ParsedOptions): Promise<void> {
    const topics = await this.getTopics(opts.value('topic'), opts.has('exclude-internal'));
    this.#ensureTopicExists(topics, opts.value('topic'), !opts.has('if-exists'));
    if (topics.length === 0) return;
    const limit = intOption(opts, 'partition-size-limit-per-response') ?? 2000;
    const described = await this.#describe(topics, limit);
    const metadata = await this.client.request(Metadata, {
      topics: [],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const liveBrokers = new Set(metadata.brokers.map((b) => b.nodeId));
    const reports = REPORTS.filter((r) => opts.has(r));
    // TopicCommand.DescribeOptions: the topic line unless a partition report is asked for; the partition
    // lines unless --topics-with-overrides is.
    const describeConfigs = reports.length === 0;
    const describePartitions = !opts.has('topics-with-overrides');
    for (const t of described.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const config = await this.#configs(t.name);
      const partitions = [...t.partitions].sort((a, b) => a.partition - b.partition);
      if (describeConfigs) {
        const overridden = config.filter((c) => c.configSource !== DEFAULT_CONFIG_SOURCE);
        if (!opts.has('topics-with-overrides') || overridden.length > 0) {
          this.out(
            topicLine(t.name, t.topicId, partitions.length, partitions[0]?.replicas.length ?? 0, overridden),
          );
        }
      }
      if (!describePartitions) continue;
      const minIsr = Number(config.find((c) => c.name === 'min.insync.replicas')?.value ?? '1');
      for (const p of partitions) {
        const hasLeader = p.leader >= 0;
        const shown =
          describeConfigs ||
          (opts.has('under-replicated-partitions') && p.replicas.length - p.isr.length > 0) ||
          (opts.has('unavailable-partitions') && (!hasLeader || !liveBrokers.has(p.leader))) ||
          (opts.has('under-min-isr-partitions') && (!hasLeader || p.isr.length < minIsr)) ||
          (opts.has('at-min-isr-partitions') && p.isr.length === minIsr);
        if (shown) this.out(partitionLine(t.name, p));
      }
    }
  }
}

/** TopicCommand.TopicDescription.printDescription: the topic line (no TopicId when it is all zeros). */
export function topicLine(
  name: string,
  topicId: string,
  partitionCount: number,
  replicationFactor: number,
  overridden: readonly { readonly name: string; readonly value: string | null }[],
): string {
  const id = topicId === ZERO_UUID ? '' : `\tTopicId: ${kafkaUuid(topicId)}`;
  // Java's string concatenation prints a null value as "null".
  const configs = overridden.map((c) => `${c.name}=${c.value ?? 'null'}`).join(',');
  return `Topic: ${name}${id}\tPartitionCount: ${partitionCount}\tReplicationFactor: ${replicationFactor}\tConfigs: ${configs}`;
}

/** TopicCommand.PartitionDescription.printDescription: one partition's line (no reassignments in klog). */
export function partitionLine(topic: string, p: PartitionInfo): string {
  const ids = (xs: readonly number[] | null) => (xs === null ? 'N/A' : xs.join(','));
  return `\tTopic: ${topic}\tPartition: ${p.partition}\tLeader: ${p.leader >= 0 ? p.leader : 'none'}\tReplicas: ${ids(p.replicas)}\tIsr: ${ids(p.isr)}\tElr: ${ids(p.elr)}\tLastKnownElr: ${ids(p.lastKnownElr)}`;
}

/** TopicCommand.execute: the one action the options name. */
export async function executeTopicCommand(
  opts: ParsedOptions,
  ctx: Pick<CommandContext, 'out'>,
): Promise<void> {
  await withBootstrap(opts.value('bootstrap-server'), async (client) => {
    const service = new TopicService(client, ctx.out);
    if (opts.has('create')) await service.createTopic(opts);
    else if (opts.has('alter')) await service.alterTopic(opts);
    else if (opts.has('list')) await service.listTopics(opts);
    else if (opts.has('describe')) await service.describeTopic(opts);
    else if (opts.has('delete')) await service.deleteTopic(opts);
  });
}

/**
 * kafka-topics.sh: TopicCommand.mainNoExit's exit codes. A bad command line is one line on stderr and
 * exit 1; an error the broker answered is "Error while executing topic command : …" on stdout, exit 1.
 */
export async function kafkaTopics(args: readonly string[], ctx: CommandContext): Promise<number> {
  let opts: ParsedOptions;
  try {
    opts = parseTopicCommand(args);
  } catch (error) {
    if (error instanceof ToolUsageError) {
      ctx.err(error.message);
      return 1;
    }
    throw error;
  }
  try {
    await executeTopicCommand(opts, ctx);
    return 0;
  } catch (error) {
    if (error instanceof ToolUsageError) {
      ctx.err(error.message);
      return 1;
    }
    if (error instanceof KafkaApiError) {
      ctx.out(`Error while executing topic command : ${error.message}`);
      return 1;
    }
    throw error;
  }
}
