// kafka-consumer-groups.sh, after Kafka's `org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`
// (and ConsumerGroupCommandOptions): --list, --describe (--offsets, --members, --state, --verbose),
// --reset-offsets, --delete, with ConsumerGroupService's printf layouts. `klog groups` runs this code.
import { readFileSync } from 'node:fs';
import {
  ConsumerGroupDescribe,
  type ConsumerGroupDescribeResponse,
  consumerAssignmentPartitions,
  DeleteGroups,
  DescribeGroups,
  FindCoordinator,
  ListGroups,
  OffsetDelete,
} from '@klog/protocol';
import type { CommandContext } from '../command-context.js';
import type { AdminClient } from '../topics/admin-client.js';
import { commitOffsets, committedOffsets, fromTpKey, listOffset, partitionCount, tpKey } from './clients.js';
import { exceptionText, KafkaApiError, withBootstrap } from './kafka-errors.js';
import {
  NO_SECURITY,
  optionTable,
  type ParsedOptions,
  parseToolArgs,
  ToolUsageError,
} from './tool-options.js';

export const CONSUMER_GROUP_OPTIONS = optionTable(`
--bootstrap-server <server to connect to>  REQUIRED: The server(s) to connect to.
--group <consumer group>...               The consumer group we wish to act on.
--topic <topic>...                        The topic whose consumer group information should be deleted or topic whose should be included in the reset offset process.
--all-groups                              Apply to all consumer groups.
--all-topics                              Consider all topics assigned to a group in the \`reset-offsets\` process.
--list                                    List all consumer groups.
--describe                                Describe consumer group and list offset lag (number of messages not yet processed) related to given group.
--delete                                  Pass in groups to delete topic partition offsets and ownership information over the entire consumer group.
--timeout <timeout (ms)>                  The timeout that can be set for some use cases.
--command-config <command config property file>  Property file containing configs to be passed to Admin Client and Consumer.
  unsupported: ${NO_SECURITY}
--reset-offsets                           Reset offsets of consumer group.
--dry-run                                 Only show results without executing changes on Consumer Groups.
--execute                                 Execute operation.
--export                                  Export operation execution to a CSV file.
--to-offset <offset>                      Reset offsets to a specific offset.
--from-file <path to CSV file>            Reset offsets to values defined in CSV file.
--to-datetime <datetime>                  Reset offsets to offset from datetime.
--by-duration <duration>                  Reset offsets to offset by duration from current timestamp.
--to-earliest                             Reset offsets to earliest offset.
--to-latest                               Reset offsets to latest offset.
--to-current                              Reset offsets to current offset.
--shift-by <number-of-offsets>            Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.
--members                                 Describe members of the group.
--verbose                                 Provide additional information, if any, when describing the group.
--offsets                                 Describe the group and list all topic partitions in the group along with their offset lag.
--state [state]                           When specified with --describe, includes the state of the group. When specified with --list, it displays the state of all groups.
--type [type]                             When specified with --list, it displays the types of all the groups. It can also be used to list groups with specific types.
--delete-offsets                          Delete offsets of consumer group.
`);

const ACTIONS = ['list', 'describe', 'delete', 'reset-offsets', 'delete-offsets'] as const;
const SCENARIOS = [
  'to-offset',
  'to-earliest',
  'to-latest',
  'to-current',
  'shift-by',
  'to-datetime',
  'by-duration',
  'from-file',
] as const;

/** Java's `%-Ns`: left-aligned in N columns. */
const pad = (s: string, n: number) => s.padEnd(n);

/** ConsumerGroupCommand.printError: on stdout, after an empty line. */
const errorLine = (ctx: Pick<CommandContext, 'out'>, msg: string) => {
  ctx.out('');
  ctx.out(`Error: ${msg}`);
  reported.push(msg);
};

/** What printError said during the current command (Kafka's tool still exits 0 after it; `klog groups` exits 1). */
let reported: string[] = [];

/** A partition as the tools list it: topic, partition. */
type TopicPartition = readonly [string, number];

/** One member as Admin's `MemberDescription` has it; the epoch and target only from ConsumerGroupDescribe. */
interface MemberDescription {
  readonly memberId: string;
  readonly groupInstanceId: string;
  readonly host: string;
  readonly clientId: string;
  readonly assignment: readonly TopicPartition[];
  readonly targetAssignment: readonly TopicPartition[];
  readonly memberEpoch: number | undefined;
  /** ConsumerGroupDescribe v1's MemberType: false a classic member, true a consumer member. */
  readonly upgraded: boolean | undefined;
}

/**
 * Admin's `ConsumerGroupDescription`: a consumer group (KIP-848) from ConsumerGroupDescribe, with its epochs,
 * or a classic one from DescribeGroups, without them.
 */
type GroupDescription =
  | {
      readonly type: 'Consumer';
      readonly state: string;
      readonly assignor: string;
      readonly groupEpoch: number;
      readonly targetAssignmentEpoch: number;
      readonly members: readonly MemberDescription[];
    }
  | {
      readonly type: 'Classic';
      readonly state: string;
      readonly assignor: string;
      readonly members: readonly MemberDescription[];
    };

const GROUP_ID_NOT_FOUND = 69;
const UNSUPPORTED_VERSION = 35;

/**
 * Admin.describeConsumerGroups (Kafka's DescribeConsumerGroupsHandler): ConsumerGroupDescribe first; a group it
 * does not know as a consumer group (GROUP_ID_NOT_FOUND), or a broker without the API, is asked again with
 * DescribeGroups, the classic API.
 */
async function describeGroup(client: AdminClient, group: string): Promise<GroupDescription> {
  if (client.serves(ConsumerGroupDescribe.apiKey)) {
    const res = await client.request(ConsumerGroupDescribe, {
      groupIds: [group],
      includeAuthorizedOperations: false,
    });
    const g = res.groups[0];
    if (g === undefined)
      throw new KafkaApiError(-1, 'the broker answered ConsumerGroupDescribe without the group');
    if (g.errorCode === 0) {
      const partitions = (a: ConsumerGroupDescribeResponse.Assignment): TopicPartition[] =>
        a.topicPartitions.flatMap((t) => t.partitions.map((p) => [t.topicName, p] as const));
      return {
        type: 'Consumer',
        state: g.groupState,
        assignor: g.assignorName,
        groupEpoch: g.groupEpoch,
        targetAssignmentEpoch: g.assignmentEpoch,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.instanceId ?? '',
          host: m.clientHost,
          clientId: m.clientId,
          assignment: partitions(m.assignment),
          targetAssignment: partitions(m.targetAssignment),
          memberEpoch: m.memberEpoch,
          upgraded: m.memberType === -1 ? undefined : m.memberType === 1,
        })),
      };
    }
    if (g.errorCode !== GROUP_ID_NOT_FOUND && g.errorCode !== UNSUPPORTED_VERSION)
      throw new KafkaApiError(g.errorCode, g.errorMessage);
  }
  const res = await client.request(DescribeGroups, { groups: [group], includeAuthorizedOperations: false });
  const g = res.groups[0];
  if (g === undefined) throw new KafkaApiError(-1, 'the broker answered DescribeGroups without the group');
  if (g.errorCode !== 0 && g.errorCode !== GROUP_ID_NOT_FOUND) throw new KafkaApiError(g.errorCode, null);
  const members = g.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? '',
    host: m.clientHost,
    clientId: m.clientId,
    assignment: (consumerAssignmentPartitions(m.memberAssignment) ?? []).flatMap((a) =>
      a.partitions.map((p) => [a.topic, p] as const),
    ),
    targetAssignment: [],
    memberEpoch: undefined,
    upgraded: undefined,
  }));
  return {
    type: 'Classic',
    state: g.errorCode === GROUP_ID_NOT_FOUND ? 'Dead' : g.groupState,
    assignor: g.protocolData,
    members,
  };
}

/** ConsumerGroupService.getAssignmentString: `topic:0,1;topic2:3`, topics sorted, partitions sorted. */
export function assignmentString(assignment: readonly TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const [t, p] of assignment) byTopic.set(t, [...(byTopic.get(t) ?? []), p]);
  return [...byTopic]
    .map(([t, ps]) => `${t}:${[...ps].sort((a, b) => a - b).join(',')}`)
    .sort()
    .join(';');
}

async function logEndOffsets(client: AdminClient, keys: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const k of keys) {
    const [t, p] = fromTpKey(k);
    try {
      out.set(k, await listOffset(client, t, p, -1));
    } catch (error) {
      if (!(error instanceof KafkaApiError)) throw error;
    }
  }
  return out;
}

/** The group printed, or false when shouldPrintMemberState says there is nothing to show. */
function shouldPrint(ctx: CommandContext, group: string, state: string, rows: number): boolean {
  if (state === 'Dead') {
    errorLine(ctx, `Consumer group '${group}' does not exist.`);
    return false;
  }
  if (state === 'Empty') ctx.err(`\nConsumer group '${group}' has no active members.`);
  // A consumer group (KIP-848) rebalances in Assigning and Reconciling.
  if (['PreparingRebalance', 'CompletingRebalance', 'Assigning', 'Reconciling'].includes(state))
    ctx.err(`\nWarning: Consumer group '${group}' is rebalancing.`);
  return rows > 0;
}

async function describeOffsets(client: AdminClient, ctx: CommandContext, group: string): Promise<void> {
  const g = await describeGroup(client, group);
  const committed = await committedOffsets(client, group);
  const owned = new Set<string>();
  // ConsumerGroupService.collectGroupOffsets: the members' partitions first (the member with the most
  // first), then committed partitions no member owns.
  const rows: string[][] = [];
  const members = [...g.members].sort((a, b) => b.assignment.length - a.assignment.length);
  const ends = await logEndOffsets(client, [
    ...new Set([...committed.keys(), ...members.flatMap((m) => m.assignment.map(([t, p]) => tpKey(t, p)))]),
  ]);
  const row = (k: string, m: { memberId: string; host: string; clientId: string } | undefined) => {
    const [t, p] = fromTpKey(k);
    const c = committed.get(k);
    const e = ends.get(k);
    return [
      group,
      t,
      String(p),
      c === undefined ? '-' : String(c),
      e === undefined ? '-' : String(e),
      c === undefined || e === undefined ? '-' : String(e - c),
      m?.memberId ?? '-',
      m?.host ?? '-',
      m?.clientId ?? '-',
    ];
  };
  for (const m of members) {
    const sorted = [...m.assignment].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    for (const [t, p] of sorted) {
      owned.add(tpKey(t, p));
      rows.push(row(tpKey(t, p), m));
    }
  }
  const rest = [...committed.keys()]
    .filter((k) => !owned.has(k))
    .map(fromTpKey)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  for (const [t, p] of rest) rows.push(row(tpKey(t, p), undefined));
  if (!shouldPrint(ctx, group, g.state, rows.length)) return;
  // printOffsetFormat: group, topic, consumer id and host at least 15 wide; each line led by a newline.
  const w = (i: number) => Math.max(15, ...rows.map((r) => r[i]!.length));
  const line = (r: readonly string[]) =>
    [
      pad(r[0]!, w(0)),
      pad(r[1]!, w(1)),
      pad(r[2]!, 10),
      pad(r[3]!, 15),
      pad(r[4]!, 15),
      pad(r[5]!, 15),
      pad(r[6]!, w(6)),
      pad(r[7]!, w(7)),
      r[8]!,
    ].join(' ');
  ctx.out('');
  ctx.out(
    line([
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'CONSUMER-ID',
      'HOST',
      'CLIENT-ID',
    ]),
  );
  for (const r of rows) ctx.out(line(r));
}

/**
 * ConsumerGroupService.printMembers (Kafka 4.1): the member columns, each line ending in a space; with
 * --verbose the epochs and assignments after them (`-` where DescribeGroups has none), and UPGRADED only in
 * a group holding both classic and consumer members.
 */
async function describeMembers(
  client: AdminClient,
  ctx: CommandContext,
  group: string,
  verbose: boolean,
): Promise<void> {
  const g = await describeGroup(client, group);
  // The widths come from the rows only when shouldPrintMemberState says there are some; the header is
  // printed either way.
  const ms = shouldPrint(ctx, group, g.state, g.members.length) ? g.members : [];
  const targetEpoch = g.type === 'Consumer' ? String(g.targetAssignmentEpoch) : '-';
  const current = (m: MemberDescription) =>
    m.assignment.length === 0 ? '-' : assignmentString(m.assignment);
  const target = (m: MemberDescription) =>
    m.targetAssignment.length === 0 ? '-' : assignmentString(m.targetAssignment);
  const w = (f: (m: MemberDescription) => string, min: number) =>
    Math.max(min, ...ms.map((m) => f(m).length));
  const withInstance = ms.some((m) => m.groupInstanceId !== '');
  const upgraded = new Set(ms.map((m) => m.upgraded).filter((u) => u !== undefined));
  const withUpgrade = upgraded.size === 2;
  const widths = {
    group: w(() => group, 15),
    id: w((m) => m.memberId, 15),
    instance: w((m) => m.groupInstanceId, 17),
    host: w((m) => m.host, 15),
    client: w((m) => m.clientId, 15),
    current: w(current, 20),
    target: w(target, 20),
  };
  const cols = (c: readonly [string, string, string, string, string, string]) =>
    [
      pad(c[0], widths.group),
      pad(c[1], widths.id),
      ...(withInstance ? [pad(c[2], widths.instance)] : []),
      pad(c[3], widths.host),
      pad(c[4], widths.client),
      pad(c[5], 15),
    ].join(' ') + ' ';
  const epochs = (c: readonly [string, string, string, string, string]) =>
    [
      pad(c[0], 15),
      pad(c[1], widths.current),
      pad(c[2], 15),
      pad(c[3], widths.target),
      ...(withUpgrade ? [c[4]] : []),
    ].join(' ');
  ctx.out('');
  ctx.out(
    cols(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']) +
      (verbose
        ? epochs(['CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', 'UPGRADED'])
        : ''),
  );
  for (const m of ms)
    ctx.out(
      cols([group, m.memberId, m.groupInstanceId, m.host, m.clientId, String(m.assignment.length)]) +
        (verbose
          ? epochs([
              m.memberEpoch === undefined ? '-' : String(m.memberEpoch),
              current(m),
              targetEpoch,
              target(m),
              m.upgraded === undefined ? '-' : String(m.upgraded),
            ])
          : ''),
    );
}

/**
 * ConsumerGroupService.printStates (Kafka 4.1): --verbose adds GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH, which
 * only ConsumerGroupDescribe has (`-` for a classic group).
 */
async function describeState(
  client: AdminClient,
  ctx: CommandContext,
  group: string,
  verbose: boolean,
): Promise<void> {
  const g = await describeGroup(client, group);
  if (!shouldPrint(ctx, group, g.state, 1)) return;
  const batched = client.versionOf(FindCoordinator as never) >= 4;
  const found = await client.request(FindCoordinator, {
    key: batched ? '' : group,
    keyType: 0,
    coordinatorKeys: batched ? [group] : [],
  });
  const c = batched ? found.coordinators[0] : found;
  const coordinator = `${c?.host}:${c?.port}  (${c?.nodeId})`;
  const groupWidth = Math.max(15, group.length);
  const coordinatorWidth = Math.max(25, coordinator.length);
  const line = (cells: readonly string[]) =>
    verbose
      ? `${pad(cells[0]!, groupWidth)} ${pad(cells[1]!, coordinatorWidth)} ${pad(cells[2]!, 20)} ${pad(cells[3]!, 20)} ${pad(cells[4]!, 15)} ${pad(cells[5]!, 25)} ${cells[6]}`
      : `${pad(cells[0]!, groupWidth)} ${pad(cells[1]!, coordinatorWidth)} ${pad(cells[2]!, 20)} ${pad(cells[3]!, 20)} ${cells[6]}`;
  ctx.out('');
  ctx.out(
    line([
      'GROUP',
      'COORDINATOR (ID)',
      'ASSIGNMENT-STRATEGY',
      'STATE',
      'GROUP-EPOCH',
      'TARGET-ASSIGNMENT-EPOCH',
      '#MEMBERS',
    ]),
  );
  ctx.out(
    line([
      group,
      coordinator,
      g.assignor === '' ? '-' : g.assignor,
      g.state,
      g.type === 'Consumer' ? String(g.groupEpoch) : '-',
      g.type === 'Consumer' ? String(g.targetAssignmentEpoch) : '-',
      String(g.members.length),
    ]),
  );
}

/** GroupType.parse, then toString: a type ListGroups names, as the tool prints it. */
const GROUP_TYPES = ['Classic', 'Consumer', 'Share', 'Streams'] as const;
const groupTypeName = (t: string) =>
  GROUP_TYPES.find((x) => x.toLowerCase() === t.toLowerCase()) ?? 'Unknown';

/**
 * ConsumerGroupService.listGroups: the ids alone, or with --type and/or --state a table GROUP [TYPE] [STATE];
 * only groups of the consumer protocol type (or none), of the types asked (Classic and Consumer by default:
 * ListGroupsOptions.forConsumerGroups).
 */
async function listGroups(client: AdminClient, ctx: CommandContext, opts: ParsedOptions): Promise<void> {
  const includeType = opts.has('type');
  const includeState = opts.has('state');
  const csv = (name: string) =>
    (opts.value(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  // ConsumerGroupCommand.consumerGroupTypesFromString: only classic and consumer.
  const types = csv('type');
  const invalid = types.filter((t) => !['classic', 'consumer'].includes(t.toLowerCase()));
  if (invalid.length > 0)
    throw new KafkaApiError(
      -1,
      `Invalid types list '${opts.value('type')}'. Valid types are: Classic, Consumer`,
    );
  const res = await client.request(ListGroups, {
    statesFilter: [],
    typesFilter: includeType && types.length > 0 ? types.map(groupTypeName) : ['Classic', 'Consumer'],
  });
  if (res.errorCode !== 0) throw new KafkaApiError(res.errorCode, null);
  const groups = res.groups.filter((g) => g.protocolType === 'consumer' || g.protocolType === '');
  if (!includeType && !includeState) {
    for (const g of groups) ctx.out(g.groupId);
    return;
  }
  const wanted = csv('state').map((s) => s.toLowerCase());
  const shown = groups.filter((g) => wanted.length === 0 || wanted.includes(g.groupState.toLowerCase()));
  const width = Math.max(15, ...shown.map((g) => g.groupId.length)) + 10;
  const line = (id: string, type: string, state: string) =>
    [pad(id, width), ...(includeType ? [pad(type, 20)] : []), ...(includeState ? [pad(state, 20)] : [])].join(
      ' ',
    );
  ctx.out(line('GROUP', 'TYPE', 'STATE'));
  for (const g of shown) ctx.out(line(g.groupId, groupTypeName(g.groupType), g.groupState));
}

async function deleteGroups(
  client: AdminClient,
  ctx: CommandContext,
  groups: readonly string[],
): Promise<void> {
  const res = await client.request(DeleteGroups, { groupsNames: [...groups] });
  const failed = res.results.filter((r) => r.errorCode !== 0);
  const ok = res.results.filter((r) => r.errorCode === 0).map((r) => r.groupId);
  if (failed.length === 0) {
    ctx.out(`Deletion of requested consumer groups ('${ok.join(', ')}') was successful.`);
    return;
  }
  errorLine(ctx, 'Deletion of some consumer groups failed:');
  for (const r of failed) {
    // ConsumerGroupCommand prints the exception itself (`Throwable.toString()`, its class and message);
    // klog's own error line keeps the code's name.
    const e = new KafkaApiError(r.errorCode, null);
    ctx.out(`* Group '${r.groupId}' could not be deleted due to: ${exceptionText(e)}`);
    reported.push(`Group '${r.groupId}' could not be deleted due to: ${e.codeName}: ${e.message}`);
  }
  if (ok.length > 0) ctx.out(`\nThese consumer groups were deleted successfully: '${ok.join("', '")}'`);
}

/** `--topic t` or `--topic t:0,2`: the partitions it names (every one of the topic's without a list). */
async function partitionsToReset(client: AdminClient, group: string, opts: ParsedOptions): Promise<string[]> {
  if (opts.has('all-topics')) return [...(await committedOffsets(client, group)).keys()];
  const out: string[] = [];
  for (const spec of opts.values('topic')) {
    const colon = spec.indexOf(':');
    const topic = colon < 0 ? spec : spec.slice(0, colon);
    const parts =
      colon < 0
        ? Array.from({ length: await partitionCount(client, topic, false) }, (_, i) => i)
        : spec
            .slice(colon + 1)
            .split(',')
            .map((p) => Number(p.trim()));
    for (const p of parts) out.push(tpKey(topic, p));
  }
  return out;
}

/**
 * Kafka's `Utils.getDateTime`: `yyyy-MM-ddTHH:mm:ss.SSS`, then `Z`, `±hh:mm` or `±hh` (UTC when the time has
 * no zone), read strictly as SimpleDateFormat with lenient off does; the ParseException's text otherwise.
 */
export function parseDateTime(text: string): number | { readonly error: string } {
  // Java's split("T") drops trailing empty parts, so "2024-01-01T" has no time part either.
  if (text.split('T').filter((part, i, all) => part !== '' || all.slice(i).some((x) => x !== '')).length < 2)
    return {
      error:
        "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format",
    };
  const time = text.slice(text.indexOf('T') + 1);
  const full = /[+\-Z]/.test(time) ? text : `${text}Z`;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|([+-])(\d{2})(?::?(\d{2}))?)$/.exec(
    full,
  );
  const bad = { error: `java.text.ParseException: Unparseable date: "${full}"` };
  if (m === null) return bad;
  const [y, mo, d, h, mi, sec, ms] = m.slice(1, 8).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = Date.UTC(y, mo - 1, d, h, mi, sec, ms);
  const check = new Date(at);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || sec > 59) return bad;
  const zone = m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0));
  return at - zone * 60_000;
}

/**
 * java.time.Duration.parse (`PnDTnHnMn.nS`, signs allowed on the whole and on each part), in milliseconds;
 * DateTimeParseException's text otherwise.
 */
export function parseDuration(text: string): number | { readonly error: string } {
  const m =
    /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i.exec(
      text,
    );
  if (m === null || (m[2] ?? m[3]) === undefined || m[3]?.toUpperCase() === 'T')
    return { error: 'Text cannot be parsed to a Duration' };
  const n = (s: string | undefined) => Number(s ?? 0);
  const seconds = n(m[6]);
  const fraction = m[7] === undefined || m[7] === '' ? 0 : Number(`0.${m[7]}`) * 1000;
  const ms =
    n(m[2]) * 86_400_000 +
    n(m[4]) * 3_600_000 +
    n(m[5]) * 60_000 +
    seconds * 1000 +
    (m[6]?.startsWith('-') ? -fraction : fraction);
  return m[1] === '-' ? -ms : ms;
}

/**
 * GroupOffsetsResetter.parseResetPlan: `topic,partition,offset` lines for the one group named, or
 * `group,topic,partition,offset` lines (what --export writes for several groups); group → tpKey → offset.
 */
export function parseResetPlan(
  csv: string,
  groups: readonly string[],
): Map<string, Map<string, number>> | { readonly error: string } {
  const lines = csv.split('\n');
  // Java's split drops the trailing empty lines.
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const fields = (line: string) => line.replace(/\r$/, '').split(',');
  const isInt = (s: string | undefined) => s !== undefined && /^-?\d+$/.test(s.trim());
  const noGroup = lines.length > 0 && fields(lines[0]!).length === 3 && isInt(fields(lines[0]!)[1]);
  const plan = new Map<string, Map<string, number>>();
  for (const line of lines) {
    const f = fields(line);
    const [group, topic, partition, offset] = groups.length === 1 && noGroup ? [groups[0]!, ...f] : f;
    if (f.length !== (groups.length === 1 && noGroup ? 3 : 4) || !isInt(partition) || !isInt(offset))
      return { error: `Cannot read the reset plan line '${line}'` };
    const forGroup = plan.get(group!) ?? new Map<string, number>();
    forGroup.set(tpKey(topic!, Number(partition)), Number(offset));
    plan.set(group!, forGroup);
  }
  return plan;
}

/** ConsumerGroupService.exportOffsetsToCsv: a CSV line per partition, the group first when several are named. */
export function exportOffsetsToCsv(
  offsets: ReadonlyMap<string, ReadonlyMap<string, number>>,
  singleGroup: boolean,
): string {
  let out = '';
  for (const [group, byTp] of offsets)
    for (const [k, o] of byTp) {
      const [t, p] = fromTpKey(k);
      out += `${singleGroup ? '' : `${group},`}${t},${p},${o}\n`;
    }
  return out;
}

/** A bad --to-datetime, --by-duration or --from-file value: printError's line, as Kafka's RuntimeException gives it. */
function failed(value: number | { readonly error: string }): number {
  if (typeof value === 'number') return value;
  throw new KafkaApiError(-1, value.error);
}

async function resetOffsets(
  client: AdminClient,
  ctx: CommandContext,
  group: string,
  opts: ParsedOptions,
): Promise<Map<string, number> | undefined> {
  const g = await describeGroup(client, group);
  if (g.state !== 'Empty' && g.state !== 'Dead') {
    errorLine(
      ctx,
      `Assignments can only be reset if the group '${group}' is inactive, but the current state is ${g.state}.`,
    );
    return undefined;
  }
  const out = new Map<string, number>();
  // ResetOffsetsCommand.checkOffsetRange: a target past either end of the log is moved to that end.
  const clamped = async (t: string, p: number, o: number) =>
    Math.min(await listOffset(client, t, p, -1), Math.max(await listOffset(client, t, p, -2), o));
  if (opts.has('from-file')) {
    const path = opts.value('from-file')!;
    let csv: string;
    try {
      csv = readFileSync(path, 'utf8');
    } catch {
      throw new KafkaApiError(-1, `java.nio.file.NoSuchFileException: ${path}`);
    }
    const plan = parseResetPlan(csv, opts.values('group'));
    if ('error' in plan) throw new KafkaApiError(-1, plan.error);
    const forGroup = plan.get(group);
    if (forGroup === undefined) {
      errorLine(ctx, `No reset plan for group ${group} found.`);
      return out;
    }
    for (const [k, o] of [...forGroup].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      out.set(k, await clamped(...fromTpKey(k), o));
  } else {
    const keys = await partitionsToReset(client, group, opts);
    const committed = await committedOffsets(client, group);
    // --to-datetime and --by-duration: ListOffsets by timestamp (GroupOffsetsResetter.getLogTimestampOffsets).
    const timestamp = opts.has('to-datetime')
      ? failed(parseDateTime(opts.value('to-datetime')!))
      : opts.has('by-duration')
        ? Date.now() - failed(parseDuration(opts.value('by-duration')!))
        : undefined;
    for (const k of keys.sort()) {
      const [t, p] = fromTpKey(k);
      let target: number;
      if (timestamp !== undefined) {
        target = await listOffset(client, t, p, timestamp);
        if (target < 0) {
          ctx.out(`\nWarn: Partition ${p} from topic ${t} is empty. Falling back to latest known offset.`);
          target = await listOffset(client, t, p, -1);
        }
      } else if (opts.has('to-earliest')) target = await listOffset(client, t, p, -2);
      else if (opts.has('to-latest')) target = await listOffset(client, t, p, -1);
      else if (opts.has('to-offset')) target = await clamped(t, p, Number(opts.value('to-offset')));
      else {
        const current = committed.get(k);
        if (current === undefined)
          throw new KafkaApiError(
            -1,
            `Partition ${t}-${p} has no committed offset to ${opts.has('shift-by') ? 'shift' : 'keep'}`,
          );
        target = opts.has('shift-by')
          ? await clamped(t, p, current + Number(opts.value('shift-by')))
          : current;
      }
      out.set(k, target);
    }
  }
  if (opts.has('execute')) {
    const errors = await commitOffsets(client, group, out);
    for (const code of errors.values()) throw new KafkaApiError(code, null);
  }
  return out;
}

/**
 * ConsumerGroupService.deleteOffsets: OffsetDelete for the partitions named (`topic` is all of a topic's);
 * a line for the group's result, then TOPIC/PARTITION/STATUS, a topic Metadata cannot find as partition `-`.
 */
async function deleteOffsets(
  client: AdminClient,
  ctx: CommandContext,
  group: string,
  topics: readonly string[],
): Promise<void> {
  const status = new Map<string, string | null>();
  const partitions = new Map<string, number[]>();
  for (const spec of topics) {
    const colon = spec.indexOf(':');
    const topic = colon < 0 ? spec : spec.slice(0, colon);
    let parts: number[];
    if (colon >= 0)
      parts = spec
        .slice(colon + 1)
        .split(',')
        .map(Number);
    else {
      try {
        parts = Array.from({ length: await partitionCount(client, topic, false) }, (_, i) => i);
      } catch (error) {
        if (!(error instanceof KafkaApiError)) throw error;
        status.set(tpKey(topic, -1), exceptionText(error));
        continue;
      }
    }
    partitions.set(topic, [...(partitions.get(topic) ?? []), ...parts]);
  }
  const res = await client.request(OffsetDelete, {
    groupId: group,
    topics: [...partitions].map(([name, ps]) => ({
      name,
      partitions: ps.map((partitionIndex) => ({ partitionIndex })),
    })),
  });
  // DeleteConsumerGroupOffsetsResult.all() fails with the group's error, else with a partition's.
  let top = res.errorCode;
  for (const [topic, ps] of partitions)
    for (const p of ps) {
      const answered = res.topics
        .find((t) => t.name === topic)
        ?.partitions.find((x) => x.partitionIndex === p);
      const code = top !== 0 ? top : (answered?.errorCode ?? -1);
      if (top === 0 && code !== 0) top = code;
      status.set(tpKey(topic, p), code === 0 ? null : exceptionText(new KafkaApiError(code, null)));
    }
  if (top === 0) ctx.out(`Request succeeded for deleting offsets from group ${group}.`);
  else if ([24, 30, 68, 69].includes(top)) errorLine(ctx, new KafkaApiError(top, null).message);
  else if ([3, 29, 86].includes(top))
    errorLine(ctx, 'Encountered some partition-level error, see the follow-up details.');
  else errorLine(ctx, `Encountered some unknown error: ${new KafkaApiError(top, null).codeName}`);
  const rows = [...status]
    .map(([k, why]) => [...fromTpKey(k), why] as const)
    .sort(([t1, p1], [t2, p2]) => (`${t1}${p1}` < `${t2}${p2}` ? -1 : `${t1}${p1}` > `${t2}${p2}` ? 1 : 0));
  const w = Math.max(15, ...rows.map(([t]) => t.length));
  const line = (t: string, p: string, s: string) => `\n${pad(t, w)} ${pad(p, 10)} ${pad(s, 15)}`;
  ctx.out(
    line('TOPIC', 'PARTITION', 'STATUS') +
      rows
        .map(([t, p, why]) =>
          line(t, p >= 0 ? String(p) : '-', why === null ? 'Successful' : `Error: ${why}`),
        )
        .join(''),
  );
}

/**
 * ConsumerGroupCommand.printOffsetsToReset: every group's offsets, computed first, in one table; each line led
 * by a newline, the header only when some group was reset.
 */
function printOffsetsToReset(
  ctx: CommandContext,
  offsets: ReadonlyMap<string, ReadonlyMap<string, number>>,
): void {
  const line = (a: string, b: string, c: string, d: string) =>
    `${pad(a, 30)} ${pad(b, 30)} ${pad(c, 10)} ${pad(d, 15)}`;
  const lines =
    offsets.size === 0
      ? []
      : [
          line('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'),
          ...[...offsets].flatMap(([group, byTp]) =>
            [...byTp].map(([k, o]) => {
              const [t, p] = fromTpKey(k);
              return line(group, t, String(p), String(o));
            }),
          ),
        ];
  ctx.out(lines.map((l) => `\n${l}`).join(''));
}

/** ConsumerGroupCommandOptions.checkArgs, in the parts klog has. */
function checkArgs(opts: ParsedOptions): void {
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1)
    throw new ToolUsageError(
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets',
    );
  if (!opts.has('bootstrap-server'))
    throw new ToolUsageError('Missing required argument "[bootstrap-server]"');
  if (
    (opts.has('describe') || opts.has('delete') || opts.has('reset-offsets')) &&
    !opts.has('group') &&
    !opts.has('all-groups')
  )
    throw new ToolUsageError(
      `Option [${ACTIONS.find((a) => opts.has(a))}] takes one of these options: [all-groups], [group]`,
    );
  if (opts.has('reset-offsets')) {
    if (opts.has('dry-run') && opts.has('execute'))
      throw new ToolUsageError('Option [reset-offsets] only accepts one of [execute], [dry-run]');
    if (SCENARIOS.filter((s) => opts.has(s)).length !== 1)
      throw new ToolUsageError(
        'Option [reset-offsets] takes exactly one of these options: [to-offset], [to-earliest], [to-latest], [to-current], [shift-by], [to-datetime], [by-duration], [from-file]',
      );
    if (!opts.has('topic') && !opts.has('all-topics') && !opts.has('from-file'))
      throw new ToolUsageError('Option [reset-offsets] takes one of these options: [all-topics], [topic]');
    for (const n of ['to-offset', 'shift-by'])
      if (opts.has(n) && !/^-?\d+$/.test(opts.value(n)!))
        throw new ToolUsageError(`Cannot parse argument '${opts.value(n)}' of option ${n}`);
  }
  if (opts.has('delete-offsets') && !(opts.has('group') && opts.has('topic')))
    throw new ToolUsageError('Option [delete-offsets] takes the following options: [group], [topic]');
  if (opts.has('export') && !opts.has('reset-offsets'))
    throw new ToolUsageError(
      `Option "[export]" can't be used with option "[${ACTIONS.find((a) => opts.has(a))}]"`,
    );
  if (opts.has('type') && !opts.has('list'))
    throw new ToolUsageError(
      `Option "[type]" can't be used with option "[${ACTIONS.find((a) => opts.has(a))}]"`,
    );
  for (const d of ['members', 'offsets', 'state', 'verbose'])
    if (opts.has(d) && !opts.has('describe') && !(d === 'state' && opts.has('list')))
      throw new ToolUsageError(
        `Option "[${d}]" can't be used with option "[${ACTIONS.find((a) => opts.has(a))}]"`,
      );
  if (opts.has('describe') && ['members', 'offsets', 'state'].filter((d) => opts.has(d)).length > 1)
    throw new ToolUsageError(
      'Option [describe] takes at most one of these options: [members], [offsets], [state]',
    );
}

/** The groups the command names (--all-groups: every consumer group). */
async function groupsOf(client: AdminClient, opts: ParsedOptions): Promise<string[]> {
  if (!opts.has('all-groups')) return [...opts.values('group')];
  const res = await client.request(ListGroups, { statesFilter: [], typesFilter: [] });
  return res.groups
    .filter((g) => g.protocolType === 'consumer' || g.protocolType === '')
    .map((g) => g.groupId);
}

export function parseConsumerGroupCommand(args: readonly string[]): ParsedOptions {
  const opts = parseToolArgs(
    'kafka-consumer-groups.sh',
    'This tool helps to list all consumer groups, describe a consumer group, delete consumer group info, or reset consumer group offsets.',
    CONSUMER_GROUP_OPTIONS,
    args,
  );
  checkArgs(opts);
  return opts;
}

/** Runs the command; resolves to the errors it printed (printError's), none when all went well. */
export async function executeConsumerGroupCommand(
  opts: ParsedOptions,
  ctx: CommandContext,
): Promise<readonly string[]> {
  reported = [];
  await withBootstrap(opts.value('bootstrap-server'), async (client) => {
    if (opts.has('list')) {
      await listGroups(client, ctx, opts);
      return;
    }
    const groups = await groupsOf(client, opts);
    if (opts.has('delete')) {
      await deleteGroups(client, ctx, groups);
      return;
    }
    if (opts.has('delete-offsets')) {
      await deleteOffsets(client, ctx, groups[0]!, opts.values('topic'));
      return;
    }
    if (opts.has('describe')) {
      for (const group of groups) {
        if (opts.has('members')) await describeMembers(client, ctx, group, opts.has('verbose'));
        else if (opts.has('state')) await describeState(client, ctx, group, opts.has('verbose'));
        else await describeOffsets(client, ctx, group);
      }
      return;
    }
    if (!opts.has('dry-run') && !opts.has('execute')) {
      ctx.out(
        'WARN: No action will be performed as the --execute option is missing. In a future major release, the default behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting.',
      );
    }
    const all = new Map<string, Map<string, number>>();
    for (const group of groups) {
      const offsets = await resetOffsets(client, ctx, group, opts);
      if (offsets !== undefined) all.set(group, offsets);
    }
    // ConsumerGroupCommand.run: --export prints the CSV (println: a last empty line) instead of the table.
    if (opts.has('export')) ctx.out(exportOffsetsToCsv(all, opts.values('group').length === 1));
    else printOffsetsToReset(ctx, all);
  });
  return reported;
}

/**
 * kafka-consumer-groups.sh: a bad command line is one line on stderr, exit 1 (CommandLineUtils.printUsageAndExit);
 * a failure on the way is "Error: Executing consumer group command failed due to …" on stdout (printError).
 */
export async function kafkaConsumerGroups(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseConsumerGroupCommand(args);
  try {
    await executeConsumerGroupCommand(opts, ctx);
  } catch (error) {
    if (!(error instanceof KafkaApiError)) throw error;
    errorLine(ctx, `Executing consumer group command failed due to ${error.message}`);
    return 1;
  }
  return 0;
}
