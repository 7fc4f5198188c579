import {
  consumerAssignmentPartitions,
  DeleteGroups,
  DescribeGroups,
  errorName,
  ListGroups,
  ListOffsets,
  OffsetFetch,
  type OffsetFetchRequest,
} from '@klog/protocol';
import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { hostPort } from '../flags.js';
import { AdminClient } from '../topics/admin-client.js';

const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

const HELP_AFTER = `
Talks to a running broker (klog serve, which coordinates every group itself)
over the Kafka protocol, as kafka-consumer-groups.sh --bootstrap-server does:
list the groups, describe one (each partition's committed offset, log end
offset, lag, and the member that owns it), or delete an empty one.

Examples:
  klog groups list
  klog groups describe billing
  klog groups delete billing --bootstrap-server 127.0.0.1:9092`;

async function withClient<T>(bootstrap: string, f: (client: AdminClient) => Promise<T>): Promise<T> {
  const { host, port } = hostPort('--bootstrap-server', bootstrap);
  const client = await AdminClient.connect(host, port);
  try {
    return await f(client);
  } finally {
    client.close();
  }
}

/** Columns padded to their widest cell, two spaces apart, as kafka-consumer-groups.sh prints them. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

async function committedOffsets(client: AdminClient, group: string): Promise<Map<string, number>> {
  const version = client.versionOf(OffsetFetch as never);
  const body: OffsetFetchRequest =
    version >= 8
      ? { groupId: '', topics: [], groups: [{ groupId: group, topics: null }], requireStable: false }
      : { groupId: group, topics: null, groups: [], requireStable: false };
  const res = await client.request(OffsetFetch, body);
  const topics = version >= 8 ? (res.groups[0]?.topics ?? []) : res.topics;
  const out = new Map<string, number>();
  for (const t of topics)
    for (const p of t.partitions)
      if (p.committedOffset >= 0) out.set(`${t.name}\u0000${p.partitionIndex}`, p.committedOffset);
  return out;
}

async function logEndOffsets(
  client: AdminClient,
  partitions: readonly [string, number][],
): Promise<Map<string, number>> {
  const byTopic = new Map<string, number[]>();
  for (const [t, p] of partitions) byTopic.set(t, [...(byTopic.get(t) ?? []), p]);
  const out = new Map<string, number>();
  if (byTopic.size === 0) return out;
  const res = await client.request(ListOffsets, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 30_000,
    topics: [...byTopic].map(([name, ps]) => ({
      name,
      partitions: ps.map((partitionIndex) => ({
        partitionIndex,
        currentLeaderEpoch: -1,
        timestamp: -1,
        maxNumOffsets: 1,
      })),
    })),
  });
  for (const t of res.topics) {
    for (const p of t.partitions) {
      const end = p.offset >= 0 ? p.offset : (p.oldStyleOffsets[0] ?? -1);
      if (p.errorCode === 0 && end >= 0) out.set(`${t.name}\u0000${p.partitionIndex}`, end);
    }
  }
  return out;
}

export function groupsCommand(ctx: CommandContext): Command {
  const bootstrap = () =>
    new Option('--bootstrap-server <host:port>', 'the broker to talk to').default(DEFAULT_BOOTSTRAP);
  const groups = new Command('groups')
    .description("list, describe and delete a broker's consumer groups")
    .addHelpText('after', HELP_AFTER);
  groups
    .command('list')
    .description('list the consumer groups and their states')
    .addOption(bootstrap())
    .action(async (raw: { bootstrapServer: string }) => {
      const res = await withClient(raw.bootstrapServer, (client) =>
        client.request(ListGroups, { statesFilter: [], typesFilter: [] }),
      );
      if (res.errorCode !== 0) throw new Error(`groups list: ${errorName(res.errorCode)}`);
      const rows = res.groups
        .map((g) => [g.groupId, g.groupState || '-'] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      if (rows.length === 0) {
        ctx.out('no consumer groups');
        return;
      }
      for (const line of table([['GROUP', 'STATE'], ...rows])) ctx.out(line);
    });
  groups
    .command('describe')
    .description("a group's partitions: committed offset, log end offset, lag, and the member that owns each")
    .argument('<group>', 'the group id')
    .addOption(bootstrap())
    .action(async (group: string, raw: { bootstrapServer: string }) => {
      await withClient(raw.bootstrapServer, async (client) => {
        const described = (
          await client.request(DescribeGroups, { groups: [group], includeAuthorizedOperations: false })
        ).groups[0];
        if (described === undefined || described.errorCode !== 0) {
          throw new Error(
            `groups describe: ${described === undefined ? 'no answer for the group' : errorName(described.errorCode)}`,
          );
        }
        const committed = await committedOffsets(client, group);
        if (described.groupState === 'Dead' && committed.size === 0)
          throw new Error(`Consumer group '${group}' does not exist.`);
        const owner = new Map<string, { memberId: string; host: string; clientId: string }>();
        for (const m of described.members) {
          for (const a of consumerAssignmentPartitions(m.memberAssignment) ?? []) {
            for (const p of a.partitions)
              owner.set(`${a.topic}\u0000${p}`, {
                memberId: m.memberId,
                host: m.clientHost,
                clientId: m.clientId,
              });
          }
        }
        const keys = [...new Set([...committed.keys(), ...owner.keys()])]
          .map((k) => k.split('\u0000') as [string, string])
          .map(([t, p]) => [t, Number(p)] as [string, number])
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
        const ends = await logEndOffsets(client, keys);
        ctx.out(
          `Consumer group '${group}': ${described.groupState}${described.protocolData ? ` (${described.protocolType}/${described.protocolData})` : ''}, ${described.members.length} member${described.members.length === 1 ? '' : 's'}`,
        );
        if (described.members.length === 0) ctx.out(`Consumer group '${group}' has no active members.`);
        if (keys.length === 0) return;
        ctx.out('');
        const rows = keys.map(([t, p]) => {
          const k = `${t}\u0000${p}`;
          const current = committed.get(k);
          const end = ends.get(k);
          const o = owner.get(k);
          return [
            group,
            t,
            String(p),
            current === undefined ? '-' : String(current),
            end === undefined ? '-' : String(end),
            current === undefined || end === undefined ? '-' : String(end - current),
            o?.memberId ?? '-',
            o?.host ?? '-',
            o?.clientId ?? '-',
          ];
        });
        for (const line of table([
          [
            'GROUP',
            'TOPIC',
            'PARTITION',
            'CURRENT-OFFSET',
            'LOG-END-OFFSET',
            'LAG',
            'CONSUMER-ID',
            'HOST',
            'CLIENT-ID',
          ],
          ...rows,
        ])) {
          ctx.out(line);
        }
      });
    });
  groups
    .command('delete')
    .description('delete an empty group and its committed offsets')
    .argument('<group>', 'the group id')
    .addOption(bootstrap())
    .action(async (group: string, raw: { bootstrapServer: string }) => {
      const res = await withClient(raw.bootstrapServer, (client) =>
        client.request(DeleteGroups, { groupsNames: [group] }),
      );
      const r = res.results.find((x) => x.groupId === group);
      if (r === undefined) throw new Error('groups delete: the broker answered without the group');
      if (r.errorCode !== 0)
        throw new Error(`Deletion of consumer group '${group}' failed: ${errorName(r.errorCode)}`);
      ctx.out(`Deletion of requested consumer groups ('${group}') was successful.`);
    });
  return groups;
}
