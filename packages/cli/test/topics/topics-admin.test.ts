import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `klog topics create --config | describe | alter | delete` against `klog serve --config server.properties`,
 * each printing what kafka-topics.sh / kafka-configs.sh print.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-topics-admin-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

function serve(args: string[]): Promise<{ port: number; lines: string[]; stop(): Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) {
        resolve({
          port: Number(m[1]),
          lines,
          stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

describe('klog topics against klog serve --config', () => {
  it(
    'create with --config, describe (topics and configs), alter partitions and configs, delete',
    async () => {
      const props = join(scratch, 'server.properties');
      writeFileSync(
        props,
        [
          '# a Kafka server.properties, as Kafka ships it (in part)',
          'process.roles=broker,controller',
          'num.partitions=2',
          'log.retention.hours=48',
          'log.segment.bytes=1048576',
          'log.retention.check.interval.ms=300000',
          '',
        ].join('\n'),
      );
      const s = await serve([
        '--config',
        props,
        '--data-dir',
        join(scratch, 'data'),
        '--message-max-bytes',
        '2097152',
      ]);
      const at = ['--bootstrap-server', `127.0.0.1:${s.port}`];
      expect(
        s.lines.some((l) =>
          l.includes(`WARN  klog serve: ${props}: ignoring process.roles (not a setting klog has)`),
        ),
      ).toBe(true);

      expect(
        klog([
          'topics',
          'create',
          'orders',
          '--partitions',
          '2',
          '--config',
          'cleanup.policy=compact',
          '--config',
          'retention.ms=3600000',
          ...at,
        ]),
      ).toMatchObject({
        status: 0,
        // kafka-topics.sh's line: `klog topics` runs TopicCommand's code.
        stdout: 'Created topic orders.\n',
      });
      const described = klog(['topics', 'describe', 'orders', ...at]);
      expect(described.status).toBe(0);
      // The topic's own configs and the broker's static ones (server.properties, flags): what is not Kafka's default.
      expect(described.stdout).toMatch(
        /^Topic: orders\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: cleanup\.policy=compact,max\.message\.bytes=2097152,retention\.ms=3600000,segment\.bytes=1048576\n/,
      );
      expect(described.stdout.split('\n').slice(1)).toEqual([
        '\tTopic: orders\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: ',
        '\tTopic: orders\tPartition: 1\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: ',
        '',
      ]);
      expect(klog(['topics', 'describe', 'orders', '--configs', ...at]).stdout).toBe(
        [
          'Dynamic configs for topic orders are:',
          '  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact, DEFAULT_CONFIG:log.cleanup.policy=delete}',
          '  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, STATIC_BROKER_CONFIG:log.retention.ms=172800000, DEFAULT_CONFIG:log.retention.ms=604800000}',
          '',
        ].join('\n'),
      );

      expect(
        klog([
          'topics',
          'alter',
          'orders',
          '--partitions',
          '3',
          '--add-config',
          'retention.bytes=1000000,segment.ms=60000',
          '--delete-config',
          'cleanup.policy',
          ...at,
        ]),
      ).toMatchObject({ status: 0, stdout: 'Completed updating config for topic orders.\n' });
      const all = klog(['topics', 'describe', 'orders', '--configs', '--all', ...at]).stdout;
      expect(all).toContain('All configs for topic orders are:\n');
      expect(all).toContain(
        '  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}\n',
      );
      expect(all).toContain('  retention.bytes=1000000 sensitive=false');
      expect(all).toContain('  segment.ms=60000 sensitive=false');
      // kafka-topics.sh --list: the names, one a line.
      expect(klog(['topics', 'list', ...at]).stdout).toBe('orders\n');

      // Kafka's errors, one line, exit 1.
      expect(klog(['topics', 'alter', 'orders', '--add-config', 'flush.ms=-5', ...at])).toMatchObject({
        status: 1,
        stderr: expect.stringMatching(
          /^klog: topics alter: INVALID_CONFIG: Invalid value -5 for configuration flush\.ms: must be from 0 to /,
        ),
      });
      expect(klog(['topics', 'alter', 'orders', '--partitions', '2', ...at])).toMatchObject({
        status: 1,
        stderr: expect.stringMatching(/^klog: topics alter: INVALID_PARTITIONS: /),
      });
      expect(klog(['topics', 'alter', 'orders', ...at])).toMatchObject({ status: 2 });
      expect(klog(['topics', 'create', 'x', '--config', 'novalue', ...at])).toMatchObject({
        status: 2,
        stderr:
          'klog: topics create: requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".\n',
      });

      expect(klog(['topics', 'delete', 'orders', ...at])).toMatchObject({ status: 0, stdout: '' });
      // TopicCommand prints the empty list as one empty line.
      expect(klog(['topics', 'list', ...at]).stdout).toBe('\n');
      expect(klog(['topics', 'delete', 'orders', ...at])).toMatchObject({
        status: 1,
        // TopicCommand lists the topics first and says so itself (its ensureTopicExists).
        stderr: "klog: topics delete: Topic 'orders' does not exist as expected\n",
      });
      expect(await s.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );

  it('bad settings stop klog serve with one line, exit 2', () => {
    const bad = join(scratch, 'bad.properties');
    writeFileSync(bad, 'log.retention.ms=soon\n');
    expect(klog(['serve', '--port', '0', '--config', bad, '--data-dir', join(scratch, 'bad')])).toMatchObject(
      {
        status: 2,
        stderr: `klog: ${bad}: log.retention.ms "soon": expected a whole number from -1 to 9007199254740991\n`,
      },
    );
    writeFileSync(bad, 'this is not a setting\n');
    expect(klog(['serve', '--port', '0', '--config', bad])).toMatchObject({
      status: 2,
      stderr: `klog: ${bad}:1: expected key=value, got "this is not a setting"\n`,
    });
    expect(klog(['serve', '--port', '0', '--config', join(scratch, 'missing')])).toMatchObject({ status: 2 });
    expect(
      klog(['serve', '--port', '0', '--log-cleanup-policy', 'squash', '--data-dir', join(scratch, 'bad')]),
    ).toMatchObject({
      status: 2,
      stderr: 'klog: --log-cleanup-policy "squash": must be a list of delete and compact, got "squash"\n',
    });
  });
});
