import { errorName, Metadata } from '@klog/protocol';
import { Command, Option } from 'commander';
import type { CommandContext } from '../program.js';
import { hostPort, wholeNumber } from '../flags.js';
import { AdminClient, BrokerUnreachable } from '../topics/admin-client.js';

const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

const HELP_AFTER = `
Talks to a running broker (klog serve, or any Kafka broker) over the Kafka
protocol, as kafka-topics.sh --bootstrap-server does.

Examples:
  klog topics create orders --partitions 3
  klog topics list --bootstrap-server 127.0.0.1:9092`;

async function withClient<T>(bootstrap: string, f: (client: AdminClient) => Promise<T>): Promise<T> {
  const { host, port } = hostPort('--bootstrap-server', bootstrap);
  const client = await AdminClient.connect(host, port);
  try {
    return await f(client);
  } finally {
    client.close();
  }
}

export function topicsCommand(ctx: CommandContext): Command {
  const bootstrap = () => new Option('--bootstrap-server <host:port>', 'the broker to talk to').default(DEFAULT_BOOTSTRAP);
  const topics = new Command('topics').description("create and list a broker's topics").addHelpText('after', HELP_AFTER);
  topics
    .command('create')
    .description('create a topic')
    .argument('<topic>', 'the topic name ([a-zA-Z0-9._-], at most 249 characters)')
    .addOption(new Option('--partitions <n>', 'number of partitions').default('1'))
    .addOption(bootstrap())
    .action(async (topic: string, raw: { partitions: string; bootstrapServer: string }) => {
      const partitions = wholeNumber('--partitions', raw.partitions, 1, 100_000);
      const t = await withClient(raw.bootstrapServer, (client) => client.createTopic(topic, partitions));
      if (t === undefined) throw new BrokerUnreachable('the broker answered CreateTopics without the topic');
      if (t.errorCode !== 0) throw new Error(`topics create: ${errorName(t.errorCode)}${t.errorMessage ? `: ${t.errorMessage}` : ''}`);
      ctx.out(`created topic ${topic} with ${partitions} partition${partitions === 1 ? '' : 's'}`);
    });
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
  return topics;
}
