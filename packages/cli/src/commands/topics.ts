import { DescribeConfigs, errorName, IncrementalAlterConfigs } from '@klog/protocol';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { bootstrapServerOption, hostPort } from '../flags.js';
import { KafkaApiError } from '../kafka-tools/kafka-errors.js';
import { ToolUsageError } from '../kafka-tools/tool-options.js';
import { executeTopicCommand, parseTopicCommand, TopicMissing } from '../kafka-tools/topic-command.js';
import { AdminClient, BrokerUnreachable } from '../topics/admin-client.js';
import { configsDescription } from '../topics/describe-output.js';

const TOPIC_RESOURCE = 2;

const HELP_AFTER = `
Talks to a running broker (klog serve, or any Kafka broker) over the Kafka
protocol. Creating, listing, describing, adding partitions and deleting are
klog kafka-topics (kafka-topics.sh) under klog's names, and print what it
prints; --configs, --add-config and --delete-config do what kafka-configs.sh does.

Examples:
  klog topics create orders --partitions 3 --config cleanup.policy=compact
  klog topics list --bootstrap-server 127.0.0.1:9092
  klog topics describe orders              (kafka-topics.sh --describe)
  klog topics describe orders --configs    (kafka-configs.sh --describe)
  klog topics alter orders --partitions 6 --add-config retention.ms=3600000
  klog topics delete orders`;

async function withClient<T>(bootstrap: string, f: (client: AdminClient) => Promise<T>): Promise<T> {
  const { host, port } = hostPort('--bootstrap-server', bootstrap);
  const client = await AdminClient.connect(host, port);
  try {
    return await f(client);
  } finally {
    client.close();
  }
}

/** `k=v` pairs, from repeated flags or comma lists (kafka-configs.sh's --add-config takes `a=1,b=2`). */
function configPairs(flag: string, values: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of values.flatMap((v) => v.split(','))) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} ${JSON.stringify(item)}: expected name=value`);
    out.set(item.slice(0, eq).trim(), item.slice(eq + 1).trim());
  }
  return out;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function failed(what: string, code: number, message: string | null): Error {
  return new Error(`${what}: ${errorName(code)}${message ? `: ${message}` : ''}`);
}

/** A topic name as kafka-topics.sh's --topic, which reads a regular expression: matching only itself. */
const exactly = (topic: string) => topic.replace(/[\\^$.*+?()[\]{}|,"' ]/g, '\\$&');

/**
 * Runs kafka-topics.sh's code (kafka-tools/topic-command.ts) for a `klog topics` subcommand, its errors
 * said klog's way: a bad command line exits 2, a broker's refusal names the Kafka error, exit 1.
 */
async function topicCommand(what: string, ctx: CommandContext, args: string[]): Promise<void> {
  try {
    await executeTopicCommand(parseTopicCommand(args), ctx);
  } catch (error) {
    if (error instanceof KafkaApiError) throw failed(what, error.code, error.message);
    if (error instanceof TopicMissing) throw new Error(`${what}: ${error.message}`);
    if (error instanceof ToolUsageError) throw new UsageError(`${what}: ${error.message}`);
    throw error;
  }
}

export function topicsCommand(ctx: CommandContext): Command {
  const topics = new Command('topics')
    .description("create, list, describe, alter and delete a broker's topics")
    .addHelpText('after', HELP_AFTER);
  topics
    .command('create')
    .description('create a topic (kafka-topics.sh --create)')
    .argument('<topic>', 'the topic name ([a-zA-Z0-9._-], at most 249 characters)')
    .addOption(new Option('--partitions <n>', 'number of partitions').default('1'))
    .addOption(
      new Option(
        '--config <name=value>',
        'a topic config (repeatable), e.g. cleanup.policy=compact',
      ).argParser(collect),
    )
    .addOption(bootstrapServerOption())
    .action(
      async (topic: string, raw: { partitions: string; config?: string[]; bootstrapServer: string }) => {
        await topicCommand('topics create', ctx, [
          '--create',
          '--topic',
          topic,
          '--partitions',
          raw.partitions,
          ...(raw.config ?? []).flatMap((c) => ['--config', c]),
          '--bootstrap-server',
          raw.bootstrapServer,
        ]);
      },
    );
  topics
    .command('list')
    .description('list the topics (kafka-topics.sh --list)')
    .addOption(bootstrapServerOption())
    .action(async (raw: { bootstrapServer: string }) => {
      await topicCommand('topics list', ctx, ['--list', '--bootstrap-server', raw.bootstrapServer]);
    });
  topics
    .command('describe')
    .description(
      "a topic's partitions and configs, as kafka-topics.sh --describe prints them (every topic if none is named)",
    )
    .argument('[topic]', 'the topic')
    .option('--configs', "its configs instead, as kafka-configs.sh --describe prints them (the topic's own)")
    .option('--all', 'with --configs: every config, also the defaults (kafka-configs.sh --all)')
    .addOption(bootstrapServerOption())
    .action(
      async (
        topic: string | undefined,
        raw: { configs?: boolean; all?: boolean; bootstrapServer: string },
      ) => {
        if (raw.configs === true && topic === undefined)
          throw new UsageError('topics describe --configs: name the topic');
        if (raw.all === true && raw.configs !== true)
          throw new UsageError('topics describe --all goes with --configs');
        if (raw.configs !== true) {
          await topicCommand('topics describe', ctx, [
            '--describe',
            ...(topic === undefined ? [] : ['--topic', exactly(topic)]),
            '--bootstrap-server',
            raw.bootstrapServer,
          ]);
          return;
        }
        await withClient(raw.bootstrapServer, async (client) => {
          const res = await client.request(DescribeConfigs, {
            resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic!, configurationKeys: null }],
            includeSynonyms: true,
            includeDocumentation: false,
          });
          const r = res.results[0];
          if (r === undefined)
            throw new BrokerUnreachable('the broker answered DescribeConfigs without the topic');
          if (r.errorCode !== 0) throw failed('topics describe', r.errorCode, r.errorMessage);
          for (const line of configsDescription(topic!, r.configs, raw.all === true)) ctx.out(line);
        });
      },
    );
  topics
    .command('alter')
    .description(
      'more partitions (kafka-topics.sh --alter), or configs set and removed (kafka-configs.sh --alter)',
    )
    .argument('<topic>', 'the topic')
    .addOption(new Option('--partitions <n>', 'the new partition count (more than it has)'))
    .addOption(new Option('--add-config <name=value,...>', 'configs to set (repeatable)').argParser(collect))
    .addOption(
      new Option(
        '--delete-config <name,...>',
        'configs to remove: back to the default (repeatable)',
      ).argParser(collect),
    )
    .addOption(bootstrapServerOption())
    .action(
      async (
        topic: string,
        raw: { partitions?: string; addConfig?: string[]; deleteConfig?: string[]; bootstrapServer: string },
      ) => {
        const add = configPairs('--add-config', raw.addConfig ?? []);
        const remove = (raw.deleteConfig ?? [])
          .flatMap((v) => v.split(','))
          .map((s) => s.trim())
          .filter((s) => s !== '');
        if (raw.partitions === undefined && add.size === 0 && remove.length === 0) {
          throw new UsageError('topics alter: give --partitions, --add-config or --delete-config');
        }
        if (raw.partitions !== undefined) {
          await topicCommand('topics alter', ctx, [
            '--alter',
            '--topic',
            exactly(topic),
            '--partitions',
            raw.partitions,
            '--bootstrap-server',
            raw.bootstrapServer,
          ]);
        }
        if (add.size > 0 || remove.length > 0) {
          await withClient(raw.bootstrapServer, async (client) => {
            const res = await client.request(IncrementalAlterConfigs, {
              resources: [
                {
                  resourceType: TOPIC_RESOURCE,
                  resourceName: topic,
                  configs: [
                    ...[...add].map(([name, value]) => ({ name, configOperation: 0, value })),
                    ...remove.map((name) => ({ name, configOperation: 1, value: null })),
                  ],
                },
              ],
              validateOnly: false,
            });
            const r = res.responses[0];
            if (r === undefined)
              throw new BrokerUnreachable('the broker answered IncrementalAlterConfigs without the topic');
            if (r.errorCode !== 0) throw failed('topics alter', r.errorCode, r.errorMessage);
            ctx.out(`Completed updating config for topic ${topic}.`);
          });
        }
      },
    );
  topics
    .command('delete')
    .description('delete a topic and its data (kafka-topics.sh --delete)')
    .argument('<topic>', 'the topic')
    .addOption(bootstrapServerOption())
    .action(async (topic: string, raw: { bootstrapServer: string }) => {
      await topicCommand('topics delete', ctx, [
        '--delete',
        '--topic',
        exactly(topic),
        '--bootstrap-server',
        raw.bootstrapServer,
      ]);
    });
  return topics;
}
