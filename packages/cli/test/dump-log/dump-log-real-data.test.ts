import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRecords, buildPlainBatch, Partition } from '@klog/storage/internals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODECS, recordsFor, writeKafkaJsSegment } from '../kafkajs-segment.js';
import { bin, klog } from '../run-klog.js';

/** Issue 9 §4: `klog dump-log` on segments a real Kafka producer writes, and on what else a directory holds. */
const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-dump-real-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const batchLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('baseOffset: '));
const recordLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('| '));
const field = (line: string, name: string) => new RegExp(`${name}: (\\S+)`).exec(line)?.[1];

describe('compressed batches written by KafkaJS with its codec plugins', () => {
  const dir = join(scratch, 'clients-0');
  const segment = join(dir, '00000000000000000000.log');
  beforeAll(async () => {
    mkdirSync(dir);
    await writeKafkaJsSegment(segment);
  });

  it('every batch is printed, with its codec, and all are valid', () => {
    const run = klog(['dump-log', dir]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = batchLines(run.stdout);
    expect(lines.map((l) => field(l, 'compresscodec'))).toEqual([...CODECS]);
    expect(lines.map((l) => field(l, 'baseOffset'))).toEqual(['0', '4', '8', '12', '16']);
    expect(lines.map((l) => field(l, 'isvalid'))).toEqual(CODECS.map(() => 'true'));
    expect(lines.map((l) => field(l, 'producerId'))).toEqual(CODECS.map(() => '77'));
  });

  it('--records decompresses all four codecs and prints every record', () => {
    const run = klog(['dump-log', segment, '--records']);
    expect(run.status).toBe(0);
    const expected = CODECS.flatMap((codec, b) =>
      recordsFor(codec).map(
        (r, i) =>
          `| offset: ${b * 4 + i} CreateTime: ${1_700_000_000_000 + i} keySize: ${r.key === null ? -1 : Buffer.byteLength(r.key)} ` +
          `valueSize: ${Buffer.byteLength(r.value)} sequence: ${b * 4 + i} headerKeys: []` +
          `${r.key === null ? '' : ` key: ${r.key}`} payload: ${r.value}`,
      ),
    );
    expect(recordLines(run.stdout)).toEqual(expected);
  });

  it('a compressed batch whose records do not decompress is flagged, and the batches after it are printed', () => {
    const bytes = readFileSync(segment);
    // The gzip batch is the second; damage its compressed records and reseal nothing: the CRC fails first.
    const second = bytes.readInt32BE(8) + 12;
    const copy = join(scratch, 'damaged-gzip.log');
    const damaged = Buffer.from(bytes);
    damaged[second + 70]! ^= 0xff;
    writeFileSync(copy, damaged);
    const run = klog(['dump-log', copy, '--records']);
    expect(run.status).toBe(1);
    expect(batchLines(run.stdout)).toHaveLength(CODECS.length);
    expect(run.stdout).toContain('| records not shown: the batch fails its CRC-32C');
    expect(recordLines(run.stdout).filter((l) => l.includes('payload: '))).toHaveLength(
      (CODECS.length - 1) * 4,
    );
  });
});

describe('a flipped high byte in a 64-bit header field', () => {
  const dir = join(scratch, 'flip-src');
  const segment = join(dir, 'flip-0', '00000000000000000000.log');
  const positions: number[] = [];
  beforeAll(() => {
    const p = Partition.open(dir, 'flip', 0);
    for (let i = 0; i < 3; i++) {
      const info = appendRecords(
        p,
        [{ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) }],
        1_700_000_000_000,
      );
      positions.push(info.position);
    }
    p.close();
  });

  for (const [name, at, shown] of [
    // No producer (-1, all bits set): the high bit flipped gives 2^63 - 1.
    ['producerId', 43, `producerId: ${2n ** 63n - 1n}`],
    ['maxTimestamp', 35, `CreateTime: ${1_700_000_000_000n - 2n ** 63n}`],
    ['baseTimestamp', 27, `deleteHorizonMs: OptionalLong.empty`],
  ] as const) {
    it(`${name}: read exactly, the batch flagged, the batches after it printed`, () => {
      const copy = join(scratch, `flip-${name}.log`);
      const bytes = readFileSync(segment);
      bytes[positions[1]! + at]! ^= 0x80;
      writeFileSync(copy, bytes);
      const run = klog(['dump-log', copy, '--records']);
      expect(run.status).toBe(1);
      const lines = run.stdout.split('\n');
      expect(batchLines(run.stdout)).toHaveLength(3);
      const bad = lines.indexOf(batchLines(run.stdout)[1]!);
      expect(lines[bad]).toContain(shown);
      expect(lines[bad]).toContain('isvalid: false');
      expect(lines[bad + 1]).toMatch(
        /^ {2}problem: crc at byte \d+: stored 0x[0-9a-f]{8} but the bytes give/,
      );
      expect(lines[bad + 2]).toMatch(
        new RegExp(
          `^  problem: ${name} at byte ${positions[1]! + at}: i64 0x[0-9a-f]{16} is not a safe integer$`,
        ),
      );
      expect(recordLines(run.stdout).filter((l) => l.includes(' payload: '))).toHaveLength(2);
      expect(lines[bad + 3]).toBe('| records not shown: the batch fails its CRC-32C');
      expect(run.stdout).toContain('key: k2 payload: v2');
      expect(run.stderr).toMatch(
        /^klog: dump-log: corrupt data: 2 problems in 1 of 1 file; the first: \S+ crc at byte/,
      );
    });
  }

  it('baseOffset (outside the CRC): printed exactly, flagged by the field', () => {
    const copy = join(scratch, 'flip-baseOffset.log');
    const bytes = readFileSync(segment);
    bytes[positions[1]!]! ^= 0x80;
    writeFileSync(copy, bytes);
    const run = klog(['dump-log', copy]);
    expect(run.status).toBe(1);
    const line = batchLines(run.stdout)[1]!;
    expect(field(line, 'baseOffset')).toBe(String(1n - 2n ** 63n));
    expect(field(line, 'isvalid')).toBe('true');
    expect(run.stdout).toContain(
      `  problem: baseOffset at byte ${positions[1]}: i64 0x8000000000000001 is not a safe integer`,
    );
    expect(batchLines(run.stdout)).toHaveLength(3);
  });
});

describe('a closed pipe ends quietly', () => {
  let dir = '';
  beforeAll(() => {
    dir = join(scratch, 'many');
    const p = Partition.open(dir, 'many', 0);
    // Far more output than a pipe holds (64 KiB), so klog is still writing when head has gone.
    for (let i = 0; i < 100; i++) {
      appendRecords(
        p,
        Array.from({ length: 40 }, (_, j) => ({ key: Buffer.from(`k${j}`), value: Buffer.alloc(100, 0x61) })),
        1_700_000_000_000,
      );
    }
    p.close();
  });

  function throughHead(args: string): { status: string; stderr: string; head: string } {
    const run = spawnSync(
      'bash',
      [
        '-c',
        `"${process.execPath}" "${bin}" ${args} 2>"${scratch}/stderr" | head -2; echo "$\{PIPESTATUS[0]}"`,
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const lines = run.stdout.trimEnd().split('\n');
    return {
      status: lines.at(-1)!,
      head: lines.slice(0, -1).join('\n'),
      stderr: readFileSync(`${scratch}/stderr`, 'utf8'),
    };
  }

  it('klog dump-log … --records | head -2: two lines, no stack trace, exit 141 (as SIGPIPE)', () => {
    const { status, stderr, head } = throughHead(`dump-log "${dir}/many-0" --records`);
    expect(head).toBe(`Dumping ${dir}/many-0/00000000000000000000.log\nLog starting offset: 0`);
    expect(stderr).toBe('');
    expect(status).toBe('141');
  });

  /**
   * Run klog with its stdout a pipe whose reader is gone before klog writes a byte. `sh` holds the command
   * until the read end's 'close' (the descriptor really closed): a busy machine could otherwise start klog
   * first, and a short write into the still-open pipe would succeed.
   */
  function intoClosedPipe(args: string[], env: NodeJS.ProcessEnv = {}) {
    return new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', 'read go && exec "$0" "$@"', process.execPath, bin, ...args], {
        env: { ...process.env, ...env },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdout.on('close', () => child.stdin.end('go\n'));
      child.stdout.destroy();
    });
  }

  it('every command shares the output path: help, dump-log, idem-demo', async () => {
    const tmp = mkdtempSync(join(scratch, 'tmp-'));
    for (const args of [
      ['dump-log', '--help'],
      ['dump-log', `${dir}/many-0`],
      ['idem-demo', '--now-ms', '1'],
    ]) {
      const { code, stderr } = await intoClosedPipe(args, { TMPDIR: tmp });
      expect({ args, code, stderr }).toEqual({ args, code: 141, stderr: '' });
    }
    // idem-demo stopped half way still removes its temporary directory.
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('what a partition directory may hold besides segments', () => {
  it('a FIFO named like a segment is not opened (no hang), and is a problem', () => {
    const dir = join(scratch, 'fifo-0');
    cpSync(join(scratch, 'flip-src', 'flip-0'), dir, { recursive: true });
    expect(spawnSync('mkfifo', [join(dir, '00000000000000000009.log')]).status).toBe(0);
    const run = spawnSync(process.execPath, [bin, 'dump-log', dir], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      `Skipping ${dir}/00000000000000000009.log: named like a segment but a FIFO, not a regular file: not opened`,
    );
    expect(batchLines(run.stdout)).toHaveLength(3);
    // By path: bad usage, at once.
    const direct = spawnSync(process.execPath, [bin, 'dump-log', join(dir, '00000000000000000009.log')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(direct.status).toBe(2);
    expect(direct.stderr).toMatch(/: a FIFO, not a segment file or a partition directory\n$/);
  });

  it('a file that is not a segment is ignored as Kafka ignores it, not read as corrupt data', () => {
    const dir = join(scratch, 'readme-0');
    cpSync(join(scratch, 'flip-src', 'flip-0'), dir, { recursive: true });
    writeFileSync(join(dir, 'README.md'), '# notes\nnot a segment\n');
    const inDir = klog(['dump-log', dir]);
    expect(inDir.status).toBe(0);
    expect(inDir.stderr).toBe(`Ignoring unknown file ${dir}/README.md\n`);
    const byPath = klog(['dump-log', join(dir, 'README.md')]);
    expect(byPath.status).toBe(0);
    expect(byPath.stdout).toBe(`Dumping ${dir}/README.md\n`);
    expect(byPath.stderr).toBe(`Ignoring unknown file ${dir}/README.md\n`);
  });

  it("a partition's partition.metadata (its topic id, as klog serve and Kafka write it) is not an unknown file", () => {
    const dir = join(scratch, 'with-id-0');
    cpSync(join(scratch, 'flip-src', 'flip-0'), dir, { recursive: true });
    writeFileSync(join(dir, 'partition.metadata'), 'version: 0\ntopic_id: Dx4tPEtaaXiHlqW0w9Lh8A');
    const inDir = klog(['dump-log', dir]);
    expect([inDir.status, inDir.stderr]).toEqual([0, '']);
    // Given by path it is still not a segment: Kafka's tool ignores it.
    const byPath = klog(['dump-log', join(dir, 'partition.metadata')]);
    expect(byPath.stderr).toBe(`Ignoring unknown file ${dir}/partition.metadata\n`);
  });

  it('an empty segment says so', () => {
    const dir = join(scratch, 'empty-0');
    mkdirSync(dir);
    writeFileSync(join(dir, '00000000000000000000.log'), '');
    const run = klog(['dump-log', dir]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      `Dumping ${dir}/00000000000000000000.log\nLog starting offset: 0\n00000000000000000000.log is empty: 0 bytes, no batches\n`,
    );
  });

  it('a data directory that holds partitions gets a hint', () => {
    const run = klog(['dump-log', join(scratch, 'flip-src')]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `klog: dump-log ${scratch}/flip-src: this is a data directory, not a partition: it holds 1 partition directory (flip-0); ` +
        `dump one, e.g. klog dump-log ${scratch}/flip-src/flip-0\n`,
    );
  });
});

describe("Kafka's flag names", () => {
  const dir = () => join(scratch, 'flip-src', 'flip-0');

  it('--files takes comma-separated paths, as kafka-dump-log.sh does', () => {
    const seg = join(dir(), '00000000000000000000.log');
    const run = klog(['dump-log', '--files', `${seg},${seg}`]);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').filter((l) => l.startsWith('Dumping '))).toEqual([
      `Dumping ${seg}`,
      `Dumping ${seg}`,
    ]);
    expect(klog(['dump-log', '--files', seg]).stdout).toBe(klog(['dump-log', seg]).stdout);
  });

  it('--print-data-log is --records', () => {
    const run = klog(['dump-log', dir(), '--print-data-log']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(klog(['dump-log', dir(), '--records']).stdout);
    expect(run.stdout).toContain('key: k0 payload: v0');
  });

  it('--deep-iteration prints each record without key and value', () => {
    const run = klog(['dump-log', dir(), '--deep-iteration']);
    expect(run.status).toBe(0);
    expect(recordLines(run.stdout)).toEqual(
      [0, 1, 2].map(
        (i) => `| offset: ${i} CreateTime: 1700000000000 keySize: 2 valueSize: 2 sequence: -1 headerKeys: []`,
      ),
    );
  });

  it('--deep-iteration names offsets that do not follow on, on stderr, as Kafka does', () => {
    const gap = join(scratch, 'gap-0');
    mkdirSync(gap);
    const first = buildPlainBatch([{ key: null, value: Buffer.from('a') }], 0, 1_700_000_000_000);
    const later = buildPlainBatch([{ key: null, value: Buffer.from('b') }], 5, 1_700_000_000_000);
    writeFileSync(join(gap, '00000000000000000000.log'), Buffer.concat([first, later]));
    const run = klog(['dump-log', gap, '--deep-iteration']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(
      `Non-consecutive offsets in ${gap}/00000000000000000000.log\n  0 is followed by 5\n`,
    );
  });

  it('--help names them, the codecs, and the exit code of a closed pipe', () => {
    const run = klog(['dump-log', '--help']);
    for (const text of [
      '--files',
      '--print-data-log',
      '--deep-iteration',
      'gzip, snappy, lz4, zstd',
      '141',
      'Ignoring unknown file',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });
});

describe('one batch size rule for dump-log and for opening a partition', () => {
  it('a 2 MiB batch, appended under a 4 MiB limit, is valid to both, whatever the setting on reopen', () => {
    const data = join(scratch, 'big');
    const p = Partition.open(data, 'big', 0, { maxBatchBytes: 4 * 1024 * 1024 });
    appendRecords(p, [{ key: null, value: Buffer.alloc(2 * 1024 * 1024, 0x7a) }], 1_700_000_000_000);
    appendRecords(p, [{ key: null, value: Buffer.from('after') }], 1_700_000_000_000);
    p.close();
    const run = klog(['dump-log', join(data, 'big-0')]);
    expect(run.status).toBe(0);
    expect(batchLines(run.stdout).map((l) => field(l, 'isvalid'))).toEqual(['true', 'true']);
    const reopened = Partition.open(data, 'big', 0); // the default limit, 1 MiB
    try {
      expect(reopened.recovery).toBeUndefined();
      expect(reopened.log.logEndOffset).toBe(2);
    } finally {
      reopened.close();
    }
  });
});
