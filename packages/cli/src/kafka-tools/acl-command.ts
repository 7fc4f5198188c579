// kafka-acls.sh, after Kafka 4.1.0's `org.apache.kafka.tools.AclCommand`, against a broker without an
// authorizer — which klog is: it authorizes nothing. Such a Kafka broker answers DescribeAcls, CreateAcls and
// DeleteAcls with SECURITY_DISABLED (54), "No Authorizer is configured.", and AclCommand's main prints
// `Error while executing ACL command: <the ExecutionException's message>` on stdout and exits 1. klog's broker
// does not serve those APIs at all (ApiVersions lists none of them), so the tool gives that answer for it;
// a broker that does serve them has ACLs klog's protocol package cannot read, and the tool says so.
import type { CommandContext } from '../command-context.js';
import { exceptionClass, withBootstrap } from './kafka-errors.js';
import { checkInvalid, NO_SECURITY, optionTable, parseToolArgs, ToolUsageError } from './tool-options.js';

const PURPOSE = 'This tool helps to manage acls on kafka.';
const DESCRIBE_ACLS = 29;
const CREATE_ACLS = 30;
const DELETE_ACLS = 31;
const SECURITY_DISABLED = 54;

export const ACL_COMMAND_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  A list of host/port pairs to use for establishing the connection to the Kafka cluster. This config is required for acl management using admin client API.
--bootstrap-controller <bootstrap-controller>  A list of host/port pairs of the controllers.
  unsupported: klog serve has no controller listener; use --bootstrap-server
--command-config [command-config]         A property file containing configs to be passed to Admin Client.
  unsupported: ${NO_SECURITY}
--topic <topic>                           topic to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all topics.
--cluster                                 Add/Remove cluster ACLs.
--group <group>                           Consumer Group to which the ACLs should be added or removed. A value of '*' indicates the ACLs should apply to all groups.
--transactional-id <transactional-id>     The transactionalId to which ACLs should be added or removed.
--idempotent                              Enable idempotence for the producer (with --producer).
--delegation-token <delegation-token>     Delegation token to which ACLs should be added or removed.
--resource-pattern-type <ANY|MATCH|LITERAL|PREFIXED>  The type of the resource pattern or pattern filter. (default: LITERAL)
--add                                     Indicates you are trying to add ACLs.
--remove                                  Indicates you are trying to remove ACLs.
--list                                    List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to specify a resource.
--operation <operation>...                Operation that is being allowed or denied. (default: All)
--allow-principal <allow-principal>...    principal is in principalType:name format.
--deny-principal <deny-principal>...      principal is in principalType:name format.
--principal [principal]...                List ACLs for the specified principal.
--allow-host <allow-host>...              Host from which principals listed in --allow-principal will have access.
--deny-host <deny-host>...                Host from which principals listed in --deny-principal will be denied access.
--producer                                Convenience option to add/remove ACLs for producer role.
--consumer                                Convenience option to add/remove ACLs for consumer role.
--force                                   Assume Yes to all queries and do not prompt.
--user-principal <user-principal>         Specifies a user principal as a resource in relation with the operation.
`);

const RESOURCES = ['topic', 'cluster', 'group', 'transactional-id', 'delegation-token', 'user-principal'];

/** AclCommandOptions.checkArgs, then the checks addAcls makes before it asks the broker anything. */
function checkArgs(opts: ReturnType<typeof parseToolArgs>): 'add' | 'remove' | 'list' {
  if (!opts.has('bootstrap-server'))
    throw new ToolUsageError('One of --bootstrap-server or --bootstrap-controller must be specified');
  const actions = (['add', 'remove', 'list'] as const).filter((a) => opts.has(a));
  if (actions.length !== 1)
    throw new ToolUsageError('Command must include exactly one action: --list, --add, --remove. ');
  checkInvalid(opts, 'list', [
    'producer',
    'consumer',
    'allow-host',
    'allow-principal',
    'deny-host',
    'deny-principal',
  ]);
  checkInvalid(opts, 'producer', ['operation', 'deny-principal', 'deny-host']);
  checkInvalid(opts, 'consumer', ['operation', 'deny-principal', 'deny-host']);
  if (opts.has('principal') && !opts.has('list'))
    throw new ToolUsageError('The --principal option is only available if --list is set');
  if (opts.has('producer') && !opts.has('topic'))
    throw new ToolUsageError('With --producer you must specify a --topic');
  if (opts.has('idempotent') && !opts.has('producer'))
    throw new ToolUsageError('The --idempotent option is only available if --producer is set');
  if (
    opts.has('consumer') &&
    (!opts.has('topic') ||
      !opts.has('group') ||
      (!opts.has('producer') && (opts.has('cluster') || opts.has('transactional-id'))))
  )
    throw new ToolUsageError(
      'With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.',
    );
  const action = actions[0]!;
  if (action !== 'list' && !RESOURCES.some((r) => opts.has(r)))
    throw new ToolUsageError(
      'You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>',
    );
  if (action === 'add' && !opts.has('allow-principal') && !opts.has('deny-principal'))
    throw new ToolUsageError(
      'You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.',
    );
  return action;
}

export async function kafkaAcls(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs('kafka-acls.sh', PURPOSE, ACL_COMMAND_OPTIONS, args);
  const action = checkArgs(opts);
  return withBootstrap(opts.value('bootstrap-server'), async (client) => {
    const api = action === 'add' ? CREATE_ACLS : action === 'remove' ? DELETE_ACLS : DESCRIBE_ACLS;
    if (client.serves(DESCRIBE_ACLS) || client.serves(api))
      throw new ToolUsageError(
        `klog's kafka-acls.sh cannot ${action} ACLs on a broker that keeps them: klog's protocol package has no codec for DescribeAcls, CreateAcls or DeleteAcls`,
      );
    // What Kafka's Admin client raises for SECURITY_DISABLED, as the message of the ExecutionException
    // AclCommand catches. (Kafka prints the stack trace after it; a JVM's stack, klog has none to print.)
    ctx.out(
      `Error while executing ACL command: ${exceptionClass(SECURITY_DISABLED)}: No Authorizer is configured.`,
    );
    return 1;
  });
}
