import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatResponse, Metadata } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassicGroupMember, commitOffsets, tpKey } from '../../src/kafka-tools/clients.js';
import { AdminClient } from '../../src/topics/admin-client.js';
import { klog } from '../run-klog.js';
import { kafka, kafkaBin, type Server, startServer } from './tool-runner.js';

/**
 * kafka-consumer-groups.sh and `klog dump-log --offsets-decoder` for a consumer-protocol group (KIP-848),
 * against `klog serve` as a process, its members speaking raw ConsumerGroupHeartbeat frames so that each
 * epoch is known. The layouts are Kafka 4.1's ConsumerGroupCommand (printMembers, printStates,
 * printGroupInfo); the describe goes through ConsumerGroupDescribe, and falls back to DescribeGroups for a
 * classic group, as Admin's DescribeConsumerGroupsHandler does.
 */
const scratch = mkdtempSync(join(tmpdir(), 'klog-kafka-tools-cg-'));
const dataDir = join(scratch, 'data');
let server: Server;
let client: AdminClient;
let at: string[];
const topicIds = new Map<string, string>();

beforeAll(async () => {
  server = await startServer(dataDir);
  at = ['--bootstrap-server', `localhost:${server.port}`];
  for (const topic of ['orders', 'refunds'])
    expect(kafka('kafka-topics.sh', ['--create', '--topic', topic, '--partitions', '3', ...at]).status).toBe(
      0,
    );
  client = await AdminClient.connect('127.0.0.1', server.port);
  const meta = await client.request(Metadata, {
    topics: [{ name: 'orders', topicId: '00000000-0000-0000-0000-000000000000' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  for (const t of meta.topics) if (t.name !== null) topicIds.set(t.name, t.topicId);
});
afterAll(async () => {
  client?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(scratch, { recursive: true, force: true });
});

/** One ConsumerGroupHeartbeat; `owned` (when given) acknowledges the partitions the member now owns. */
async function heartbeat(
  group: string,
  memberId: string,
  memberEpoch: number,
  owned?: ConsumerGroupHeartbeatResponse.TopicPartitions[],
  subscription: { names?: string[]; regex?: string } = { names: ['orders'] },
): Promise<ConsumerGroupHeartbeatResponse> {
  const res = await client.request(ConsumerGroupHeartbeat, {
    groupId: group,
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: memberEpoch === 0 ? (subscription.names ?? null) : null,
    subscribedTopicRegex: memberEpoch === 0 ? (subscription.regex ?? null) : null,
    serverAssignor: memberEpoch === 0 ? 'uniform' : null,
    topicPartitions: owned ?? (memberEpoch === 0 ? [] : null),
  });
  expect(res.errorCode, res.errorMessage ?? '').toBe(0);
  return res;
}

const ok = (args: string[]) => {
  const run = kafka('kafka-consumer-groups.sh', [...args, ...at]);
  expect([run.status, run.hung]).toEqual([0, false]);
  return run;
};

/** The cells of a line printed with Java's `%-Ns` columns, cut at the header's column starts. */
function cells(header: string, line: string): Record<string, string> {
  const starts = [...header.matchAll(/\S+(?: \(ID\))?/g)].map((m) => [m[0], m.index] as const);
  return Object.fromEntries(
    starts.map(([name, start], i) => [name, line.slice(start, starts[i + 1]?.[1] ?? line.length).trimEnd()]),
  );
}

// Member ids are the client's own in ConsumerGroupHeartbeat v1 (KIP-1082).
const A = 'member-a-0000000000000000';
const B = 'member-b-0000000000000000';

describe('kafka-consumer-groups.sh --describe for a consumer-protocol group', { timeout: 120_000 }, () => {
  it('shows epochs and current and target assignments column by column, mid-rebalance', async () => {
    // A joins alone: epoch 1, all three partitions at once (nothing to revoke), acknowledged.
    const a1 = await heartbeat('shop', A, 0);
    expect(a1.memberEpoch).toBe(1);
    await heartbeat('shop', A, 1, a1.assignment!.topicPartitions);
    // B joins: the group epoch is 2, the target splits the partitions, but A still owns all three until
    // it revokes, so B gets none yet: the group is Reconciling.
    const b1 = await heartbeat('shop', B, 0);
    expect(b1.memberEpoch).toBe(2);

    const state = ok(['--describe', '--group', 'shop', '--state', '--verbose']);
    const [blank, header, row, ...rest] = state.stdout.split('\n');
    expect([blank, rest]).toEqual(['', ['']]);
    expect(header).toMatch(
      /^GROUP {11}COORDINATOR \(ID\) {10}ASSIGNMENT-STRATEGY {2}STATE {16}GROUP-EPOCH {5}TARGET-ASSIGNMENT-EPOCH {3}#MEMBERS$/,
    );
    expect(cells(header!, row!)).toEqual({
      GROUP: 'shop',
      'COORDINATOR (ID)': `127.0.0.1:${server.port}  (0)`,
      'ASSIGNMENT-STRATEGY': 'uniform',
      STATE: 'Reconciling',
      'GROUP-EPOCH': '2',
      'TARGET-ASSIGNMENT-EPOCH': '2',
      '#MEMBERS': '2',
    });
    expect(state.stderr).toBe("\nWarning: Consumer group 'shop' is rebalancing.\n");

    // Without --verbose: no epochs (printStates' short format).
    const short = ok(['--describe', '--group', 'shop', '--state']).stdout.split('\n');
    expect(short[1]).toMatch(/^GROUP {11}COORDINATOR \(ID\) {10}ASSIGNMENT-STRATEGY {2}STATE {16}#MEMBERS$/);
    expect(cells(short[1]!, short[2]!)).toMatchObject({ STATE: 'Reconciling', '#MEMBERS': '2' });

    const members = ok(['--describe', '--group', 'shop', '--members', '--verbose']);
    const lines = members.stdout.split('\n');
    expect(lines[0]).toBe('');
    expect(lines.at(-1)).toBe('');
    const head = lines[1]!;
    // printMembers: the member columns (each %-Ns then a space), then %-15s %-20s %-15s %-20s.
    expect(head).toBe(
      `${'GROUP'.padEnd(15)} ${'CONSUMER-ID'.padEnd(25)} ${'HOST'.padEnd(15)} ${'CLIENT-ID'.padEnd(15)} ${'#PARTITIONS'.padEnd(15)} ` +
        `${'CURRENT-EPOCH'.padEnd(15)} ${'CURRENT-ASSIGNMENT'.padEnd(20)} ${'TARGET-EPOCH'.padEnd(15)} ${'TARGET-ASSIGNMENT'.padEnd(20)}`,
    );
    const rows = new Map(lines.slice(2, -1).map((l) => [cells(head, l)['CONSUMER-ID'], cells(head, l)]));
    expect([...rows.keys()].sort()).toEqual([A, B]);
    const a = rows.get(A)!;
    const b = rows.get(B)!;
    expect(a).toMatchObject({
      GROUP: 'shop',
      '#PARTITIONS': '3',
      'CURRENT-EPOCH': '1',
      'CURRENT-ASSIGNMENT': 'orders:0,1,2',
      'TARGET-EPOCH': '2',
    });
    expect(b).toMatchObject({
      GROUP: 'shop',
      '#PARTITIONS': '0',
      'CURRENT-EPOCH': '2',
      'CURRENT-ASSIGNMENT': '-',
      'TARGET-EPOCH': '2',
    });
    expect(a.HOST).toMatch(/127\.0\.0\.1/);
    // The target splits orders' three partitions between them, one topic:partitions list each.
    const targets = [a['TARGET-ASSIGNMENT']!, b['TARGET-ASSIGNMENT']!];
    for (const t of targets) expect(t).toMatch(/^orders:\d(,\d)*$/);
    expect(
      targets
        .flatMap((t) => t.slice('orders:'.length).split(','))
        .map(Number)
        .sort(),
    ).toEqual([0, 1, 2]);

    // The same through `klog groups describe`: the protocol's epochs and assignments.
    const viaKlog = klog([
      'groups',
      'describe',
      'shop',
      '--members',
      '--verbose',
      '--bootstrap-server',
      `127.0.0.1:${server.port}`,
    ]);
    expect(viaKlog.status).toBe(0);
    expect(viaKlog.stdout).toBe(members.stdout);
    const klogState = klog([
      'groups',
      'describe',
      'shop',
      '--state',
      '--verbose',
      '--bootstrap-server',
      `127.0.0.1:${server.port}`,
    ]);
    expect(klogState.stdout).toBe(state.stdout);
  });

  it('falls back to DescribeGroups for a classic group: no epochs, no target', async () => {
    const classic = new ClassicGroupMember(client, 'ledger', ['orders']);
    await classic.join();
    const members = ok(['--describe', '--group', 'ledger', '--members', '--verbose']).stdout.split('\n');
    const head = members[1]!;
    expect(head).toMatch(
      /#PARTITIONS {5}CURRENT-EPOCH {3}CURRENT-ASSIGNMENT {3}TARGET-EPOCH {4}TARGET-ASSIGNMENT {3}$/,
    );
    expect(cells(head, members[2]!)).toMatchObject({
      GROUP: 'ledger',
      'CONSUMER-ID': classic.memberId,
      '#PARTITIONS': '3',
      'CURRENT-EPOCH': '-',
      'CURRENT-ASSIGNMENT': 'orders:0,1,2',
      'TARGET-EPOCH': '-',
      'TARGET-ASSIGNMENT': '-',
    });
    const state = ok(['--describe', '--group', 'ledger', '--state', '--verbose']).stdout.split('\n');
    expect(cells(state[1]!, state[2]!)).toMatchObject({
      'ASSIGNMENT-STRATEGY': 'range',
      STATE: 'Stable',
      'GROUP-EPOCH': '-',
      'TARGET-ASSIGNMENT-EPOCH': '-',
      '#MEMBERS': '1',
    });
    await classic.leave();
  });

  it('--list --type prints GROUP and TYPE (and STATE with --state); a bad type is refused', () => {
    const typed = ok(['--list', '--type']).stdout.split('\n');
    expect(typed[0]).toBe(`${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)}`);
    const byGroup = new Map(typed.slice(1, -1).map((l) => [l.slice(0, 25).trim(), l]));
    expect(byGroup.get('ledger')).toBe(`${'ledger'.padEnd(25)} ${'Classic'.padEnd(20)}`);
    const both = ok(['--list', '--type', 'classic', '--state']).stdout.split('\n');
    expect(both[0]).toBe(`${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)} ${'STATE'.padEnd(20)}`);
    expect(both).toContain(`${'ledger'.padEnd(25)} ${'Classic'.padEnd(20)} ${'Empty'.padEnd(20)}`);
    const bad = kafka('kafka-consumer-groups.sh', ['--list', '--type', 'share', ...at]);
    expect(bad.stdout).toBe(
      "\nError: Executing consumer group command failed due to Invalid types list 'share'. Valid types are: Classic, Consumer\n",
    );
  });
});

describe('kafka-consumer-groups.sh --delete-offsets and --delete for a consumer-protocol group', {
  timeout: 120_000,
}, () => {
  it('refuses the subscribed topic and deletes another; refuses a group with a member, deletes it once empty', async () => {
    const C = 'member-c-0000000000000000';
    const c1 = await heartbeat('cleanup', C, 0);
    // A member's own commits (OffsetCommit v9 at its epoch) on its topic and on one it does not consume.
    const offsets = new Map([
      [tpKey('orders', 0), 5],
      [tpKey('refunds', 0), 9],
    ]);
    const failed = await commitOffsets(client, 'cleanup', offsets, c1.memberEpoch, C);
    expect([...failed]).toEqual([]);

    // ConsumerGroupCommand.deleteOffsets: a partition-level error for the subscribed topic.
    const refused = kafka('kafka-consumer-groups.sh', [
      '--delete-offsets',
      '--group',
      'cleanup',
      '--topic',
      'orders:0',
      ...at,
    ]);
    expect(refused.stdout.split('\n')).toEqual([
      '',
      'Error: Encountered some partition-level error, see the follow-up details.',
      '',
      `${'TOPIC'.padEnd(15)} ${'PARTITION'.padEnd(10)} ${'STATUS'.padEnd(15)}`,
      `${'orders'.padEnd(15)} ${'0'.padEnd(10)} Error: org.apache.kafka.common.errors.GroupSubscribedToTopicException: Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.`,
      '',
    ]);
    const deleted = ok(['--delete-offsets', '--group', 'cleanup', '--topic', 'refunds:0']);
    expect(deleted.stdout.split('\n').slice(0, 5)).toEqual([
      'Request succeeded for deleting offsets from group cleanup.',
      '',
      `${'TOPIC'.padEnd(15)} ${'PARTITION'.padEnd(10)} ${'STATUS'.padEnd(15)}`,
      `${'refunds'.padEnd(15)} ${'0'.padEnd(10)} ${'Successful'.padEnd(15)}`,
      '',
    ]);
    const left = ok(['--describe', '--group', 'cleanup', '--offsets']).stdout;
    expect(left).toMatch(/\ncleanup +orders +0 +5 /);
    expect(left).not.toMatch(/refunds/);

    // ConsumerGroupCommand.deleteGroups: the exception as Java prints it, while C is in the group.
    const busy = kafka('kafka-consumer-groups.sh', ['--delete', '--group', 'cleanup', ...at]);
    expect(busy.stdout).toContain(
      "* Group 'cleanup' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.",
    );
    // C leaves (epoch -1): the group is Empty and goes, its offsets with it.
    await heartbeat('cleanup', C, -1);
    expect(ok(['--delete', '--group', 'cleanup']).stdout).toBe(
      "Deletion of requested consumer groups ('cleanup') was successful.\n",
    );
    expect(ok(['--list']).stdout.split('\n')).not.toContain('cleanup');
    const gone = kafka('kafka-consumer-groups.sh', ['--describe', '--group', 'cleanup', '--offsets', ...at]);
    expect(gone.stdout + gone.stderr).toContain("Consumer group 'cleanup' does not exist.");
  });
});

/** A tool run as a process of its own, side by side with others: its stdout and exit code when it ends. */
function started(
  script: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(join(kafkaBin, script), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((done) => child.once('close', (status) => done({ status, stdout, stderr })));
}

describe('kafka-console-consumer.sh with --consumer-property group.protocol=consumer', {
  timeout: 180_000,
}, () => {
  it('two console consumers share a topic through the broker’s assignment, read each record once, commit and leave', async () => {
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'split', '--partitions', '3', ...at]).status,
    ).toBe(0);
    const consumer = () =>
      started('kafka-console-consumer.sh', [
        '--topic',
        'split',
        '--group',
        'pair',
        '--consumer-property',
        'group.protocol=consumer',
        '--property',
        'print.partition=true',
        '--timeout-ms',
        '15000',
        ...at,
      ]);
    const runs = [consumer(), consumer()];
    // Both are members, reconciled (each owning what the target gives it), before anything is produced.
    let state: Record<string, string> = {};
    for (let i = 0; i < 300 && !(state.STATE === 'Stable' && state['#MEMBERS'] === '2'); i++) {
      const lines = kafka('kafka-consumer-groups.sh', [
        '--describe',
        '--group',
        'pair',
        '--state',
        ...at,
      ]).stdout.split('\n');
      state = lines.length > 2 && lines[2] !== '' ? cells(lines[1]!, lines[2]!) : {};
    }
    expect(state).toMatchObject({ STATE: 'Stable', '#MEMBERS': '2', 'ASSIGNMENT-STRATEGY': 'uniform' });
    const members = ok(['--describe', '--group', 'pair', '--members']).stdout.split('\n');
    const owned = members.slice(2, -1).map((l) => Number(cells(members[1]!, l)['#PARTITIONS']));
    expect(owned.sort()).toEqual([1, 2]);

    const input = Array.from({ length: 30 }, (_, i) => `k${i}:v${i}`).join('\n');
    const produced = kafka(
      'kafka-console-producer.sh',
      ['--topic', 'split', '--property', 'parse.key=true', '--property', 'key.separator=:', ...at],
      `${input}\n`,
    );
    expect(produced.status).toBe(0);
    const [a, b] = await Promise.all(runs);
    const read = (r: { stdout: string }) =>
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t') as [string, string]);
    const byA = read(a!);
    const byB = read(b!);
    // Each record once, and each partition read by one member only.
    expect([...byA, ...byB].map(([, v]) => v).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `v${i}`).sort(),
    );
    const partsOf = (rows: [string, string][]) => new Set(rows.map(([p]) => p));
    for (const p of partsOf(byA)) expect(partsOf(byB).has(p)).toBe(false);
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
    for (const r of [a!, b!]) expect(r.stderr).toMatch(/Processed a total of \d+ messages/);

    // Both left (epoch -1) after committing: the group is Empty and its offsets are at the log's end.
    const after = ok(['--describe', '--group', 'pair', '--state']).stdout.split('\n');
    expect(cells(after[1]!, after[2]!)).toMatchObject({ STATE: 'Empty', '#MEMBERS': '0' });
    const offsets = ok(['--describe', '--group', 'pair', '--offsets'])
      .stdout.split('\n')
      .filter((l) => l.startsWith('pair '));
    expect(offsets).toHaveLength(3);
    const header = ok(['--describe', '--group', 'pair', '--offsets']).stdout.split('\n')[1]!;
    for (const l of offsets) expect(cells(header, l).LAG).toBe('0');
    expect(ok(['--list', '--type']).stdout).toMatch(/^pair +Consumer +$/m);
  });

  it('a group.protocol that is neither is refused with ConsumerConfig’s message', () => {
    const bad = kafka('kafka-console-consumer.sh', [
      '--topic',
      'split',
      '--group',
      'x',
      '--consumer-property',
      'group.protocol=share',
      ...at,
    ]);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain(
      'Invalid value share for configuration group.protocol: String must be one of (case insensitive): CLASSIC, CONSUMER',
    );
  });
});

describe('klog dump-log --offsets-decoder on the segment a consumer-protocol group wrote', () => {
  it('prints every record of types 3, 5, 6, 7, 8 and 16 as JSON, none undecoded', async () => {
    // A regex subscription, so that the group writes a ConsumerGroupRegularExpression record (type 16).
    const r = await heartbeat('regex-group', 'member-r-0000000000000000', 0, undefined, { regex: 'ord.*' });
    expect(r.memberEpoch).toBeGreaterThan(0);
    // The broker resolves the regex after that answer (as Kafka's executor does) and bumps the group epoch:
    // the member sees it in a later heartbeat, once the resolution (its type 16 record) is written.
    let epoch = r.memberEpoch;
    for (let i = 0; i < 200 && epoch === r.memberEpoch; i++)
      epoch = (await heartbeat('regex-group', 'member-r-0000000000000000', epoch, [])).memberEpoch;
    expect(epoch).toBeGreaterThan(r.memberEpoch);
    // Only the partitions a group hashed to hold segments.
    const dirs = readdirSync(dataDir)
      .filter((d) => d.startsWith('__consumer_offsets-'))
      .filter((d) => readdirSync(join(dataDir, d)).some((f) => f.endsWith('.log')));
    const lines: string[] = [];
    for (const d of dirs) {
      const run = klog(['dump-log', join(dataDir, d), '--offsets-decoder']);
      expect([run.status, run.stderr]).toEqual([0, '']);
      lines.push(...run.stdout.split('\n').filter((l) => l.includes(' key: ')));
    }
    const types = new Set(lines.map((l) => /key: \{"type":"(\d+)"/.exec(l)?.[1]));
    for (const t of ['3', '5', '6', '7', '8', '16']) expect(types).toContain(t);
    for (const l of lines) expect(l).not.toMatch(/not a value of this key/);
    // Member A's last current assignment (type 8): epoch 1, previous 0, Stable (0), all of orders.
    const ordersId = Buffer.from(topicIds.get('orders')!.replaceAll('-', ''), 'hex').toString('base64url');
    expect(lines).toContainEqual(
      expect.stringContaining(
        `key: {"type":"8","data":{"groupId":"shop","memberId":"${A}"}} payload: {"version":"0","data":{"memberEpoch":1,"previousMemberEpoch":0,"state":0,"assignedPartitions":[{"topicId":"${ordersId}","partitions":[0,1,2]}],"partitionsPendingRevocation":[]}}`,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /key: \{"type":"16","data":\{"groupId":"regex-group","regularExpression":"ord\.\*"\}\} payload: \{"version":"0","data":\{"topics":\["orders"\],"version":\d+,"timestamp":\d+\}\}$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringContaining(
        `key: {"type":"5","data":{"groupId":"shop","memberId":"${B}"}} payload: {"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"klog-topics","clientHost":`,
      ),
    );
  });
});

describe('kafka-console-consumer.sh of both protocols in one group (online upgrade, Kafka 4.1’s default policy)', {
  timeout: 180_000,
}, () => {
  it('a classic console consumer, then a consumer-protocol one: the group becomes a consumer group, UPGRADED false and true, each record read once', async () => {
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'mixed', '--partitions', '3', ...at]).status,
    ).toBe(0);
    const consumer = (extra: string[]) =>
      started('kafka-console-consumer.sh', [
        '--topic',
        'mixed',
        '--group',
        'both',
        ...extra,
        '--property',
        'print.partition=true',
        '--timeout-ms',
        '15000',
        ...at,
      ]);
    const members = () => {
      const lines = kafka('kafka-consumer-groups.sh', [
        '--describe',
        '--group',
        'both',
        '--members',
        '--verbose',
        ...at,
      ])
        .stdout.split('\n')
        .filter(Boolean);
      return { header: lines[0] ?? '', rows: lines.slice(1).map((l) => cells(lines[0]!, l)) };
    };
    const classic = consumer([]);
    // The classic member has the group (a classic group: no epochs) before the other one comes.
    for (let i = 0; i < 300 && members().rows[0]?.['#PARTITIONS'] !== '3'; i++);
    expect(members().rows).toMatchObject([{ '#PARTITIONS': '3', 'CURRENT-EPOCH': '-' }]);
    const modern = consumer(['--consumer-property', 'group.protocol=consumer']);
    let state: Record<string, string> = {};
    for (let i = 0; i < 300 && !(state.STATE === 'Stable' && state['#MEMBERS'] === '2'); i++) {
      const lines = kafka('kafka-consumer-groups.sh', [
        '--describe',
        '--group',
        'both',
        '--state',
        ...at,
      ]).stdout.split('\n');
      state = lines.length > 2 && lines[2] !== '' ? cells(lines[1]!, lines[2]!) : {};
    }
    expect(state).toMatchObject({ STATE: 'Stable', '#MEMBERS': '2' });
    // Kafka's ConsumerGroupCommand shows UPGRADED when the group has members of both protocols.
    const described = members();
    expect(described.header).toMatch(/ UPGRADED$/);
    expect(described.rows.map((r) => r.UPGRADED).sort()).toEqual(['false', 'true']);
    expect(described.rows.map((r) => Number(r['#PARTITIONS'])).sort()).toEqual([1, 2]);
    // ConsoleConsumer's client.id, as Kafka's tool sends it.
    expect(described.rows.map((r) => r['CLIENT-ID'])).toEqual(['console-consumer', 'console-consumer']);
    expect(ok(['--list', '--type']).stdout).toMatch(/^both +Consumer +$/m);

    const input = Array.from({ length: 30 }, (_, i) => `k${i}:v${i}`).join('\n');
    const produced = kafka(
      'kafka-console-producer.sh',
      ['--topic', 'mixed', '--property', 'parse.key=true', '--property', 'key.separator=:', ...at],
      `${input}\n`,
    );
    expect(produced.status).toBe(0);
    const [a, b] = await Promise.all([classic, modern]);
    const read = (r: { stdout: string }) =>
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t') as [string, string]);
    const byClassic = read(a!);
    const byModern = read(b!);
    expect([...byClassic, ...byModern].map(([, v]) => v).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `v${i}`).sort(),
    );
    expect(byClassic.length).toBeGreaterThan(0);
    expect(byModern.length).toBeGreaterThan(0);
    for (const r of [a!, b!]) expect(r.stderr).toMatch(/Processed a total of \d+ messages/);
  });
});
