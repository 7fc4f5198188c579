import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeGroups, LeaveGroup } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedOffsets, tpKey } from '../../src/kafka-tools/clients.js';
import { AdminClient } from '../../src/topics/admin-client.js';
import { kafka, kafkaBin, type Server, startServer } from './tool-runner.js';

/**
 * kafka-console-consumer.sh in a classic group when things go wrong around it, as Kafka's consumer takes
 * them: its coordinator removes it (an admin's LeaveGroup naming its member id, as
 * Admin.removeMembersFromConsumerGroup sends), or the broker stops and starts again.
 */
const scratch = mkdtempSync(join(tmpdir(), 'klog-console-commits-'));
let server: Server;
let admin: AdminClient;
let at: string[];

beforeAll(async () => {
  server = await startServer(join(scratch, 'data'));
  at = ['--bootstrap-server', `localhost:${server.port}`];
  expect(kafka('kafka-topics.sh', ['--create', '--topic', 'events', '--partitions', '1', ...at]).status).toBe(
    0,
  );
  admin = await AdminClient.connect('127.0.0.1', server.port);
});
afterAll(async () => {
  admin?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(scratch, { recursive: true, force: true });
});

function consoleConsumer(group: string, args: string[]) {
  return spawn(
    join(kafkaBin, 'kafka-console-consumer.sh'),
    ['--topic', 'events', '--group', group, '--from-beginning', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '' } },
  );
}

/** A running tool whose output is watched: `until` resolves when a predicate on what it printed holds. */
function watch(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  const waiters: { test: () => boolean; done: () => void; fail: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters])
      if (w.test()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
  };
  child.stdout!.on('data', (c) => {
    out.stdout += c;
    check();
  });
  child.stderr!.on('data', (c) => {
    out.stderr += c;
    check();
  });
  // A tool that exits while something is awaited fails the wait at once, with what it printed.
  let closed: number | null | undefined;
  const exited = new Promise<number | null>((done) =>
    child.once('close', (code) => {
      closed = code;
      for (const w of waiters.splice(0))
        w.fail(new Error(`exited ${code}; stdout:\n${out.stdout}\nstderr:\n${out.stderr}`));
      done(code);
    }),
  );
  const until = (test: () => boolean, what: string, ms = 60_000) =>
    new Promise<void>((done, fail) => {
      if (test()) return done();
      if (closed !== undefined)
        return fail(new Error(`exited ${closed}; stdout:\n${out.stdout}\nstderr:\n${out.stderr}`));
      const timer = setTimeout(
        () => fail(new Error(`no ${what} within ${ms} ms; stdout:\n${out.stdout}\nstderr:\n${out.stderr}`)),
        ms,
      );
      waiters.push({
        test,
        done: () => {
          clearTimeout(timer);
          done();
        },
        fail: (e) => {
          clearTimeout(timer);
          fail(e);
        },
      });
    });
  return { out, until, exited };
}

async function membersOn(port: number, group: string): Promise<string[]> {
  const c = await AdminClient.connect('127.0.0.1', port);
  try {
    const res = await c.request(DescribeGroups, { groups: [group], includeAuthorizedOperations: false });
    return (res.groups[0]?.members ?? []).map((m) => m.memberId);
  } finally {
    c.close();
  }
}

async function membersOf(group: string): Promise<string[]> {
  const res = await admin.request(DescribeGroups, { groups: [group], includeAuthorizedOperations: false });
  return (res.groups[0]?.members ?? []).map((m) => m.memberId);
}

describe('kafka-console-consumer.sh when its group removes it', () => {
  it('warns that its commit failed, commits nothing as a removed member, rejoins and keeps consuming', async () => {
    expect(kafka('kafka-console-producer.sh', ['--topic', 'events', ...at], 'one\ntwo\nthree\n').status).toBe(
      0,
    );
    const child = consoleConsumer('removed', at);
    const tool = watch(child);
    try {
      await tool.until(() => tool.out.stdout === 'one\ntwo\nthree\n', 'three records');
      const [first] = await membersOf('removed');
      expect(first).toBeDefined();
      const left = await admin.request(LeaveGroup, {
        groupId: 'removed',
        memberId: '',
        members: [{ memberId: first!, groupInstanceId: null, reason: 'removed by the test' }],
      } as never);
      expect(left.errorCode).toBe(0);

      // Its next heartbeat is UNKNOWN_MEMBER_ID: the commit before the rejoin (asynchronous, as
      // ConsumerCoordinator.onJoinPrepare's) is refused in the consumer, since the broker would take
      // generation -1 as an admin's commit, and Kafka's warning says so.
      const refused =
        "WARN [Consumer clientId=console-consumer, groupId=removed] Asynchronous auto-commit of offsets {events-0=OffsetAndMetadata{offset=3, leaderEpoch=null, metadata=''}} failed: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group. (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)\n";
      await tool.until(() => tool.out.stderr.includes(refused), 'the commit warning');
      expect((await committedOffsets(admin, 'removed')).get(tpKey('events', 0))).toBeUndefined();

      // It joins again under a new member id and, with nothing committed, reads from the earliest again.
      await tool.until(
        () => tool.out.stdout === 'one\ntwo\nthree\none\ntwo\nthree\n',
        'the records read again',
      );
      const again = await membersOf('removed');
      expect(again).toHaveLength(1);
      expect(again[0]).not.toBe(first);
      expect(kafka('kafka-console-producer.sh', ['--topic', 'events', ...at], 'four\n').status).toBe(0);
      await tool.until(() => tool.out.stdout.endsWith('four\n'), 'the record produced after the rejoin');
    } finally {
      child.kill('SIGINT');
    }
    expect(await tool.exited).toBe(130);
    expect(tool.out.stderr).toContain('Processed a total of 7 messages');
    // Its close commits as the member it now is.
    expect((await committedOffsets(admin, 'removed')).get(tpKey('events', 0))).toBe(4);
  }, 120_000);
});

describe('kafka-console-consumer.sh when the broker stops and starts again', () => {
  it('warns while it cannot connect, connects again and goes on in the same group; Ctrl-C while the broker is away still ends it', async () => {
    const dir = join(scratch, 'restarts');
    // A port below Linux's ephemeral range (32768 and up), so that no client's own end takes it while the
    // broker is down; another taken one is tried.
    let own: Server | undefined;
    for (let attempt = 0; own === undefined; attempt++)
      own = await startServer(dir, 20_000 + randomInt(10_000)).catch((e) => {
        if (attempt >= 5) throw e;
        return undefined;
      });
    const port = own.port;
    const to = ['--bootstrap-server', `localhost:${port}`];
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'events', '--partitions', '1', ...to]).status,
    ).toBe(0);
    expect(kafka('kafka-console-producer.sh', ['--topic', 'events', ...to], 'a\nb\n').status).toBe(0);
    const child = consoleConsumer('restarts', to);
    const tool = watch(child);
    const warning = `WARN [Consumer clientId=console-consumer, groupId=restarts] Connection to node -1 (localhost/127.0.0.1:${port}) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)\n`;
    try {
      await tool.until(() => tool.out.stdout === 'a\nb\n', 'two records');
      const [member] = await membersOn(port, 'restarts');
      own.child.kill('SIGTERM');
      await own.exited;
      await tool.until(() => tool.out.stderr.includes(warning), "NetworkClient's warning");
      own = await startServer(dir, port);
      expect(kafka('kafka-console-producer.sh', ['--topic', 'events', ...to], 'c\n').status).toBe(0);
      await tool.until(() => tool.out.stdout === 'a\nb\nc\n', 'the record produced after the restart');
      // The same member, from the group the broker loaded again: no rejoin, nothing read twice.
      expect(await membersOn(port, 'restarts')).toEqual([member]);

      // Stopped again, and Ctrl-C while the consumer waits for it.
      own.child.kill('SIGTERM');
      await own.exited;
      const warned = tool.out.stderr.split(warning).length;
      await tool.until(() => tool.out.stderr.split(warning).length > warned, 'a second warning');
    } finally {
      child.kill('SIGINT');
    }
    expect(await tool.exited).toBe(130);
    // Its closing commit is given up on without a line of its own (KafkaConsumer.close logs that at debug).
    expect(tool.out.stderr).not.toContain('auto-commit of offsets');
    expect(tool.out.stderr.endsWith('Processed a total of 3 messages\n')).toBe(true);
    // Started once more, the broker holds what the consumer committed while the broker was up: nothing
    // unless an auto-commit (every 5 s) fell in that time, and never past what it printed.
    own = await startServer(dir, port);
    try {
      const c = await AdminClient.connect('127.0.0.1', port);
      const committed = (await committedOffsets(c, 'restarts')).get(tpKey('events', 0));
      c.close();
      expect([undefined, 2, 3]).toContain(committed);
    } finally {
      own.child.kill('SIGTERM');
      await own.exited;
    }
  }, 120_000);

  it('with --timeout-ms, a broker that stays away ends it as a timeout: TimeoutException, the count, exit 0', async () => {
    const own = await startServer(join(scratch, 'timeout'));
    const to = ['--bootstrap-server', `localhost:${own.port}`];
    expect(kafka('kafka-console-producer.sh', ['--topic', 'events', ...to], 'only\n').status).toBe(0);
    const child = consoleConsumer('timeout', ['--timeout-ms', '6000', ...to]);
    const tool = watch(child);
    try {
      await tool.until(() => tool.out.stdout === 'only\n', 'the record');
      // Killed: its connections reset at once, well inside the consumer's 6 s.
      own.child.kill('SIGKILL');
      await own.exited;
      expect(await tool.exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(tool.out.stderr).toContain('could not be established. Node may not be available.');
    expect(tool.out.stderr).toContain(
      'ERROR Error processing message, terminating consumer process:  (org.apache.kafka.tools.consumer.ConsoleConsumer)\norg.apache.kafka.common.errors.TimeoutException\n',
    );
    expect(tool.out.stderr.endsWith('Processed a total of 1 messages\n')).toBe(true);
  }, 120_000);
});
