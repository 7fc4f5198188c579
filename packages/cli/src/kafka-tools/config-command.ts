// kafka-configs.sh, after Kafka 4.1.0's `kafka.admin.ConfigCommand` (and its ConfigCommandOptions): --describe
// and --alter of topics, brokers, broker-loggers and groups over DescribeConfigs and IncrementalAlterConfigs,
// with its checks, its messages and its layouts. Users, clients and ips are quotas and SCRAM credentials
// (DescribeClientQuotas and friends), which klog keeps none of and its protocol package speaks none of:
// those are refused in one line.
import { DescribeConfigs, IncrementalAlterConfigs, ListGroups, Metadata } from '@klog/protocol';
import type { CommandContext } from '../command-context.js';
import type { AdminClient } from '../topics/admin-client.js';
import { SOURCE_NAMES } from '../topics/describe-output.js';
import { readProperties } from './console-producer.js';
import { javaHashOrder, javaStringHash } from './java-order.js';
import { exceptionText, KafkaApiError, withBootstrap } from './kafka-errors.js';
import {
  checkInvalid,
  NO_SECURITY,
  optionTable,
  type ParsedOptions,
  parseToolArgs,
  ToolUsageError,
} from './tool-options.js';

const PURPOSE =
  'This tool helps to manipulate and describe entity config for a topic, client, user, broker, ip, client-metrics or group';

export const CONFIG_COMMAND_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  The Kafka servers to connect to.
--bootstrap-controller <bootstrap-controller>  The Kafka controllers to connect to.
  unsupported: klog serve has no controller listener; use --bootstrap-server
--command-config <command config property file>  Property file containing configs to be passed to Admin Client. This is used only with --bootstrap-server option for describing and altering broker configs.
  unsupported: ${NO_SECURITY}
--alter                                   Alter the configuration for the entity.
--describe                                List configs for the given entity.
--all                                     List all configs for the given entity, including static configs if available.
--entity-type <entity-type>...            Type of entity (topics/clients/users/brokers/broker-loggers/ips/client-metrics/groups)
--entity-name <entity-name>...            Name of entity (topic name/client id/user principal name/broker id/ip/client metrics/group id)
--entity-default                          Default entity name for clients/users/brokers/ips (applies to corresponding entity type)
--add-config <add-config>                 Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'.
--add-config-file <add-config-file>       Path to a properties file with configs to add. See add-config for a list of valid configurations.
--delete-config <delete-config>...        config keys to remove 'k1,k2'
--force                                   Suppress console prompts
--topic <topic>                           The topic's name.
--client <client>                         The client's ID.
--client-defaults                         The config defaults for all clients.
--user <user>                             The user's principal name.
--user-defaults                           The config defaults for all users.
--broker <broker>                         The broker's ID.
--broker-defaults                         The config defaults for all brokers.
--broker-logger <broker-logger>           The broker's ID for its logger config.
--ip-defaults                             The config defaults for all IPs.
--ip <ip>                                 The IP address.
--group <group>                           The group's ID.
--client-metrics <client-metrics>         The client metrics config resource name.
`);

/** ConfigCommandOptions' entityFlags and entityDefaultsFlags: the flag and the entity type it stands for. */
const ENTITY_FLAGS: readonly [string, string][] = [
  ['topic', 'topics'],
  ['client', 'clients'],
  ['user', 'users'],
  ['broker', 'brokers'],
  ['broker-logger', 'broker-loggers'],
  ['ip', 'ips'],
  ['client-metrics', 'client-metrics'],
  ['group', 'groups'],
];
const ENTITY_DEFAULT_FLAGS: readonly [string, string][] = [
  ['client-defaults', 'clients'],
  ['user-defaults', 'users'],
  ['broker-defaults', 'brokers'],
  ['ip-defaults', 'ips'],
];
/** ConfigType.ALL, then the types only a broker connection can name (BrokerSupportedConfigTypes). */
const SUPPORTED_TYPES = [
  'topics',
  'clients',
  'users',
  'brokers',
  'ips',
  'broker-loggers',
  'client-metrics',
  'groups',
];
const QUOTA_TYPES = ['users', 'clients', 'ips'];

/** ConfigResource.Type's ids, and the DescribeConfigs source a dynamic value of each has. */
const RESOURCES: Readonly<Record<string, { type: number; dynamicSource?: number }>> = {
  topics: { type: 2, dynamicSource: 1 },
  brokers: { type: 4, dynamicSource: 2 },
  'broker-loggers': { type: 8 },
  'client-metrics': { type: 16, dynamicSource: 7 },
  groups: { type: 32, dynamicSource: 8 },
};
/** DYNAMIC_DEFAULT_BROKER_CONFIG: the source of the brokers' cluster-wide defaults (entity name ""). */
const DYNAMIC_DEFAULT_BROKER_SOURCE = 3;

interface Entities {
  readonly types: string[];
  readonly names: string[];
}

/** ConfigCommandOptions.entityTypes and entityNames (a default entity's name is ""). */
function entitiesOf(opts: ParsedOptions): Entities {
  const flags = [...ENTITY_FLAGS, ...ENTITY_DEFAULT_FLAGS].filter(([flag]) => opts.has(flag));
  return {
    types: [...opts.values('entity-type'), ...flags.map(([, type]) => type)],
    names: [
      ...opts.values('entity-name'),
      ...(opts.has('entity-default') ? [''] : []),
      ...ENTITY_FLAGS.filter(([flag]) => opts.has(flag)).map(([flag]) => opts.value(flag)!),
      ...ENTITY_DEFAULT_FLAGS.filter(([flag]) => opts.has(flag)).map(() => ''),
    ],
  };
}

/** ConfigCommandOptions.checkArgs, with its messages (each an IllegalArgumentException: stderr, exit 1). */
export function checkConfigArgs(opts: ParsedOptions): Entities {
  if ((opts.has('alter') ? 1 : 0) + (opts.has('describe') ? 1 : 0) !== 1)
    throw new ToolUsageError('Command must include exactly one action: --describe, --alter');
  checkInvalid(opts, 'alter', ['describe']);
  checkInvalid(opts, 'describe', ['alter', 'add-config', 'delete-config']);
  const { types, names } = entitiesOf(opts);
  const repeated = types.filter((t, i) => types.indexOf(t) !== i);
  if (repeated.length > 0)
    throw new ToolUsageError(`Duplicate entity type(s) specified: ${repeated.join(',')}`);
  if (!opts.has('bootstrap-server'))
    throw new ToolUsageError('Either --bootstrap-server or --bootstrap-controller must be specified.');
  for (const t of types)
    if (!SUPPORTED_TYPES.includes(t))
      throw new ToolUsageError(
        `Invalid entity type ${t}, the entity type must be one of ${SUPPORTED_TYPES.join(', ')} with a --bootstrap-server or --bootstrap-controller argument`,
      );
  if (types.length === 0) throw new ToolUsageError('At least one entity type must be specified');
  if (types.length > 1 && !(types.length === 2 && types.includes('users') && types.includes('clients')))
    throw new ToolUsageError("Only 'users' and 'clients' entity types may be specified together");
  const flagged = [...ENTITY_FLAGS, ...ENTITY_DEFAULT_FLAGS].some(([flag]) => opts.has(flag));
  if ((opts.has('entity-name') || opts.has('entity-type') || opts.has('entity-default')) && flagged)
    throw new ToolUsageError(
      '--entity-{type,name,default} should not be used in conjunction with specific entity flags',
    );
  const hasName = names.some((n) => n !== '');
  const hasDefault = names.some((n) => n === '');
  if (hasName && (types.includes('brokers') || types.includes('broker-loggers')))
    for (const id of [opts.value('entity-name'), opts.value('broker'), opts.value('broker-logger')])
      if (id !== undefined && !/^[+-]?\d+$/.test(id))
        throw new ToolUsageError(
          `The entity name for ${types[0]} must be a valid integer broker id, but it is: ${id}`,
        );
  const quotas = types.some((t) => QUOTA_TYPES.includes(t) || t === 'brokers');
  if (opts.has('describe')) {
    if (!quotas && opts.has('entity-default'))
      throw new ToolUsageError(
        `--entity-default must not be specified with --describe of ${types.join(',')}`,
      );
    if (types.includes('broker-loggers') && !hasName)
      throw new ToolUsageError(`An entity name must be specified with --describe of ${types.join(',')}`);
  }
  if (opts.has('alter')) {
    if (quotas) {
      if (!hasName && !hasDefault)
        throw new ToolUsageError(
          'An entity-name or default entity must be specified with --alter of users, clients, brokers or ips',
        );
    } else if (!hasName)
      throw new ToolUsageError(`An entity name must be specified with --alter of ${types.join(',')}`);
    if (opts.has('add-config') && opts.has('add-config-file'))
      throw new ToolUsageError('Only one of --add-config or --add-config-file must be specified');
    if (!opts.has('add-config') && !opts.has('add-config-file') && !opts.has('delete-config'))
      throw new ToolUsageError(
        'At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter',
      );
  }
  return { types, names };
}

/**
 * ConfigCommand.parseConfigsToBeAdded: `--add-config-file`'s properties, then `--add-config`'s pairs (commas
 * inside square brackets do not split, and the brackets are dropped), each key checked.
 */
export function configsToBeAdded(opts: ParsedOptions): Map<string, string> {
  const props = new Map<string, string>();
  const file = opts.value('add-config-file');
  if (file !== undefined) for (const [k, v] of readProperties(file)) props.set(k, v);
  const text = opts.value('add-config');
  if (text !== undefined) {
    // A comma or `=` counts only where no `]` comes before the next `[` (or the end): outside brackets.
    const outside = '(?=[^\\]]*(?:\\[|$))';
    const pairs = text
      .split(new RegExp(`,${outside}`))
      .map((kv) => kv.split(new RegExp(`\\s*=\\s*${outside}`)));
    if (!pairs.every((p) => p.length === 2))
      throw new ToolUsageError(
        'Invalid entity config: all configs to be added must be in the format "key=val" or  "key=[val1,val2]" to group values which contain commas.',
      );
    for (const [k, v] of pairs) props.set(k!.trim(), v!.replace(/\[?\]?/g, '').trim());
  }
  for (const key of props.keys())
    if (!/^[a-zA-Z0-9._-]*$/.test(key))
      throw new ToolUsageError(`Invalid character found for config key: ${key}`);
  return props;
}

/** ConfigCommand.parseConfigsToBeDeleted: `--delete-config`'s values, split at commas, trimmed. */
function configsToBeDeleted(opts: ParsedOptions): string[] {
  return opts.values('delete-config').flatMap((v) => v.split(',').map((s) => s.trim()));
}

type Entry = {
  name: string;
  value: string | null;
  isSensitive: boolean;
  configSource: number;
  synonyms: { name: string; value: string | null; source: number }[];
};

/** ConfigCommand.getResourceConfig: the entity's configs, only the dynamic ones unless `all`, sorted by name. */
async function resourceConfig(
  client: AdminClient,
  type: string,
  name: string,
  includeSynonyms: boolean,
  all: boolean,
): Promise<Entry[]> {
  const resource = RESOURCES[type]!;
  if ((type === 'brokers' && name !== '') || (type === 'broker-loggers' && name !== ''))
    if (!/^[+-]?\d+$/.test(name))
      throw new ToolUsageError(
        `The entity name for ${type} must be a valid integer broker id, found: ${name}`,
      );
  const dynamic = type === 'brokers' && name === '' ? DYNAMIC_DEFAULT_BROKER_SOURCE : resource.dynamicSource;
  const res = await client.request(DescribeConfigs, {
    resources: [{ resourceType: resource.type, resourceName: name, configurationKeys: null }],
    includeSynonyms,
    includeDocumentation: false,
  });
  const r = res.results[0];
  if (r === undefined) throw new KafkaApiError(-1, 'the broker answered DescribeConfigs without the entity');
  if (r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage);
  return r.configs
    .filter((c) => all || dynamic === undefined || c.configSource === dynamic)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** ConfigCommand.describeResourceConfig: every named entity (or all of its type), with its header line. */
async function describeResourceConfig(
  client: AdminClient,
  type: string,
  name: string | undefined,
  all: boolean,
  out: (line: string) => void,
): Promise<void> {
  let entities: string[];
  if (name !== undefined) entities = [name];
  else if (type === 'topics') {
    const metadata = await client.request(Metadata, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    // Admin.listTopics().names() is a HashSet: Kafka prints the topics in its order.
    const names = metadata.topics.filter((t) => t.errorCode === 0 && t.name !== null).map((t) => t.name!);
    entities = javaHashOrder(names, javaStringHash);
  } else if (type === 'brokers' || type === 'broker-loggers') {
    const metadata = await client.request(Metadata, {
      topics: [],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    entities = [...metadata.brokers.map((b) => String(b.nodeId)), ''];
  } else if (type === 'groups') {
    const res = await client.request(ListGroups, { statesFilter: [], typesFilter: [] });
    if (res.errorCode !== 0) throw new KafkaApiError(res.errorCode, null);
    entities = res.groups.map((g) => g.groupId);
  } else
    throw new ToolUsageError(
      `klog's kafka-configs.sh describes ${type} by name only: it speaks no ListClientMetricsResources`,
    );
  for (const e of entities) {
    if (e === '') out(`Default configs for ${type} in the cluster are:`);
    else out(`${all ? 'All' : 'Dynamic'} configs for ${type.slice(0, -1)} ${e} are:`);
    for (const c of await resourceConfig(client, type, e, true, all)) {
      const synonyms = c.synonyms
        .map((s) => `${SOURCE_NAMES[s.source] ?? 'UNKNOWN'}:${s.name}=${s.value}`)
        .join(', ');
      out(`  ${c.name}=${c.value} sensitive=${c.isSensitive} synonyms={${synonyms}}`);
    }
  }
}

/** ConfigCommand.alterResourceConfig: deletes of configs set, then sets, as one IncrementalAlterConfigs. */
async function alterResourceConfig(
  client: AdminClient,
  type: string,
  name: string,
  toDelete: readonly string[],
  toAdd: ReadonlyMap<string, string>,
): Promise<void> {
  const old = new Set((await resourceConfig(client, type, name, false, false)).map((c) => c.name));
  const invalid = toDelete.filter((k) => !old.has(k));
  // An InvalidConfigurationException: its message alone, exit 1.
  if (invalid.length > 0) throw new ToolUsageError(`Invalid config(s): ${invalid.join(',')}`);
  const res = await client.request(IncrementalAlterConfigs, {
    resources: [
      {
        resourceType: RESOURCES[type]!.type,
        resourceName: name,
        configs: [
          // AlterConfigOp.OpType: SET 0, DELETE 1.
          ...toDelete.map((k) => ({ name: k, configOperation: 1, value: '' })),
          ...[...toAdd].map(([k, v]) => ({ name: k, configOperation: 0, value: v })),
        ],
      },
    ],
    validateOnly: false,
  });
  const r = res.responses[0];
  if (r !== undefined && r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage);
}

export async function kafkaConfigs(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs('kafka-configs.sh', PURPOSE, CONFIG_COMMAND_OPTIONS, args);
  const { types, names } = checkConfigArgs(opts);
  const type = types[0]!;
  if (QUOTA_TYPES.includes(type))
    throw new ToolUsageError(
      `klog's kafka-configs.sh does not support --entity-type ${type}: those are quotas and SCRAM credentials, which klog keeps none of (no DescribeClientQuotas)`,
    );
  if (opts.has('alter') && types.length !== names.length)
    throw new ToolUsageError('An entity name must be specified for every entity type');
  const toAdd = opts.has('alter') ? configsToBeAdded(opts) : new Map<string, string>();
  try {
    await withBootstrap(opts.value('bootstrap-server'), async (client) => {
      if (opts.has('describe')) {
        await describeResourceConfig(client, type, names[0], opts.has('all'), ctx.out);
        return;
      }
      await alterResourceConfig(client, type, names[0]!, configsToBeDeleted(opts), toAdd);
      if (names[0] !== '') ctx.out(`Completed updating config for ${type.slice(0, -1)} ${names[0]}.`);
      else ctx.out(`Completed updating default config for ${type} in the cluster.`);
    });
  } catch (error) {
    if (!(error instanceof KafkaApiError)) throw error;
    // ConfigCommand.main's catch-all: the command line, then the stack trace, whose first line is the
    // ExecutionException and its cause.
    ctx.err(`Error while executing config command with args '${args.join(' ')}'`);
    ctx.err(`java.util.concurrent.ExecutionException: ${exceptionText(error)}`);
    return 1;
  }
  return 0;
}
