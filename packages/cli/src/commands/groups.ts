import { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { bootstrapServerOption } from '../flags.js';
import {
  executeConsumerGroupCommand,
  parseConsumerGroupCommand,
} from '../kafka-tools/consumer-group-command.js';
import { KafkaApiError } from '../kafka-tools/kafka-errors.js';
import { ToolUsageError } from '../kafka-tools/tool-options.js';

const HELP_AFTER = `
Talks to a running broker (klog serve, which coordinates every group itself)
over the Kafka protocol: klog kafka-consumer-groups (kafka-consumer-groups.sh)
under klog's names, printing what it prints. List the groups with their states,
describe one (each partition's committed offset, log end offset, lag, and the
member that owns it), or delete an empty one. A consumer-protocol group
(KIP-848) is described with ConsumerGroupDescribe: --state --verbose shows its
assignor and group epoch, --members --verbose each member's epoch and its
current and target assignments.

Examples:
  klog groups list                       (kafka-consumer-groups.sh --list --state)
  klog groups describe billing           (--describe --group billing)
  klog groups delete billing --bootstrap-server 127.0.0.1:9092`;

/**
 * Runs kafka-consumer-groups.sh's code (kafka-tools/consumer-group-command.ts) for a `klog groups`
 * subcommand, its errors said klog's way: a bad command line exits 2, a broker's refusal exits 1.
 */
async function groupCommand(what: string, ctx: CommandContext, args: string[]): Promise<void> {
  let errors: readonly string[];
  try {
    errors = await executeConsumerGroupCommand(parseConsumerGroupCommand(args), ctx);
  } catch (error) {
    if (error instanceof KafkaApiError) throw new Error(`${what}: ${error.codeName}: ${error.message}`);
    if (error instanceof ToolUsageError) throw new UsageError(`${what}: ${error.message}`);
    throw error;
  }
  if (errors.length > 0) throw new Error(`${what}: ${errors[errors.length - 1]}`);
}

export function groupsCommand(ctx: CommandContext): Command {
  const groups = new Command('groups')
    .description("list, describe and delete a broker's consumer groups")
    .addHelpText('after', HELP_AFTER);
  groups
    .command('list')
    .description('list the consumer groups and their states')
    .addOption(bootstrapServerOption())
    .action(async (raw: { bootstrapServer: string }) => {
      await groupCommand('groups list', ctx, [
        '--list',
        '--state',
        '--bootstrap-server',
        raw.bootstrapServer,
      ]);
    });
  groups
    .command('describe')
    .description("a group's partitions: committed offset, log end offset, lag, and the member that owns each")
    .argument('<group>', 'the group id')
    .option('--members', "the group's members instead (--verbose: with their partitions)")
    .option('--state', "the group's state and coordinator instead")
    .option(
      '--verbose',
      'with --members: each member’s epoch, current and target assignment; with --state: the group and target assignment epochs',
    )
    .addOption(bootstrapServerOption())
    .action(
      async (
        group: string,
        raw: { members?: boolean; state?: boolean; verbose?: boolean; bootstrapServer: string },
      ) => {
        await groupCommand('groups describe', ctx, [
          '--describe',
          '--group',
          group,
          ...(raw.members === true ? ['--members'] : []),
          ...(raw.state === true ? ['--state'] : []),
          ...(raw.verbose === true ? ['--verbose'] : []),
          '--bootstrap-server',
          raw.bootstrapServer,
        ]);
      },
    );
  groups
    .command('delete')
    .description('delete an empty group and its committed offsets')
    .argument('<group>', 'the group id')
    .addOption(bootstrapServerOption())
    .action(async (group: string, raw: { bootstrapServer: string }) => {
      await groupCommand('groups delete', ctx, [
        '--delete',
        '--group',
        group,
        '--bootstrap-server',
        raw.bootstrapServer,
      ]);
    });
  return groups;
}
