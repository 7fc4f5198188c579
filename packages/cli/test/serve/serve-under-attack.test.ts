import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  decodeResponse,
  ErrorCode,
  encodeRequest,
  InitProducerId,
  type InitProducerIdResponse,
} from '@klog/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `klog serve` under attack (issue 22), as a user runs it: a process on a port the kernel picks, real kcat
 * clients and raw sockets. A preloaded fixture (fixtures/fs-faults.mjs) counts the fsyncs of segment files
 * and fills the disk on demand; klog itself has no hook for either.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-attack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const fsFaults = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/fs-faults.mjs');

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly lines: string[];
  /** Resolves once a line matching `pattern` was logged (from line `from` on, now or later). */
  line(pattern: RegExp, from?: number): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', fsFaults, bin, 'serve', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const lines: string[] = [];
    const waiting: { pattern: RegExp; done: (line: string) => void }[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    // 'close', not 'exit': its stdout read to the end, so the last lines are in `lines`.
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const w of [...waiting]) {
        if (w.pattern.test(line)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.done(line);
        }
      }
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) {
        resolve({
          child,
          port: Number(m[1]),
          lines,
          line: (pattern, from = 0) =>
            new Promise((done) => {
              const seen = lines.slice(from).find((l) => pattern.test(l));
              if (seen !== undefined) done(seen);
              else waiting.push({ pattern, done });
            }),
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

const produceFlags = ['-X', 'enable.idempotence=true', '-X', 'acks=all', '-X', 'message.timeout.ms=60000'];
const lines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}-${i}`).join('\n') + '\n';

/** An ApiVersions v0 request (header v1, no client id): a frame any broker answers. */
function apiVersionsFrame(correlationId: number): Buffer {
  const frame = Buffer.alloc(14);
  frame.writeInt32BE(10, 0);
  frame.writeInt16BE(18, 4);
  frame.writeInt16BE(0, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(-1, 12);
  return frame;
}

/** A socket to the broker, open once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('case 9: SIGTERM under load', () => {
  it(
    'a client that keeps sending after shutdown began: every shutdown still flushes, writes the producer snapshot and exits 0',
    async () => {
      for (let round = 0; round < 3; round++) {
        const dataDir = join(scratch, `sigterm-${round}`);
        const s = await serve(['--data-dir', dataDir, '--auto-create-topics', '--log-level', 'debug']);
        const bootstrap = `127.0.0.1:${s.port}`;
        expect(
          (await kcat(['-P', '-b', bootstrap, '-t', 'load', ...produceFlags], lines(50, 'before'))).code,
        ).toBe(0);
        // Requests pipelined as fast as the socket takes them, responses never read: the broker's reads of
        // this connection stop (its buffers fill), and its bytes keep coming after SIGTERM.
        const flood = await open(s.port);
        flood.on('error', () => {});
        flood.on('end', () => flood.end());
        let sent = 0;
        let enough: () => void = () => {};
        const floodedEnough = new Promise<void>((r) => {
          enough = r;
        });
        const pump = () => {
          while (!flood.destroyed && flood.write(apiVersionsFrame(++sent))) if (sent === 20_000) enough();
          if (sent >= 20_000) enough();
        };
        flood.on('drain', pump);
        pump();
        await floodedEnough;
        writeFileSync(join(scratch, 'during.txt'), lines(100_000, `during-${round}`));
        const mark = s.lines.length;
        const producer = spawn(
          'kcat',
          ['-P', '-b', bootstrap, '-t', 'load', ...produceFlags, '-l', join(scratch, 'during.txt')],
          {
            stdio: 'ignore',
          },
        );
        // SIGTERM while that producer is writing too.
        await s.line(/Produce v\d+ .*acks=-1: load-0 NONE/, mark);
        const code = await s.stop('SIGTERM');
        producer.kill('SIGKILL');
        flood.destroy();
        expect(code, `round ${round}: ${s.lines.slice(-3).join(' | ')}`).toBe(0);
        expect(s.lines.at(-1)).toMatch(/klog serve: log flushed and closed; bye$/);
        const partitionDir = join(dataDir, 'load-0');
        expect(readdirSync(partitionDir).some((name) => name.endsWith('.snapshot'))).toBe(true);
      }
    },
    LONG_TIMEOUT_MS,
  );
});

describe('case 10: --flush, with what "acknowledged" means', () => {
  it('serve --help says what an acknowledged record survives under each policy', () => {
    const help = klog(['serve', '--help']).stdout;
    for (const policy of ['os', 'every-append', 'messages=N', 'ms=N']) expect(help).toContain(`  ${policy} `);
    expect(help).toMatch(/every-append +fsync before each Produce is answered/);
    expect(help).toMatch(/survives klog dying \(kill -9\), not a power/);
    expect(klog(['serve', '--flush', 'sometimes'])).toMatchObject({
      status: 2,
      stderr: 'klog: --flush "sometimes": expected os, every-append, messages=N, ms=N or messages=N,ms=M\n',
    });
    expect(klog(['serve', '--flush', 'messages=0'])).toMatchObject({ status: 2 });
  });

  it(
    'every-append fsyncs the segment before each produce is answered; os never before shutdown; ms=N while idle',
    async () => {
      const runs: Record<string, { fsyncs: number; produces: number }> = {};
      for (const policy of ['every-append', 'os', 'ms=50']) {
        const dataDir = join(scratch, `flush-${policy}`);
        const fsyncLog = join(scratch, `fsyncs-${policy}.txt`);
        writeFileSync(fsyncLog, '');
        const s = await serve(
          ['--data-dir', dataDir, '--auto-create-topics', '--flush', policy, '--log-level', 'debug'],
          {
            KLOG_TEST_FSYNC_LOG: fsyncLog,
          },
        );
        const produced = await kcat(
          [
            '-P',
            '-b',
            `127.0.0.1:${s.port}`,
            '-t',
            'durable',
            ...produceFlags,
            '-X',
            'linger.ms=0',
            '-X',
            'batch.num.messages=10',
          ],
          lines(200, policy),
        );
        expect(produced.code).toBe(0);
        if (policy === 'ms=50') {
          // The flusher runs on its own: wait for its first fsync (no request is in flight now).
          for (let i = 0; readFileSync(fsyncLog, 'utf8') === '' && i < 600; i++)
            await new Promise((r) => setTimeout(r, 100));
        }
        const fsyncs = readFileSync(fsyncLog, 'utf8').split('\n').filter(Boolean).length;
        const produces = s.lines.filter((l) => /Produce v\d+ .*acks=-1: durable-0 NONE at/.test(l)).length;
        runs[policy] = { fsyncs, produces };
        expect(await s.stop()).toBe(0);
      }
      expect(runs['every-append']!.produces).toBeGreaterThan(1);
      expect(runs['every-append']!.fsyncs).toBeGreaterThanOrEqual(runs['every-append']!.produces);
      expect(runs.os!.fsyncs).toBe(0);
      expect(runs['ms=50']!.fsyncs).toBeGreaterThan(0);
    },
    LONG_TIMEOUT_MS,
  );
});

describe('case 11: a full disk is in the log; a port in use leaves nothing behind', () => {
  it('serve on a port in use: exit 1, and no data directory is created', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    const port = (holder.address() as { port: number }).port;
    const dataDir = join(scratch, 'never-made');
    const taken = klog(['serve', '--port', String(port), '--data-dir', dataDir]);
    holder.close();
    expect(taken).toMatchObject({
      status: 1,
      stderr: `klog: cannot listen on 127.0.0.1:${port}: the address is in use\n`,
    });
    expect(existsSync(dataDir)).toBe(false);
  });

  it(
    'ENOSPC on append: the client gets KAFKA_STORAGE_ERROR and the broker logs an ERROR line naming it; once space is back, produce works',
    async () => {
      const dataDir = join(scratch, 'full');
      const marker = join(scratch, 'disk-is-full');
      const s = await serve(['--data-dir', dataDir, '--auto-create-topics'], { KLOG_TEST_DISK_FULL: marker });
      const bootstrap = `127.0.0.1:${s.port}`;
      expect((await kcat(['-P', '-b', bootstrap, '-t', 'disk', ...produceFlags], lines(10, 'ok'))).code).toBe(
        0,
      );
      writeFileSync(marker, '');
      const refused = kcat(
        ['-P', '-b', bootstrap, '-t', 'disk', '-X', 'message.timeout.ms=3000', '-X', 'retries=0'],
        lines(3, 'full'),
      );
      const error = await s.line(
        /ERROR disk-0: append failed, answered KAFKA_STORAGE_ERROR: .*ENOSPC \(no space left on the device\)/,
      );
      expect(error).toContain('.log');
      await refused;
      rmSync(marker);
      expect(
        (await kcat(['-P', '-b', bootstrap, '-t', 'disk', ...produceFlags], lines(10, 'again'))).code,
      ).toBe(0);
      const read = await kcat(['-C', '-b', bootstrap, '-t', 'disk', '-o', 'beginning', '-e', '-q']);
      expect(read.stdout.split('\n').filter((l) => l.startsWith('ok-')).length).toBe(10);
      expect(read.stdout.split('\n').filter((l) => l.startsWith('again-')).length).toBe(10);
      expect(await s.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );
});

/** Sends one frame on `socket` and resolves with the response's bytes after its size (null if it closes first). */
function exchange(socket: Socket, frame: Uint8Array): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
        socket.off('data', onData);
        socket.off('close', onClose);
        resolve(got.subarray(4, 4 + got.readInt32BE(0)));
      }
    };
    const onClose = () => resolve(null);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(frame);
  });
}

describe('case 10: a full disk when a producer id block is reserved', () => {
  it(
    'InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS (retriable) and logs an ERROR, the connection stays open; once space is back, an id',
    async () => {
      const marker = join(scratch, 'ids-disk-is-full');
      const s = await serve(['--data-dir', join(scratch, 'ids-full')], {
        KLOG_TEST_DISK_FULL: marker,
        KLOG_TEST_DISK_FULL_ALL: '1',
      });
      const socket = await open(s.port);
      const ask = async (correlationId: number) => {
        const frame = encodeRequest(InitProducerId, 4, correlationId, 'full-disk', {
          transactionalId: null,
          transactionTimeoutMs: 60_000,
          producerId: -1,
          producerEpoch: -1,
        });
        const answer = await exchange(socket, frame);
        expect(answer, 'the connection was closed instead of answered').not.toBeNull();
        return decodeResponse<InitProducerIdResponse>(InitProducerId, 4, answer as Buffer);
      };
      writeFileSync(marker, '');
      const refused = await ask(1);
      expect(refused.correlationId).toBe(1);
      expect(refused.body).toMatchObject({
        errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        producerId: -1,
        producerEpoch: -1,
      });
      await s.line(/ERROR .*InitProducerId: no producer id block could be reserved, .*ENOSPC/);
      rmSync(marker);
      const granted = await ask(2);
      expect(granted.body.errorCode).toBe(ErrorCode.NONE);
      expect(granted.body.producerId).toBeGreaterThanOrEqual(0);
      socket.destroy();
      expect(await s.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );
});

describe('case 6: max.connections and max.connections.per.ip', () => {
  it(
    'connections past the limit are closed as accepted, with one WARN line per interval saying why',
    async () => {
      for (const [flag, pattern] of [
        [
          '--max-connections',
          /WARN {2}refused a connection from 127\.0\.0\.1: 3 connections open, max\.connections is 3$/,
        ],
        [
          '--max-connections-per-ip',
          /WARN {2}refused a connection from 127\.0\.0\.1: 3 connections open from it, max\.connections\.per\.ip is 3$/,
        ],
      ] as const) {
        const s = await serve(['--data-dir', join(scratch, `conns${flag}`), flag, '3']);
        const sockets = await Promise.all(Array.from({ length: 8 }, () => open(s.port)));
        // Which were refused: the server closes them; the others answer a request.
        const fates = await Promise.all(
          sockets.map(
            (socket, i) =>
              new Promise<'served' | 'refused'>((resolve) => {
                socket.once('data', () => resolve('served'));
                socket.once('close', () => resolve('refused'));
                socket.on('error', () => {});
                socket.write(apiVersionsFrame(i));
              }),
          ),
        );
        expect(fates.filter((f) => f === 'served')).toHaveLength(3);
        expect(fates.filter((f) => f === 'refused')).toHaveLength(5);
        await s.line(pattern);
        expect(s.lines.filter((l) => l.includes('refused a connection'))).toHaveLength(1);
        for (const socket of sockets) socket.destroy();
        expect(await s.stop()).toBe(0);
      }
    },
    LONG_TIMEOUT_MS,
  );
});

describe('case 3: topic names starting with "." come back after a restart', () => {
  it(
    'kcat auto-creates and fills .hidden; after a restart it is served with every record; a stray hidden directory is reported',
    async () => {
      const dataDir = join(scratch, 'dots');
      let s = await serve(['--data-dir', dataDir, '--auto-create-topics']);
      expect(
        (await kcat(['-P', '-b', `127.0.0.1:${s.port}`, '-t', '.hidden', ...produceFlags], lines(30, 'dot')))
          .code,
      ).toBe(0);
      expect(await s.stop()).toBe(0);
      mkdirSync(join(dataDir, '.Trash-1000x'));
      s = await serve(['--data-dir', dataDir]);
      await s.line(/WARN {2}klog serve: .*\.Trash-1000x maps to no topic/);
      expect(s.lines.join('\n')).toMatch(/\(1 topic\)/);
      const read = await kcat([
        '-C',
        '-b',
        `127.0.0.1:${s.port}`,
        '-t',
        '.hidden',
        '-o',
        'beginning',
        '-e',
        '-q',
      ]);
      expect(read.stdout).toBe(lines(30, 'dot'));
      expect(await s.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );
});

describe('case 4: damage found at start is reported, in the log and by dump-log', () => {
  it(
    'a deleted inactive segment: serve counts the offsets no segment holds in one line, dump-log names the gap; a torn tail cut is a WARN',
    async () => {
      const dataDir = join(scratch, 'gaps');
      let s = await serve(['--data-dir', dataDir, '--auto-create-topics', '--segment-bytes', '1000']);
      const produced = await kcat(
        [
          '-P',
          '-b',
          `127.0.0.1:${s.port}`,
          '-t',
          'gappy',
          ...produceFlags,
          '-X',
          'linger.ms=0',
          '-X',
          'batch.num.messages=5',
        ],
        lines(1000, 'gap'),
      );
      expect(produced.code).toBe(0);
      expect(await s.stop()).toBe(0);
      const dir = join(dataDir, 'gappy-0');
      const logs = readdirSync(dir)
        .filter((n) => n.endsWith('.log'))
        .sort();
      expect(logs.length).toBeGreaterThan(3);
      const gone = logs[1]!;
      const from = Number(gone.slice(0, 20));
      const to = Number(logs[2]!.slice(0, 20)) - 1;
      for (const suffix of ['.log', '.index', '.timeindex'])
        rmSync(join(dir, gone.replace('.log', suffix)), { force: true });
      writeFileSync(join(dir, logs.at(-1)!), 'torn', { flag: 'a' });
      s = await serve(['--data-dir', dataDir]);
      // Gaps are one line, a count (compaction leaves them in every compacted log); dump-log lists them.
      const gap = await s.line(/INFO {2}klog serve: \d+ gap\(s\) of offsets/);
      expect(gap).toContain(
        `INFO  klog serve: 1 gap(s) of offsets in no segment, ${to - from + 1} offset(s) over 1 partition(s)`,
      );
      await s.line(/WARN {2}klog serve: gappy-0: .*a torn last batch/);
      expect(await s.stop()).toBe(0);
      const dump = klog(['dump-log', dir]);
      expect(dump.stdout).toContain(
        `Gap before ${join(dir, logs[2]!)}: offsets ${from}–${to} are in no segment`,
      );
      expect(dump.status).not.toBe(0);
    },
    LONG_TIMEOUT_MS,
  );
});
