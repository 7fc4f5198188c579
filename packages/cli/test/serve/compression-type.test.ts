import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, klog } from '../run-klog.js';

/**
 * `compression.type` through the tools a user has: `klog serve --compression-type` (over the same setting
 * in `--config`), topic values set by `klog topics create|alter`, kcat (librdkafka 2.0.2) producing with
 * one codec into topics stored in another and reading back, and `klog dump-log` showing what is on disk.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-compression-'));
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

function kcat(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
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

/** 200 records worth compressing, keyed, with a header: produced in a few batches. */
const messages = (tag: string) =>
  Array.from({ length: 200 }, (_, i) => `k${i}:${tag} value ${i} ${'payload '.repeat(20)}`);

describe('compression.type: the broker stores batches in the topic codec', () => {
  it(
    'serve --compression-type over --config; topics create/alter set it; kcat reads back; dump-log shows the stored codec',
    async () => {
      const props = join(scratch, 'server.properties');
      writeFileSync(props, 'compression.type=lz4\nlog.retention.hours=48\n');
      const dataDir = join(scratch, 'data');
      const s = await serve(['--data-dir', dataDir, '--config', props, '--compression-type', 'zstd']);
      const bootstrap = `127.0.0.1:${s.port}`;
      const at = ['--bootstrap-server', bootstrap];
      const create = (topic: string, codec: string) =>
        klog(['topics', 'create', topic, '--config', `compression.type=${codec}`, ...at]);
      expect(create('plain', 'uncompressed')).toMatchObject({ status: 0 });
      expect(create('kept', 'producer')).toMatchObject({ status: 0 });
      expect(create('bad', 'brotli')).toMatchObject({
        status: 1,
        stderr: expect.stringContaining('compression.type: must be one of producer, uncompressed'),
      });

      const produce = async (topic: string, codec: string, tag: string) => {
        const file = join(scratch, `${topic}-${tag}.txt`);
        writeFileSync(file, `${messages(tag).join('\n')}\n`);
        const args = ['-P', '-b', bootstrap, '-t', topic, '-K', ':', '-H', 'h=1', '-l', file];
        const idempotent = ['-X', 'enable.idempotence=true', '-X', 'linger.ms=5'];
        const out = await kcat([...args, ...idempotent, '-X', `compression.codec=${codec}`]);
        expect(out).toMatchObject({ code: 0 });
      };
      // gzip from the producer into an uncompressed topic; lz4 into the broker's default (zstd, the flag).
      await produce('plain', 'gzip', 'a');
      await produce('zdefault', 'lz4', 'a');
      await produce('kept', 'gzip', 'a');
      expect(
        klog(['topics', 'alter', 'kept', '--add-config', 'compression.type=snappy', ...at]),
      ).toMatchObject({ status: 0 });
      await produce('kept', 'gzip', 'b');

      for (const [topic, tags] of [
        ['plain', ['a']],
        ['zdefault', ['a']],
        ['kept', ['a', 'b']],
      ] as const) {
        const read = await kcat(['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-f', '%k:%s|%h\\n']);
        expect(read.code).toBe(0);
        const want = tags.flatMap((t) => messages(t).map((m) => `${m}|h=1`));
        expect(read.stdout.trim().split('\n')).toEqual(want);
      }

      // DescribeConfigs: the topic's value, the flag's (STATIC_BROKER_CONFIG), Kafka's default.
      expect(klog(['topics', 'describe', 'plain', '--configs', ...at]).stdout).toContain(
        '  compression.type=uncompressed sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:compression.type=uncompressed, STATIC_BROKER_CONFIG:compression.type=zstd, DEFAULT_CONFIG:compression.type=producer}\n',
      );
      expect(klog(['topics', 'describe', 'zdefault', '--configs', '--all', ...at]).stdout).toContain(
        '  compression.type=zstd sensitive=false synonyms={STATIC_BROKER_CONFIG:compression.type=zstd, DEFAULT_CONFIG:compression.type=producer}\n',
      );
      expect(klog(['topics', 'describe', 'kept', ...at]).stdout).toMatch(
        /\tConfigs: compression\.type=snappy,retention\.ms=172800000\n/,
      );
      expect(await s.stop()).toBe(0);

      const codecs = (dir: string, records: number) => {
        const dump = klog(['dump-log', join(dataDir, dir)]);
        expect(dump.status).toBe(0);
        const batches = dump.stdout.split('\n').filter((l) => l.startsWith('baseOffset: '));
        expect(batches.length).toBeGreaterThan(0);
        for (const b of batches) {
          expect(b).toContain('isvalid: true');
          // The idempotent producer's fields are kept through the rewrite.
          expect(b).toMatch(/ producerId: [0-9]+ producerEpoch: 0 /);
        }
        expect(batches.reduce((n, b) => n + Number(/ count: (\d+) /.exec(b)![1]), 0)).toBe(records);
        return [...new Set(batches.map((b) => / compresscodec: (\S+) /.exec(b)![1]))];
      };
      expect(codecs('plain-0', 200)).toEqual(['none']);
      expect(codecs('zdefault-0', 200)).toEqual(['zstd']);
      expect(codecs('kept-0', 400)).toEqual(['gzip', 'snappy']);

      // Without the flag, the file's compression.type is the broker default.
      const again = await serve(['--data-dir', dataDir, '--config', props]);
      const there = ['--bootstrap-server', `127.0.0.1:${again.port}`];
      expect(klog(['topics', 'describe', 'zdefault', '--configs', '--all', ...there]).stdout).toContain(
        '  compression.type=lz4 sensitive=false synonyms={STATIC_BROKER_CONFIG:compression.type=lz4, DEFAULT_CONFIG:compression.type=producer}\n',
      );
      expect(await again.stop()).toBe(0);
    },
    LONG_TIMEOUT_MS,
  );

  it('a compression.type klog does not know, by flag or in the file: one line, exit 2', () => {
    const bad = klog([
      'serve',
      '--data-dir',
      join(scratch, 'bad'),
      '--port',
      '0',
      '--compression-type',
      'LZ4',
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'klog: --compression-type "LZ4": must be one of producer, uncompressed, gzip, snappy, lz4, zstd, got "LZ4"\n',
    );
    const props = join(scratch, 'bad.properties');
    writeFileSync(props, 'compression.type=brotli\n');
    const fromFile = klog(['serve', '--data-dir', join(scratch, 'bad'), '--port', '0', '--config', props]);
    expect(fromFile.status).toBe(2);
    expect(fromFile.stderr).toMatch(
      /^klog: .*bad\.properties: compression\.type "brotli": must be one of .*, got "brotli"\n$/,
    );
  });
});
