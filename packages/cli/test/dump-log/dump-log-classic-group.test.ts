import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { encodeGroupMetadataKey, encodeGroupMetadataValue, offsetsPartitionFor } from '@klog/protocol';
import { appendRecords, Partition } from '@klog/storage/internals';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `klog dump-log --offsets-decoder` on a classic group's GroupMetadata record (type 2): for protocol type
 * `consumer`, each member's subscription and assignment are decoded as Kafka 4.1's
 * `DumpLogSegments.OffsetsMessageParser.prepareGroupMetadataValue` does (ConsumerProtocolSubscription /
 * ConsumerProtocolAssignment JSON), and left in base64 where Kafka leaves them.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-dump-classic-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const decodedLines = (dir: string) => {
  const run = klog(['dump-log', dir, '--offsets-decoder']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout
    .split('\n')
    .filter((l) => l.startsWith('| offset: '))
    .map((l) => l.replace(/^.* headerKeys: \[\] /, ''));
};

function serve(dataDir: string): Promise<{ child: ChildProcess; port: number; exited: Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--group-initial-rebalance-delay-ms', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise((done) => child.once('exit', done));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) resolve({ child, port: Number(m[1]), exited });
    });
  });
}

describe('a KafkaJS consumer group written by klog serve', { timeout: LONG_TIMEOUT_MS }, () => {
  it("prints the member's subscription (topics) and assignment (partitions) as JSON", async () => {
    const dataDir = join(scratch, 'data');
    const server = await serve(dataDir);
    try {
      const kafka = new Kafka({
        clientId: 'dumper',
        brokers: [`127.0.0.1:${server.port}`],
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true });
      await admin.disconnect();
      const consumer = kafka.consumer({ groupId: 'classic' });
      await consumer.connect();
      // GROUP_JOIN comes after SyncGroup: the group's metadata, with the assignment, is then written.
      const joined = new Promise<void>((done) => consumer.on(consumer.events.GROUP_JOIN, () => done()));
      await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
      await consumer.run({ eachMessage: async () => {} });
      await joined;
      await consumer.disconnect();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const lines = decodedLines(join(dataDir, `__consumer_offsets-${offsetsPartitionFor('classic', 50)}`));
    const withMember = lines.find(
      (l) => l.includes('"protocolType":"consumer"') && l.includes('"members":[{'),
    );
    expect(withMember).toBeDefined();
    const payload = JSON.parse(withMember!.replace(/^.* payload: /, '')) as {
      data: { members: { subscription: unknown; assignment: unknown }[] };
    };
    const [member] = payload.data.members;
    // KafkaJS writes version 0 of both (its MemberMetadata and MemberAssignment encoders), user data empty.
    expect(member!.subscription).toEqual({ topics: ['orders'], userData: '' });
    expect(member!.assignment).toEqual({
      assignedPartitions: [{ topic: 'orders', partitions: [0, 1] }],
      userData: '',
    });
  });
});

/** A GroupMetadata value of one member with these bytes, under a group's key. */
const groupRecord = (
  group: string,
  protocolType: string,
  subscription: Uint8Array,
  assignment: Uint8Array,
) => ({
  key: encodeGroupMetadataKey(group),
  value: encodeGroupMetadataValue({
    protocolType,
    generation: 1,
    protocol: 'range',
    leader: 'm',
    currentStateTimestamp: -1,
    members: [
      {
        memberId: 'm',
        groupInstanceId: null,
        clientId: 'c',
        clientHost: '/127.0.0.1',
        rebalanceTimeout: 1000,
        sessionTimeout: 100,
        subscription,
        assignment,
      },
    ],
  }),
});

const hex = (s: string) => Buffer.from(s.replaceAll(' ', ''), 'hex');
// ConsumerProtocolSubscription v3: topics [foo], userData null, ownedPartitions [foo [0]], generationId 0,
// rackId "rack" (the bytes of Kafka's DumpLogSegmentsTest's subscription).
const SUBSCRIPTION_V3 = hex(
  '0003 00000001 0003666f6f ffffffff 00000001 0003666f6f 00000001 00000000 00000000 00047261636b',
);
// ConsumerProtocolAssignment v3: assignedPartitions [foo [0]], userData 0x0102.
const ASSIGNMENT_V3 = hex('0003 00000001 0003666f6f 00000001 00000000 00000002 0102');

describe('the fields Kafka prints, and where it keeps the bytes', () => {
  it('every field of version 3; base64 for bytes that do not read, or another protocol type', () => {
    const p = Partition.open(scratch, '__consumer_offsets', 3);
    for (const r of [
      groupRecord('v3', 'consumer', SUBSCRIPTION_V3, ASSIGNMENT_V3),
      // Kafka's own malformed case: neither parses, both stay base64.
      groupRecord('bad', 'consumer', Buffer.from('Subscription'), Buffer.from('Assignment')),
      // An empty assignment (a member the leader gave nothing to write yet) does not parse either.
      groupRecord('empty', 'consumer', SUBSCRIPTION_V3, new Uint8Array(0)),
      groupRecord('connect', 'connect', SUBSCRIPTION_V3, ASSIGNMENT_V3),
    ]) {
      appendRecords(p, [r], 1_700_000_000_000);
    }
    p.close();
    const member = (sub: string, asg: string) =>
      `"rebalanceTimeout":1000,"sessionTimeout":100,"subscription":${sub},"assignment":${asg}}]}}`;
    const v3Sub =
      '{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"}';
    const lines = decodedLines(join(scratch, '__consumer_offsets-3'));
    expect(lines.map((l) => l.slice(l.indexOf('"rebalanceTimeout"')))).toEqual([
      member(v3Sub, '{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":"AQI="}'),
      member('"U3Vic2NyaXB0aW9u"', '"QXNzaWdubWVudA=="'),
      member(v3Sub, '""'),
      member(
        `"${Buffer.from(SUBSCRIPTION_V3).toString('base64')}"`,
        `"${Buffer.from(ASSIGNMENT_V3).toString('base64')}"`,
      ),
    ]);
  });
});
