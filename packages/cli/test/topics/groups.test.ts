import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { offsetsPartitionFor } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `klog groups` and `klog dump-log --offsets-decoder` as a user runs them: `klog serve` as a process, a
 * kcat -G consumer that reads a topic to its end and commits, then the group listed, described (committed
 * offset, log end, lag per partition), deleted, and its records read back from __consumer_offsets.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-groups-'));
let server: { child: ChildProcess; port: number; exited: Promise<number | null> };

beforeAll(async () => {
  server = await new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--port',
        '0',
        '--data-dir',
        join(scratch, 'data'),
        '--group-initial-rebalance-delay-ms',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) resolve({ child, port: Number(m[1]), exited });
    });
  });
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(scratch, { recursive: true, force: true });
});

function kcat(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-b', `127.0.0.1:${server.port}`, '-E', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('klog groups', { timeout: LONG_TIMEOUT_MS }, () => {
  it('list, describe and delete a group kcat -G consumed with; its records in __consumer_offsets, decoded', async () => {
    const bootstrap = ['--bootstrap-server', `127.0.0.1:${server.port}`];
    expect(klog(['topics', 'create', 'orders', '--partitions', '3', ...bootstrap]).status).toBe(0);
    const lines = Array.from({ length: 30 }, (_, i) => `k${i}:v${i}`).join('\n');
    expect((await kcat(['-P', '-t', 'orders', '-K', ':', '-p', '-1'], `${lines}\n`)).code).toBe(0);
    // kafka-consumer-groups.sh --list --state: GROUP at least 25 wide, STATE 20 (ConsumerGroupService.printGroupInfo).
    const listLine = (group: string, state: string) => `${group.padEnd(25)} ${state.padEnd(20)}\n`;
    expect(klog(['groups', 'list', ...bootstrap]).stdout).toBe(listLine('GROUP', 'STATE'));
    // A balanced consumer that reads to the end of every partition (-e), commits, and leaves.
    const consumed = await kcat([
      '-G',
      'billing',
      '-X',
      'auto.offset.reset=earliest',
      '-e',
      '-q',
      '-f',
      '%k\\n',
      'orders',
    ]);
    expect(consumed.code).toBe(0);
    expect(consumed.stdout.trim().split('\n').sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `k${i}`).sort(),
    );

    expect(klog(['groups', 'list', ...bootstrap]).stdout).toBe(
      listLine('GROUP', 'STATE') + listLine('billing', 'Empty'),
    );
    const described = klog(['groups', 'describe', 'billing', ...bootstrap]);
    expect(described.status).toBe(0);
    const out = described.stdout.split('\n');
    // kafka-consumer-groups.sh --describe: the state on stderr, the table on stdout, each row led by a newline.
    expect(described.stderr).toBe("\nConsumer group 'billing' has no active members.\n");
    expect(out[0]).toBe('');
    expect(out[1]).toMatch(
      /^GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID$/,
    );
    const rows = out
      .slice(2)
      .filter((l) => l !== '')
      .map((l) => l.split(/\s+/));
    expect(rows.map((r) => [r[0], r[1], r[2], r[5]])).toEqual([
      ['billing', 'orders', '0', '0'],
      ['billing', 'orders', '1', '0'],
      ['billing', 'orders', '2', '0'],
    ]);
    // Committed = log end on each partition, and they add up to what was produced.
    expect(rows.every((r) => r[3] === r[4])).toBe(true);
    expect(rows.reduce((n, r) => n + Number(r[3]), 0)).toBe(30);

    expect(klog(['groups', 'delete', 'billing', ...bootstrap]).stdout).toBe(
      "Deletion of requested consumer groups ('billing') was successful.\n",
    );
    const again = klog(['groups', 'delete', 'billing', ...bootstrap]);
    expect([again.status, again.stderr]).toEqual([
      1,
      "klog: groups delete: Group 'billing' could not be deleted due to: GROUP_ID_NOT_FOUND: The group id does not exist.\n",
    ]);
    const gone = klog(['groups', 'describe', 'billing', ...bootstrap]);
    expect([gone.status, gone.stderr]).toEqual([
      1,
      "klog: groups describe: Consumer group 'billing' does not exist.\n",
    ]);

    // The group's partition of __consumer_offsets, as kafka-dump-log.sh --offsets-decoder shows it.
    const dir = join(scratch, 'data', `__consumer_offsets-${offsetsPartitionFor('billing', 50)}`);
    const dump = klog(['dump-log', dir, '--offsets-decoder']).stdout;
    expect(dump).toContain(
      'key: {"type":"2","data":{"group":"billing"}} payload: {"version":"3","data":{"protocolType":"consumer","generation":1,"protocol":"range"',
    );
    expect(dump).toMatch(
      /key: \{"type":"1","data":\{"group":"billing","topic":"orders","partition":0\}\} payload: \{"version":"3","data":\{"offset":\d+,"leaderEpoch":-1,"metadata":"","commitTimestamp":\d+\}\}/,
    );
    expect(dump).toContain(
      'key: {"type":"1","data":{"group":"billing","topic":"orders","partition":2}} payload: <DELETE>',
    );
    expect(dump).toContain('key: {"type":"2","data":{"group":"billing"}} payload: <DELETE>');
  });

  it('no broker there: one line, exit 1', () => {
    const r = klog(['groups', 'list', '--bootstrap-server', '127.0.0.1:1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^klog: cannot reach a broker at 127\.0\.0\.1:1 \(connection refused: is klog serve running there\?\)\n$/,
    );
  });
});
