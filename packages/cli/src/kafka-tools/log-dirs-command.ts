// kafka-log-dirs.sh, after Kafka 4.1.0's `org.apache.kafka.tools.LogDirsCommand`: DescribeLogDirs of the
// brokers `--broker-list` names (all of them by default), printed as Kafka's Jackson writes its HashMaps —
// hence java-order.ts — and filtered by `--topic-list`.
import { DescribeLogDirs, Metadata } from '@klog/protocol';
import type { CommandContext } from '../command-context.js';
import { javaHashObject, javaHashOrder, javaStringHash, topicPartitionHash } from './java-order.js';
import { exceptionClass, withBootstrap } from './kafka-errors.js';
import { checkRequired, NO_SECURITY, optionTable, parseToolArgs, ToolUsageError } from './tool-options.js';

const PURPOSE = 'This tool helps to query log directory usage on the specified brokers.';

export const LOG_DIRS_OPTIONS = optionTable(`
--bootstrap-server <The server(s) to use for bootstrapping>  REQUIRED: the server(s) to use for bootstrapping
--command-config <Admin client property file>  Property file containing configs to be passed to Admin Client.
  unsupported: ${NO_SECURITY}
--describe                                Describe the specified log directories on the specified brokers.
--topic-list <Topic list>                 The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be queried if no topic list is specified (default: )
--broker-list <Broker list>               The list of brokers to be queried in the form "0,1,2". All brokers in the cluster will be queried if no broker list is specified (default: )
`);

/** A HashSet<Integer>'s order (Integer.hashCode is the value), joined by commas. */
const brokerSet = (ids: Iterable<number>) => javaHashOrder([...new Set(ids)], (id) => id).join(',');

export async function kafkaLogDirs(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs('kafka-log-dirs.sh', PURPOSE, LOG_DIRS_OPTIONS, args);
  checkRequired(opts, 'bootstrap-server', 'describe');
  const split = (name: string) => (opts.value(name) ?? '').split(',').filter((s) => s !== '');
  const topics = new Set(split('topic-list'));
  const inputBrokers = split('broker-list').map((s) => {
    // Integer.valueOf: a NumberFormatException, which LogDirsCommand prints by its message.
    if (!/^[+-]?\d+$/.test(s)) throw new ToolUsageError(`For input string: "${s}"`);
    return Number(s);
  });
  return withBootstrap(opts.value('bootstrap-server'), async (client) => {
    const metadata = await client.request(Metadata, {
      topics: [],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const cluster = metadata.brokers.map((b) => b.nodeId);
    const missing = inputBrokers.filter((b) => !cluster.includes(b));
    if (missing.length > 0)
      throw new ToolUsageError(
        `ERROR: The given brokers do not exist from --broker-list: ${brokerSet(missing)}. Current existent brokers: ${brokerSet(cluster)}`,
      );
    const brokers = inputBrokers.length === 0 ? cluster : inputBrokers;
    // Kafka's Admin sends DescribeLogDirs to each broker of the list; klog's client talks to the bootstrap
    // broker only, which answers for itself alone.
    if (new Set(brokers).size > 1)
      throw new ToolUsageError(
        `klog's kafka-log-dirs.sh asks one broker (its --bootstrap-server); name one with --broker-list (of ${brokerSet(cluster)})`,
      );
    ctx.out('Querying brokers for log directories information');
    const byBroker: [string, unknown][] = [];
    for (const broker of new Set(brokers)) {
      const res = await client.request(DescribeLogDirs, { topics: null });
      const logDirs = javaHashOrder(res.results, (r) => javaStringHash(r.logDir)).map((r) => {
        const replicas = r.topics
          .filter((t) => topics.size === 0 || topics.has(t.name))
          .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, ...p })));
        return javaHashObject([
          ['logDir', r.logDir],
          ['error', r.errorCode === 0 ? null : exceptionClass(r.errorCode)],
          [
            'partitions',
            javaHashOrder(replicas, (p) => topicPartitionHash(p.topic, p.partitionIndex)).map((p) =>
              javaHashObject([
                ['partition', `${p.topic}-${p.partitionIndex}`],
                ['size', p.partitionSize],
                ['offsetLag', p.offsetLag],
                ['isFuture', p.isFutureKey],
              ]),
            ),
          ],
        ]);
      });
      byBroker.push([
        String(broker),
        javaHashObject([
          ['broker', broker],
          ['logDirs', logDirs],
        ]),
      ]);
    }
    ctx.out(`Received log directory information from brokers ${brokerSet(brokers)}`);
    ctx.out(
      JSON.stringify(
        javaHashObject([
          ['version', 1],
          ['brokers', byBroker.map(([, b]) => b)],
        ]),
      ),
    );
    return 0;
  });
}
