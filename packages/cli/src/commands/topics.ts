import {
  type ApiCodec,
  CreatePartitions,
  DeleteTopics,
  DescribeConfigs,
  DescribeTopicPartitions,
  errorName,
  IncrementalAlterConfigs,
  Metadata,
} from '@klog/protocol';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { hostPort, wholeNumber } from '../flags.js';
import { AdminClient, BrokerUnreachable } from '../topics/admin-client.js';
import { configsDescription, topicDescription } from '../topics/describe-output.js';

const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';
const TOPIC_RESOURCE = 2;

const HELP_AFTER = `
Talks to a running broker (klog serve, or any Kafka broker) over the Kafka
protocol, as kafka-topics.sh and kafka-configs.sh --bootstrap-server do, and
prints what they print.

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

export function topicsCommand(ctx: CommandContext): Command {
  const bootstrap = () =>
    new Option('--bootstrap-server <host:port>', 'the broker to talk to').default(DEFAULT_BOOTSTRAP);
  const topics = new Command('topics')
    .description("create, list, describe, alter and delete a broker's topics")
    .addHelpText('after', HELP_AFTER);
  topics
    .command('create')
    .description('create a topic')
    .argument('<topic>', 'the topic name ([a-zA-Z0-9._-], at most 249 characters)')
    .addOption(new Option('--partitions <n>', 'number of partitions').default('1'))
    .addOption(
      new Option(
        '--config <name=value>',
        'a topic config (repeatable), e.g. cleanup.policy=compact',
      ).argParser(collect),
    )
    .addOption(bootstrap())
    .action(
      async (topic: string, raw: { partitions: string; config?: string[]; bootstrapServer: string }) => {
        const partitions = wholeNumber('--partitions', raw.partitions, 1, 100_000);
        const configs = configPairs('--config', raw.config ?? []);
        const t = await withClient(raw.bootstrapServer, (client) =>
          client.createTopic(topic, partitions, configs),
        );
        if (t === undefined)
          throw new BrokerUnreachable('the broker answered CreateTopics without the topic');
        if (t.errorCode !== 0) throw failed('topics create', t.errorCode, t.errorMessage);
        ctx.out(`created topic ${topic} with ${partitions} partition${partitions === 1 ? '' : 's'}`);
      },
    );
  topics
    .command('list')
    .description('list topics and their partition counts')
    .addOption(bootstrap())
    .action(async (raw: { bootstrapServer: string }) => {
      const metadata = await withClient(raw.bootstrapServer, (client) =>
        client.request(Metadata, {
          topics: null,
          allowAutoTopicCreation: false,
          includeClusterAuthorizedOperations: false,
          includeTopicAuthorizedOperations: false,
        }),
      );
      const rows = metadata.topics
        .filter((t) => t.errorCode === 0 && t.name !== null)
        .map((t) => [t.name as string, String(t.partitions.length)] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      if (rows.length === 0) {
        ctx.out('no topics');
        return;
      }
      const width = Math.max(5, ...rows.map((r) => r[0].length));
      ctx.out(`${'TOPIC'.padEnd(width)}  PARTITIONS`);
      for (const [name, count] of rows) ctx.out(`${name.padEnd(width)}  ${count}`);
    });
  topics
    .command('describe')
    .description(
      "a topic's partitions and configs, as kafka-topics.sh --describe prints them (every topic if none is named)",
    )
    .argument('[topic]', 'the topic')
    .option('--configs', "its configs instead, as kafka-configs.sh --describe prints them (the topic's own)")
    .option('--all', 'with --configs: every config, also the defaults (kafka-configs.sh --all)')
    .addOption(bootstrap())
    .action(
      async (
        topic: string | undefined,
        raw: { configs?: boolean; all?: boolean; bootstrapServer: string },
      ) => {
        if (raw.configs === true && topic === undefined)
          throw new UsageError('topics describe --configs: name the topic');
        if (raw.all === true && raw.configs !== true)
          throw new UsageError('topics describe --all goes with --configs');
        await withClient(raw.bootstrapServer, async (client) => {
          const describeConfigs = async (name: string) => {
            const res = await client.request(DescribeConfigs, {
              resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configurationKeys: null }],
              includeSynonyms: true,
              includeDocumentation: false,
            });
            const r = res.results[0];
            if (r === undefined)
              throw new BrokerUnreachable('the broker answered DescribeConfigs without the topic');
            if (r.errorCode !== 0) throw failed('topics describe', r.errorCode, r.errorMessage);
            return r.configs;
          };
          if (raw.configs === true) {
            for (const line of configsDescription(topic!, await describeConfigs(topic!), raw.all === true))
              ctx.out(line);
            return;
          }
          const res = await client.request(DescribeTopicPartitions, {
            topics: topic === undefined ? [] : [{ name: topic }],
            responsePartitionLimit: 2000,
            cursor: null,
          });
          for (const t of res.topics) {
            if (t.errorCode !== 0) throw failed('topics describe', t.errorCode, `topic ${t.name}`);
            const name = t.name ?? '';
            // kafka-topics.sh shows the configs that are not Kafka's defaults.
            const configs = (await describeConfigs(name)).filter((c) => c.configSource !== 5);
            const partitions = t.partitions.map((p) => ({
              partition: p.partitionIndex,
              leader: p.leaderId,
              replicas: p.replicaNodes,
              isr: p.isrNodes,
            }));
            for (const line of topicDescription(name, t.topicId, partitions, configs)) ctx.out(line);
          }
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
    .addOption(bootstrap())
    .action(
      async (
        topic: string,
        raw: { partitions?: string; addConfig?: string[]; deleteConfig?: string[]; bootstrapServer: string },
      ) => {
        const count =
          raw.partitions === undefined ? undefined : wholeNumber('--partitions', raw.partitions, 1, 100_000);
        const add = configPairs('--add-config', raw.addConfig ?? []);
        const remove = (raw.deleteConfig ?? [])
          .flatMap((v) => v.split(','))
          .map((s) => s.trim())
          .filter((s) => s !== '');
        if (count === undefined && add.size === 0 && remove.length === 0) {
          throw new UsageError('topics alter: give --partitions, --add-config or --delete-config');
        }
        await withClient(raw.bootstrapServer, async (client) => {
          if (count !== undefined) {
            const res = await client.request(CreatePartitions, {
              topics: [{ name: topic, count, assignments: null }],
              timeoutMs: 30_000,
              validateOnly: false,
            });
            const r = res.results[0];
            if (r === undefined)
              throw new BrokerUnreachable('the broker answered CreatePartitions without the topic');
            if (r.errorCode !== 0) throw failed('topics alter', r.errorCode, r.errorMessage);
          }
          if (add.size > 0 || remove.length > 0) {
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
          }
        });
      },
    );
  topics
    .command('delete')
    .description('delete a topic and its data (kafka-topics.sh --delete)')
    .argument('<topic>', 'the topic')
    .addOption(bootstrap())
    .action(async (topic: string, raw: { bootstrapServer: string }) => {
      const res = await withClient(raw.bootstrapServer, (client) => {
        // Version 6 names topics in Topics, the ones before in TopicNames.
        const byName = client.versionOf(DeleteTopics as ApiCodec<unknown, never>) >= 6;
        return client.request(DeleteTopics, {
          topics: byName ? [{ name: topic, topicId: '00000000-0000-0000-0000-000000000000' }] : [],
          topicNames: byName ? [] : [topic],
          timeoutMs: 30_000,
        });
      });
      const r = res.responses[0];
      if (r === undefined) throw new BrokerUnreachable('the broker answered DeleteTopics without the topic');
      if (r.errorCode !== 0) throw failed('topics delete', r.errorCode, r.errorMessage);
    });
  return topics;
}
