import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRecords, decodeRecordBatch, LogSegment, Partition } from '@klog/storage/internals';
import { afterAll, describe, expect, it } from 'vitest';
import { klog } from '../run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-dump-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The segments the demo leaves behind.
const data = join(scratch, 'data');
const demo = klog(['idem-demo', '--resend', '--now-ms', '1700000000000', '--data-dir', data]);
const orders = join(data, 'orders-0');
const ordersSegment = join(orders, '00000000000000000000.log');

/** `key: value` pairs of a dump line (values have no spaces in batch lines). */
function fields(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/(\w+): (\S+)/g)) out[m[1]!] = m[2]!;
  return out;
}

/** What @klog/storage reads from a segment, to hold the dump against. */
function batchesOf(path: string) {
  const segment = LogSegment.open(path, 0, { readOnly: true });
  try {
    return [...segment.inspect()].flatMap((e) =>
      e.kind === 'batch' && e.header !== undefined
        ? [{ ...e, header: e.header, batch: decodeRecordBatch(e.bytes) }]
        : [],
    );
  } finally {
    segment.close();
  }
}

function sha(dir: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex');
}

function expectUsageError(run: ReturnType<typeof klog>, message: RegExp): void {
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n')[0]).toMatch(message);
  expect(run.stderr).toMatch(/^klog: /);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

describe('klog dump-log on the segments the demo leaves', () => {
  it('the demo ran', () => {
    expect(demo.status).toBe(0);
  });

  it('prints every batch of a partition directory as kafka-dump-log.sh does', () => {
    const run = klog(['dump-log', orders]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Dumping ${ordersSegment}`);
    expect(lines[1]).toBe('Log starting offset: 0');
    const batchLines = lines.slice(2);
    const expected = batchesOf(ordersSegment);
    expect(batchLines).toHaveLength(expected.length);
    batchLines.forEach((line, i) => {
      const { position, header, bytes } = expected[i]!;
      expect(line).toMatch(
        /^baseOffset: \d+ lastOffset: \d+ count: \d+ baseSequence: -?\d+ lastSequence: -?\d+ producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: \d+ isTransactional: false isControl: false deleteHorizonMs: OptionalLong\.empty position: \d+ CreateTime: 1700000000000 size: \d+ magic: 2 compresscodec: none crc: \d+ isvalid: true$/,
      );
      expect(fields(line)).toMatchObject({
        baseOffset: String(header.baseOffset),
        lastOffset: String(header.baseOffset + header.lastOffsetDelta),
        count: String(header.recordsCount),
        baseSequence: String(header.baseSequence),
        lastSequence: String(header.baseSequence < 0 ? -1 : header.baseSequence + header.lastOffsetDelta),
        producerId: String(header.producerId),
        producerEpoch: String(header.producerEpoch),
        position: String(position),
        size: String(bytes.length),
        crc: String(header.crc),
      });
    });
    // The demo's facts: the window fill 0..1 2..3 4..5 6..6 7..9 at base offsets 0 2 4 6 7, then pid 1001 at 15.
    expect(batchLines.slice(0, 5).map((l) => fields(l)['baseOffset'])).toEqual(['0', '2', '4', '6', '7']);
    expect(batchLines.map((l) => fields(l)['producerId'])).toContain('1001');
  });

  it('--records adds each record with its key and value', () => {
    const run = klog(['dump-log', ordersSegment, '--records']);
    expect(run.status).toBe(0);
    const recordLines = run.stdout.split('\n').filter((l) => l.startsWith('| '));
    const records = batchesOf(ordersSegment).flatMap(({ batch }) => batch.records.map((r) => ({ batch, r })));
    expect(recordLines).toHaveLength(records.length);
    recordLines.forEach((line, i) => {
      const { batch, r } = records[i]!;
      const key = Buffer.from(r.key!).toString();
      const value = Buffer.from(r.value!).toString();
      expect(line).toBe(
        `| offset: ${batch.baseOffset + r.offsetDelta} CreateTime: 1700000000000 keySize: ${r.key!.length} ` +
          `valueSize: ${r.value!.length} sequence: ${batch.baseSequence + r.offsetDelta} headerKeys: [] ` +
          `key: ${key} payload: ${value}`,
      );
    });
    expect(run.stdout).toContain('key: order-0 payload: {"order":0');
  });

  it('a directory of 8 segments is dumped in offset order', () => {
    const run = klog(['dump-log', join(data, 'narrow-0')]);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').filter((l) => l.startsWith('Log starting offset: '))).toEqual(
      Array.from({ length: 8 }, (_, i) => `Log starting offset: ${i}`),
    );
    expect(run.stdout.split('\n').filter((l) => l.startsWith('baseOffset: '))).toHaveLength(8);
  });
});

describe('klog dump-log on a corrupted copy', () => {
  function corruptCopy(name: string, damage: (bytes: Buffer) => Buffer): string {
    const dir = join(scratch, name);
    cpSync(orders, dir, { recursive: true });
    const path = join(dir, '00000000000000000000.log');
    writeFileSync(path, damage(readFileSync(path)));
    return dir;
  }
  const places = batchesOf(ordersSegment);
  const second = places[1]!;
  const last = places.at(-1)!;

  it('prints what it can, flags the bad batch, says where it stopped, exits 1, and changes nothing', () => {
    const dir = corruptCopy('bad-crc-torn', (bytes) => {
      bytes[second.position + second.bytes.length - 5]! ^= 0x01;
      return bytes.subarray(0, last.position + 70);
    });
    const before = sha(dir);
    const run = klog(['dump-log', dir, '--records']);
    expect(run.status).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    const batchLines = lines.filter((l) => l.startsWith('baseOffset: '));
    expect(batchLines).toHaveLength(places.length - 1);
    expect(batchLines.map((l) => fields(l)['isvalid'])).toEqual(
      batchLines.map((_, i) => (i === 1 ? 'false' : 'true')),
    );
    const bad = lines.indexOf(batchLines[1]!);
    expect(lines[bad + 1]).toMatch(
      new RegExp(
        `^  problem: crc at byte ${second.position + 17}: stored 0x[0-9a-f]{8} but the bytes give 0x[0-9a-f]{8}$`,
      ),
    );
    expect(lines[bad + 2]).toBe('| records not shown: the batch fails its CRC-32C');
    expect(lines.at(-2)).toBe('Found 70 invalid bytes at the end of 00000000000000000000.log');
    expect(lines.at(-1)).toBe(
      `Stopped at position ${last.position}: batchLength at byte ${last.position + 8}: ` +
        `truncated: batch needs ${last.bytes.length} bytes, the file has 70 left`,
    );
    const stderr = run.stderr.trimEnd().split('\n');
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toBe(
      `klog: dump-log: corrupt data: 2 problems in 1 of 1 file; the first: 00000000000000000000.log crc at byte ${second.position + 17}: ` +
        lines[bad + 1]!.split(': ').slice(2).join(': '),
    );
    expect(sha(dir)).toBe(before);
  });

  it('after a header that is garbage, says where a whole batch starts again', () => {
    const dir = corruptCopy('bad-header', (bytes) => {
      bytes.writeInt32BE(0x7fff0000, second.position + 8);
      return bytes;
    });
    const run = klog(['dump-log', dir]);
    expect(run.status).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('baseOffset: '))).toHaveLength(1);
    expect(lines).toContain(
      `Stopped at position ${second.position}: batchLength at byte ${second.position + 8}: ` +
        `batch of ${0x7fff0000 + 12} bytes exceeds the limit of ${64 * 1024 * 1024}`,
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(`^A whole batch with a valid CRC starts again at position ${places[2]!.position}: `),
    );
  });

  it('lists the bytes recovery cut and saved, and dumps that file by path', () => {
    const dir = corruptCopy('recovered', (bytes) => bytes.subarray(0, last.position + 70));
    // Recovery on open (as a broker would) cuts the torn batch and saves it next to the segment.
    const parent = join(scratch, 'recovered-data');
    mkdirSync(parent);
    cpSync(dir, join(parent, 'orders-0'), { recursive: true });
    const p = Partition.open(parent, 'orders', 0);
    const saved = p.recovery!.savedTo!;
    p.close();
    const run = klog(['dump-log', join(parent, 'orders-0')]);
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Not part of the log: ${saved} (70 bytes that recovery cut from a segment and kept)`,
    );
    const tail = klog(['dump-log', saved]);
    expect(tail.status).toBe(1);
    expect(tail.stdout).toBe(
      `Dumping ${saved}\nFound 70 invalid bytes at the end of ${saved.split('/').at(-1)}\n` +
        `Stopped at position 0: batchLength at byte 8: truncated: batch needs ${last.bytes.length} bytes, the file has 70 left\n`,
    );
  });

  it('escapes control characters, so a record stays one line and cannot drive the terminal', () => {
    const dataDir = join(scratch, 'control');
    const p = Partition.open(dataDir, 'weird', 0);
    appendRecords(p, [{ key: Buffer.from('k\n1'), value: Buffer.from('red \x1b[31m\\ tab\t') }], 5);
    p.close();
    const run = klog(['dump-log', join(dataDir, 'weird-0'), '--records']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('key: k\\n1 payload: red \\x1b[31m\\\\ tab\\t\n');
    expect(run.stdout).not.toContain('\x1b');
  });
});

describe('klog dump-log, bad usage: one line on stderr, exit 2', () => {
  it('no path', () => {
    const run = klog(['dump-log']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^klog: missing required argument 'path'/);
  });

  it('a path that does not exist', () => {
    expectUsageError(
      klog(['dump-log', join(scratch, 'nope')]),
      /^klog: dump-log .*nope: no such file or directory$/,
    );
  });

  it('a directory with no segment in it', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'hi');
    expectUsageError(
      klog(['dump-log', empty]),
      /no segment files \(<20-digit offset>\.log\) in this directory$/,
    );
  });

  it('--help documents the format, --records and the exit codes', () => {
    const run = klog(['dump-log', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--records');
    expect(run.stdout).toContain('kafka-dump-log.sh');
    expect(run.stdout).toContain('Exit codes: 0 all batches valid, 1 corrupt data found, 2 bad usage');
  });
});
