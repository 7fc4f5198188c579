import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `klog serve` as a user runs it, a process on a port the kernel picks, with kcat (librdkafka 2.0.2) as the
 * client: topics made with `klog topics`, an idempotent producer, SIGTERM and SIGINT restarts, the files
 * it wrote read by `klog dump-log`.
 */
/** Real processes on a busy 2-core machine: time out only on a hang (vitest.shared.ts's LONG_TIMEOUT_MS). */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-serve-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly lines: string[];
  /** Sends `signal` and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function serve(args: string[]): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
          child,
          port: Number(m[1]),
          lines,
          async stop(signal = 'SIGTERM') {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}

function kcat(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
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

const idempotent = [
  '-X',
  'enable.idempotence=true',
  '-X',
  'acks=all',
  '-X',
  'socket.timeout.ms=1000',
  '-X',
  'message.timeout.ms=60000',
];

describe('klog serve and klog topics', () => {
  it(
    'topics create and list; kcat produces idempotently; SIGTERM and SIGINT shut down cleanly (exit 0); everything is still there, same offsets; dump-log reads the files',
    async () => {
      const dataDir = join(scratch, 'data');
      let s = await serve(['--data-dir', dataDir, '--log-level', 'debug']);
      const bootstrap = `127.0.0.1:${s.port}`;
      expect(
        klog(['topics', 'create', 'orders', '--partitions', '3', '--bootstrap-server', bootstrap]),
      ).toMatchObject({
        status: 0,
        stdout: 'Created topic orders.\n',
      });
      const again = klog(['topics', 'create', 'orders', '--bootstrap-server', bootstrap]);
      expect(again.status).toBe(1);
      expect(again.stderr).toBe(
        "klog: topics create: TOPIC_ALREADY_EXISTS: Topic 'orders' already exists.\n",
      );
      const bad = klog(['topics', 'create', 'bad name', '--bootstrap-server', bootstrap]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/^klog: topics create: INVALID_TOPIC_EXCEPTION: /);
      expect(klog(['topics', 'list', '--bootstrap-server', bootstrap]).stdout).toBe('orders\n');

      const input = Array.from({ length: 1500 }, (_, i) => `key-${i}:value ${i}\n`).join('');
      writeFileSync(join(scratch, 'messages.txt'), input);
      const produced = await kcat([
        '-P',
        '-b',
        bootstrap,
        '-t',
        'orders',
        '-K',
        ':',
        '-H',
        'h=1',
        ...idempotent,
        '-l',
        join(scratch, 'messages.txt'),
      ]);
      expect(produced.code).toBe(0);
      const before = await kcat([
        '-C',
        '-b',
        bootstrap,
        '-t',
        'orders',
        '-o',
        'beginning',
        '-e',
        '-q',
        '-f',
        '%p %o %k %s\\n',
      ]);
      expect(before.stdout.trim().split('\n')).toHaveLength(1500);
      expect(
        s.lines.some((l) =>
          /DEBUG conn .* Produce v7 correlation \d+ client "rdkafka": acks=-1: orders-\d NONE at \d+/.test(l),
        ),
      ).toBe(true);

      expect(await s.stop('SIGTERM')).toBe(0);
      expect(s.lines.some((l) => l.endsWith('INFO  SIGTERM received'))).toBe(true);
      expect(s.lines.at(-1)).toMatch(/INFO {2}klog serve: log flushed and closed; bye$/);

      s = await serve(['--data-dir', dataDir]);
      const after = await kcat([
        '-C',
        '-b',
        `127.0.0.1:${s.port}`,
        '-t',
        'orders',
        '-o',
        'beginning',
        '-e',
        '-q',
        '-f',
        '%p %o %k %s\\n',
      ]);
      const sorted = (t: string) => t.trim().split('\n').sort();
      expect(sorted(after.stdout)).toEqual(sorted(before.stdout));
      expect(await s.stop('SIGINT')).toBe(0);

      let records = 0;
      for (const dir of readdirSync(dataDir).filter((d) => d.startsWith('orders-'))) {
        const dump = klog(['dump-log', join(dataDir, dir)]);
        expect(dump.status).toBe(0);
        expect(dump.stdout).not.toContain('isvalid: false');
        for (const m of dump.stdout.matchAll(/ count: (\d+) /g)) records += Number(m[1]);
      }
      expect(records).toBe(1500);
    },
    LONG_TIMEOUT_MS,
  );

  it(
    'a fetch waiting for data does not hold up the shutdown',
    async () => {
      const dataDir = join(scratch, 'waiting');
      const s = await serve(['--data-dir', dataDir, '--auto-create-topics']);
      // kcat without -e keeps fetching at the end of the log: a long-poll always waits on the broker.
      const consumer = spawn(
        'kcat',
        ['-C', '-b', `127.0.0.1:${s.port}`, '-t', 'quiet', '-X', 'fetch.wait.max.ms=60000', '-q'],
        { stdio: 'ignore' },
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(await s.stop('SIGTERM')).toBe(0);
      consumer.kill();
    },
    LONG_TIMEOUT_MS,
  );

  it(
    'auto-creation: a topic kcat asks for is made with --num-partitions partitions',
    async () => {
      const dataDir = join(scratch, 'auto');
      const s = await serve(['--data-dir', dataDir, '--auto-create-topics', '--num-partitions', '2']);
      const produced = await kcat(
        ['-P', '-b', `127.0.0.1:${s.port}`, '-t', 'fresh', '-p', '1', ...idempotent],
        'one\ntwo\n',
      );
      expect(produced.code).toBe(0);
      expect(klog(['topics', 'list', '--bootstrap-server', `127.0.0.1:${s.port}`]).stdout).toBe('fresh\n');
      expect(
        klog(['topics', 'describe', 'fresh', '--bootstrap-server', `127.0.0.1:${s.port}`]).stdout,
      ).toMatch(/^Topic: fresh\tTopicId: \S+\tPartitionCount: 2\t/);
      expect(await s.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );
});

describe('klog serve refuses to start, in one line', () => {
  it('bad flags: exit 2', () => {
    expect(klog(['serve', '--port', '70000'])).toMatchObject({
      status: 2,
      stderr: 'klog: --port "70000": expected a whole number from 0 to 65535\n',
    });
    expect(klog(['serve', '--log-level', 'loud'])).toMatchObject({
      status: 2,
      stderr: 'klog: --log-level "loud": expected one of error, warn, info, debug\n',
    });
    expect(
      klog(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', join(scratch, 'x')]),
    ).toMatchObject({ status: 2 });
    expect(klog(['serve', '--drop-acks', '-1'])).toMatchObject({
      status: 2,
      stderr: 'klog: --drop-acks "-1": expected a whole number from 0 to 2147483647\n',
    });
    expect(klog(['serve', '--close-after-append', 'all'])).toMatchObject({
      status: 2,
      stderr: 'klog: --close-after-append "all": expected a whole number from 0 to 2147483647\n',
    });
  });

  it('a segment size storage cannot open is refused up front, with the bounds storage has, and --help says them', () => {
    const dataDir = join(scratch, 'tiny-segments');
    for (const given of ['20', '60', '2147483648']) {
      expect(klog(['serve', '--segment-bytes', given, '--port', '0', '--data-dir', dataDir])).toMatchObject({
        status: 2,
        stderr: `klog: --segment-bytes "${given}": expected a whole number from 61 to 2147483647\n`,
      });
    }
    // Refused before anything touched the disk.
    expect(existsSync(dataDir)).toBe(false);
    const help = klog(['serve', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('(log.segment.bytes, 61 to 2147483647, default 1 GiB)');
    expect(help).toContain(
      'largest request accepted: a larger frame closes its connection (socket.request.max.bytes, 64 to 2147483647, default 100 MiB)',
    );
  });

  it('a port in use, and a data directory another broker holds: exit 1, saying which', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    const port = (holder.address() as { port: number }).port;
    const taken = klog(['serve', '--port', String(port), '--data-dir', join(scratch, 'taken')]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toBe(`klog: cannot listen on 127.0.0.1:${port}: the address is in use\n`);
    holder.close();

    const dataDir = join(scratch, 'held');
    const s = await serve(['--data-dir', dataDir]);
    const second = klog(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^klog: .*${s.child.pid}`));
    expect(await s.stop()).toBe(0);
  });

  it('no broker to talk to: klog topics says so', () => {
    const r = klog(['topics', 'list', '--bootstrap-server', '127.0.0.1:1']);
    expect(r).toMatchObject({
      status: 1,
      stderr:
        'klog: cannot reach a broker at 127.0.0.1:1 (connection refused: is klog serve running there?)\n',
    });
  });
});
