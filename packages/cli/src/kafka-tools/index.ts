// Kafka's command-line tools by their names (`kafka-topics` …): what `klog kafka-topics …` and the scripts
// in packages/cli/kafka/bin run. Each takes Kafka 4.1.0's options and answers with Kafka's exit codes.
import type { CommandContext } from '../command-context.js';
import { BrokerUnreachable } from '../topics/admin-client.js';
import { kafkaAcls } from './acl-command.js';
import { kafkaConfigs } from './config-command.js';
import { kafkaConsoleConsumer } from './console-consumer.js';
import { kafkaConsoleProducer } from './console-producer.js';
import { kafkaConsumerGroups } from './consumer-group-command.js';
import { kafkaConsumerPerfTest } from './consumer-performance.js';
import { kafkaDeleteRecords } from './delete-records-command.js';
import { kafkaDumpLog } from './dump-log-segments.js';
import { kafkaGetOffsets } from './get-offset-shell.js';
import { KafkaApiError, UncaughtJavaException } from './kafka-errors.js';
import { kafkaLogDirs } from './log-dirs-command.js';
import { kafkaProducerPerfTest } from './producer-performance.js';
import { ToolHelp, ToolUsageError } from './tool-options.js';
import { kafkaTopics } from './topic-command.js';

type Tool = (args: readonly string[], ctx: CommandContext) => Promise<number>;

export const KAFKA_TOOLS: ReadonlyMap<string, { readonly run: Tool; readonly description: string }> = new Map(
  [
    ['kafka-topics', { run: kafkaTopics, description: "Kafka's kafka-topics.sh (TopicCommand)" }],
    [
      'kafka-console-producer',
      { run: kafkaConsoleProducer, description: "Kafka's kafka-console-producer.sh (ConsoleProducer)" },
    ],
    [
      'kafka-console-consumer',
      { run: kafkaConsoleConsumer, description: "Kafka's kafka-console-consumer.sh (ConsoleConsumer)" },
    ],
    [
      'kafka-consumer-groups',
      { run: kafkaConsumerGroups, description: "Kafka's kafka-consumer-groups.sh (ConsumerGroupCommand)" },
    ],
    ['kafka-configs', { run: kafkaConfigs, description: "Kafka's kafka-configs.sh (ConfigCommand)" }],
    [
      'kafka-get-offsets',
      { run: kafkaGetOffsets, description: "Kafka's kafka-get-offsets.sh (GetOffsetShell)" },
    ],
    [
      'kafka-delete-records',
      { run: kafkaDeleteRecords, description: "Kafka's kafka-delete-records.sh (DeleteRecordsCommand)" },
    ],
    ['kafka-dump-log', { run: kafkaDumpLog, description: "Kafka's kafka-dump-log.sh (DumpLogSegments)" }],
    ['kafka-log-dirs', { run: kafkaLogDirs, description: "Kafka's kafka-log-dirs.sh (LogDirsCommand)" }],
    [
      'kafka-producer-perf-test',
      {
        run: kafkaProducerPerfTest,
        description: "Kafka's kafka-producer-perf-test.sh (ProducerPerformance)",
      },
    ],
    [
      'kafka-consumer-perf-test',
      {
        run: kafkaConsumerPerfTest,
        description: "Kafka's kafka-consumer-perf-test.sh (ConsumerPerformance)",
      },
    ],
    [
      'kafka-acls',
      { run: kafkaAcls, description: "Kafka's kafka-acls.sh (AclCommand), against no authorizer" },
    ],
  ],
);

/** The tool `name` names (`kafka-topics` or `kafka-topics.sh`), if it is one. */
export function kafkaTool(name: string | undefined): string | undefined {
  const bare = name?.replace(/\.sh$/, '');
  return bare !== undefined && KAFKA_TOOLS.has(bare) ? bare : undefined;
}

/** Runs one of Kafka's tools; resolves to its exit code. */
export async function runKafkaTool(
  name: string,
  args: readonly string[],
  ctx: CommandContext,
): Promise<number> {
  const tool = KAFKA_TOOLS.get(name)!;
  try {
    return await tool.run(args, ctx);
  } catch (error) {
    if (error instanceof ToolHelp) {
      ctx.out(error.text);
      return 0;
    }
    if (error instanceof UncaughtJavaException) {
      ctx.err(error.line);
      return 1;
    }
    if (
      error instanceof ToolUsageError ||
      error instanceof BrokerUnreachable ||
      error instanceof KafkaApiError
    ) {
      ctx.err(error.message);
      return 1;
    }
    throw error;
  }
}
