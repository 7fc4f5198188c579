import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildPlainBatch,
  buildProducerBatch,
  computeBatchCrc,
  decodeRecordBatch,
  encodeRecordBatch,
  Partition,
  segmentFileName,
} from '@klog/storage/internals';
import { createRecordsBatch, Reader, readRecordsBatch } from '@platformatic/kafka';
import { parseBenchArgs, runBenchMain, UsageError } from './args.js';
import { BENCH_NOW_MS, recordInputs } from './data.js';
import { machineInfo } from './machine.js';

/**
 * Storage figures that are whole operations on large files (opening a log,
 * recovering a segment), each printed as a time and as a ratio to a baseline
 * measured in the same run on the same files: the ratio is the figure to read.
 * Each case runs `rounds` times, subject and baseline alternating which goes first;
 * the median of the per-round ratios is printed. No assertion: a script with figures.
 *
 *   pnpm bench:storage [--quick] [--only recovery]
 */

export interface Figure {
  readonly label: string;
  readonly subjectMs: number;
  readonly baselineMs: number;
  /** subject time / baseline time, median over rounds. */
  readonly ratio: number;
  readonly note: string;
}

const time = (fn: () => void): number => {
  const started = performance.now();
  fn();
  return performance.now() - started;
};

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Run `subject` and `baseline` `rounds` times, alternating; medians of the times and of the per-round ratios. */
export interface Side {
  /** Outside the timed part, before and after (opening and closing files, say). */
  readonly setup?: () => void;
  readonly run: () => void;
  readonly teardown?: () => void;
}

const timeSide = (side: (() => void) | Side): number => {
  if (typeof side === 'function') return time(side);
  side.setup?.();
  const t = time(side.run);
  side.teardown?.();
  return t;
};

export function compare(
  rounds: number,
  subject: (() => void) | Side,
  baseline: (() => void) | Side,
): Pick<Figure, 'subjectMs' | 'baselineMs' | 'ratio'> {
  const s: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let ts: number;
    let tb: number;
    if (round % 2 === 0) {
      ts = timeSide(subject);
      tb = timeSide(baseline);
    } else {
      tb = timeSide(baseline);
      ts = timeSide(subject);
    }
    s.push(ts);
    b.push(tb);
    ratios.push(ts / tb);
  }
  return { subjectMs: median(s), baselineMs: median(b), ratio: median(ratios) };
}

/** Read a whole file in 1 MiB reads: the least any open that looks at every byte can cost. */
export function readWhole(path: string): void {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(1024 * 1024);
  try {
    let pos = 0;
    for (let n = readSync(fd, buf, 0, buf.length, pos); n > 0; n = readSync(fd, buf, 0, buf.length, pos)) {
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A crafted active segment: a header every 64 bytes that decodes and claims a batch
 * reaching far into the file, with a wrong CRC. Before the linear search, recovery
 * checksummed each claimed batch: 34 s to open 3 MiB. Then one real batch at the end.
 */
function craftedSegment(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let p = 0; p + 61 <= size; p += 64) {
    bytes.writeInt32BE(Math.min(1024 * 1024, size - p) - 12, p + 8);
    bytes[p + 16] = 2;
    bytes.writeUInt32BE(p, p + 17);
    bytes.writeBigInt64BE(-1n, p + 43);
  }
  const real = buildPlainBatch(recordInputs(1, 100), 0, BENCH_NOW_MS);
  real.copy(bytes, size - real.length);
  return bytes;
}

function recoveryFigures(scratch: string, quick: boolean): Figure[] {
  const size = quick ? 16 * 1024 * 1024 : 64 * 1024 * 1024;
  const rounds = quick ? 3 : 5;
  const bytes = craftedSegment(size);
  const dataDir = join(scratch, 'crafted');
  const dir = join(dataDir, 'crafted-0');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, segmentFileName(0));
  let report = '';
  const fig = compare(
    rounds,
    () => {
      // Outside nothing: recovery cuts the file, so each round starts from the crafted bytes again.
      writeFileSync(path, bytes);
      const p = Partition.open(dataDir, 'crafted', 0);
      report = `${p.recovery?.kind}, ${p.recovery?.batchesAfter} whole batch found in the cut bytes`;
      p.close();
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    },
    () => {
      writeFileSync(path, bytes);
      readWhole(path);
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    },
  );
  return [
    {
      label: `open a partition whose ${size / 1024 / 1024} MiB active segment is crafted (a plausible header every 64 bytes)`,
      ...fig,
      note: `both sides write the file first; recovery: ${report}; baseline: write + one read of the file`,
    },
  ];
}

/** A log of `bytes` of 1 KiB records, 10 to a batch (as a client batching 16 KiB sends them), 128 MiB segments. */
function writeLog(scratch: string, bytes: number): { dataDir: string; offsets: number } {
  const dataDir = join(scratch, `log-${bytes}`);
  const p = Partition.open(dataDir, 'bench', 0, { segmentBytes: 128 * 1024 * 1024 });
  const records = recordInputs(10, 1024, 3);
  let seq = 0;
  while (p.log.size < bytes) {
    const batch = buildProducerBatch(records, 0, BENCH_NOW_MS + seq, {
      producerId: 1,
      producerEpoch: 0,
      baseSequence: seq,
    });
    if (p.appendProducerBatch(batch).kind !== 'Append') throw new Error('log writer was refused');
    seq += 10;
  }
  const offsets = p.logEndOffset;
  p.close();
  return { dataDir, offsets };
}

/** A small seeded generator, so both sides fetch the same offsets. */
function randoms(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function fetchFigures(scratch: string, quick: boolean): Figure[] {
  const bytes = quick ? 128 * 1024 * 1024 : 1024 * 1024 * 1024;
  const { dataDir, offsets } = writeLog(scratch, bytes);
  const p = Partition.open(dataDir, 'bench', 0, { segmentBytes: 128 * 1024 * 1024 });
  const next = randoms(7);
  const fetches = quick ? 2000 : 20_000;
  const maxBytes = 1024 * 1024;
  const wanted = Array.from({ length: fetches }, () => Math.floor(next() * offsets));
  // The byte ranges klog serves, found once: the baseline preads exactly these.
  const ranges = wanted.map((offset) => {
    const records = p.fetch(offset, maxBytes).records;
    const segment = p.log.segmentFor(offset)!;
    return { path: segment.path, position: segment.translateOffset(offset)!, length: records.length };
  });
  const fds = new Map<string, number>();
  const fdOf = (path: string) => {
    let fd = fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, 'r');
      fds.set(path, fd);
    }
    return fd;
  };
  const reused = Buffer.allocUnsafe(maxBytes * 2);
  let served = 0;
  const run = () => {
    for (const offset of wanted) served += p.fetch(offset, maxBytes).records.length;
  };
  const rounds = quick ? 3 : 5;
  // As klog hands each fetch its own buffer (a broker sends it while it reads the next), so does this pread.
  const fresh = compare(rounds, run, () => {
    for (const r of ranges) readSync(fdOf(r.path), Buffer.allocUnsafe(r.length), 0, r.length, r.position);
  });
  const oneBuffer = compare(rounds, run, () => {
    for (const r of ranges) readSync(fdOf(r.path), reused, 0, r.length, r.position);
  });
  for (const fd of fds.values()) closeSync(fd);
  p.close();
  const average = `${(served / fetches / (2 * rounds) / 1024).toFixed(0)} KiB a fetch on average`;
  return [
    {
      label: `fetch from ${fetches} random offsets of a ${bytes / 1024 / 1024} MiB log of 1 KiB records (max 1 MiB)`,
      ...fresh,
      ratio: fresh.baselineMs / fresh.subjectMs,
      note: `${average}; baseline: pread of the same byte ranges, each into a new buffer as a fetch must; ratio = klog's throughput / pread's, target >= 0.80`,
    },
    {
      label: '  the same, against preads into one reused buffer (the floor no server can hand out)',
      ...oneBuffer,
      ratio: oneBuffer.baselineMs / oneBuffer.subjectMs,
      note: 'klog / pread into one buffer',
    },
  ];
}

function openFigures(scratch: string, quick: boolean): Figure[] {
  const sizes = quick ? [64 * 1024 * 1024, 256 * 1024 * 1024] : [256 * 1024 * 1024, 1024 * 1024 * 1024];
  const figures: Figure[] = [];
  for (const bytes of sizes) {
    const { dataDir } = writeLog(scratch, bytes);
    const fullScan = () => {
      const p = Partition.open(dataDir, 'bench', 0, { segmentBytes: 128 * 1024 * 1024 });
      let batches = 0;
      for (const segment of p.log.segments) for (const _ of segment.headers()) batches++;
      p.close();
      if (batches === 0) throw new Error('no batches');
    };
    const fig = compare(
      quick ? 3 : 5,
      () => Partition.open(dataDir, 'bench', 0, { segmentBytes: 128 * 1024 * 1024 }).close(),
      fullScan,
    );
    figures.push({
      label: `open a partition with a ${bytes / 1024 / 1024} MiB log (128 MiB segments), through its indexes`,
      ...fig,
      ratio: fig.baselineMs / fig.subjectMs,
      note: 'baseline: the same open plus a header scan of every segment (what an open without indexes reads); ratio = how many times faster',
    });
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
}

function appendFigures(scratch: string, quick: boolean): Figure[] {
  const count = quick ? 5_000 : 20_000;
  const records = recordInputs(10, 1024, 5);
  const batches = Array.from({ length: count }, (_, i) =>
    buildProducerBatch(records, 0, BENCH_NOW_MS, { producerId: 9, producerEpoch: 0, baseSequence: i * 10 }),
  );
  const rounds = quick ? 3 : 5;
  let round = 0;
  let p: Partition | undefined;
  let fd = -1;
  let dir = '';
  /**
   * writeSync of the same bytes to a fresh file, one write per batch; `each` runs before each write.
   * Closed with an fsync, as `Partition.close` closes its segment: outside the timed part on both
   * sides, but what the disk has to do after it weighs on the next round, so both sides leave the same.
   */
  const raw = (each?: (batch: Buffer) => void): Side => ({
    setup: () => {
      dir = join(scratch, `raw-${round++}`);
      mkdirSync(dir);
      fd = openSync(join(dir, 'raw.log'), 'w');
    },
    run: () => {
      let pos = 0;
      for (const b of batches) {
        each?.(b);
        pos += writeSync(fd, b, 0, b.length, pos);
      }
    },
    teardown: () => {
      fsyncSync(fd);
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  });
  const fig = compare(
    rounds,
    {
      setup: () => {
        dir = join(scratch, `append-${round++}`);
        p = Partition.open(dir, 'bench', 0);
      },
      run: () => {
        for (const b of batches) p!.appendProducerBatch(b);
      },
      teardown: () => {
        p!.close();
        rmSync(dir, { recursive: true, force: true });
      },
    },
    raw(),
  );
  // The floor: the one CRC-32C pass a leader must make (the library's, over the same bytes), then the write.
  let crcs = 0;
  const floor = compare(
    rounds,
    raw((b) => {
      crcs ^= computeBatchCrc(b, 0, { batchLength: b.length - 12 });
    }),
    raw(),
  );
  if (crcs === 0.5) throw new Error('unreachable: keeps the CRCs from being optimised away');
  return [
    {
      label: `append ${count} client-built batches (10 records of 1 KiB, CRC checked once) with appendProducerBatch`,
      ...fig,
      ratio: fig.baselineMs / fig.subjectMs,
      note: 'baseline: writeSync of the same bytes to a fresh file, one write per batch; opening and closing (with an fsync on both sides) outside the timed part; target >= 0.80',
    },
    {
      label:
        '  the floor: CRC-32C of each batch (@node-rs/crc32), then its writeSync, against the writeSync alone',
      ...floor,
      ratio: floor.baselineMs / floor.subjectMs,
      note: 'no append can beat this ratio: it checks the CRC and does nothing else; appendProducerBatch / floor shows the rest of its work',
    },
  ];
}

/**
 * RecordBatch decode with the CRC checked (klog) against @platformatic/kafka 1.x's
 * `readRecordsBatch` (which does not check it), and encode against its
 * `createRecordsBatch`, batches of 10 and 100 records of 100 B and 1 KiB.
 */
function codecFigures(quick: boolean): Figure[] {
  const figures: Figure[] = [];
  const reps = quick ? 200 : 2000;
  for (const valueBytes of [100, 1024]) {
    for (const count of [10, 100]) {
      const inputs = recordInputs(count, valueBytes, 11);
      const bytes = encodeRecordBatch({
        baseOffset: 0,
        partitionLeaderEpoch: 0,
        attributes: 0,
        lastOffsetDelta: count - 1,
        baseTimestamp: BENCH_NOW_MS,
        maxTimestamp: BENCH_NOW_MS,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        records: inputs.map((r, i) => ({
          ...r,
          attributes: 0,
          timestampDelta: 0,
          offsetDelta: i,
          headers: [],
        })),
      });
      const theirs = readRecordsBatch(Reader.from(bytes));
      if (theirs.records.length !== count) throw new Error('@platformatic/kafka read another batch');
      const decode = compare(
        quick ? 3 : 5,
        () => {
          for (let i = 0; i < reps; i++) decodeRecordBatch(bytes);
        },
        () => {
          for (let i = 0; i < reps; i++) readRecordsBatch(Reader.from(bytes));
        },
      );
      figures.push({
        label: `decode ${count} records of ${valueBytes} B`,
        ...decode,
        ratio: decode.baselineMs / decode.subjectMs,
        note: 'klog checks the CRC-32C, @platformatic/kafka 1.35 does not; ratio = times faster than it, target >= 1',
      });
      const messages = () =>
        inputs.map((r) => ({
          topic: 'bench',
          partition: 0,
          key: Buffer.from(r.key!),
          value: Buffer.from(r.value!),
          timestamp: BigInt(BENCH_NOW_MS),
        }));
      const fields = {
        baseOffset: 0,
        partitionLeaderEpoch: 0,
        attributes: 0,
        lastOffsetDelta: count - 1,
        baseTimestamp: BENCH_NOW_MS,
        maxTimestamp: BENCH_NOW_MS,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        records: inputs.map((r, i) => ({
          ...r,
          attributes: 0,
          timestampDelta: 0,
          offsetDelta: i,
          headers: [],
        })),
      };
      const encode = compare(
        quick ? 3 : 5,
        () => {
          for (let i = 0; i < reps; i++) encodeRecordBatch(fields);
        },
        () => {
          for (let i = 0; i < reps; i++) createRecordsBatch(messages());
        },
      );
      figures.push({
        label: `encode ${count} records of ${valueBytes} B`,
        ...encode,
        ratio: encode.baselineMs / encode.subjectMs,
        note: 'against @platformatic/kafka 1.35 createRecordsBatch (its message objects made inside its side); ratio = times faster',
      });
    }
  }
  return figures;
}

const GROUPS = ['recovery', 'fetch', 'open', 'append', 'codec'] as const;

const USAGE = `usage: pnpm bench:storage [--quick] [--only ${GROUPS.join(',')}]

  Storage figures on large files (opening and recovering a log, fetching, appending client batches,
  the codec), each as a ratio to a baseline measured in the same run. Prints; writes nothing.

  --quick     smaller files, fewer rounds
  --only G    run only these groups (comma-separated)`;

function main(): void {
  const values = parseBenchArgs(process.argv.slice(2), USAGE, {
    quick: { type: 'boolean' },
    only: { type: 'string' },
  });
  const quick = values.quick ?? false;
  const only = values.only?.split(',') ?? [...GROUPS];
  const unknown = only.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0)
    throw new UsageError(
      `--only ${values.only}: unknown group ${unknown.join(', ')}; groups: ${GROUPS.join(', ')}`,
    );
  const machine = machineInfo();
  process.stderr.write(
    `klog storage figures: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}\n`,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'klog-storage-bench-'));
  const figures: Figure[] = [];
  try {
    if (only.includes('recovery')) figures.push(...recoveryFigures(scratch, quick));
    if (only.includes('fetch')) figures.push(...fetchFigures(scratch, quick));
    if (only.includes('open')) figures.push(...openFigures(scratch, quick));
    if (only.includes('append')) figures.push(...appendFigures(scratch, quick));
    if (only.includes('codec')) figures.push(...codecFigures(quick));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  for (const f of figures) {
    process.stdout.write(
      `${f.label}\n  klog ${f.subjectMs.toFixed(0)} ms, baseline ${f.baselineMs.toFixed(0)} ms: ratio ${f.ratio.toFixed(2)}\n  (${f.note})\n`,
    );
  }
}

await runBenchMain('klog bench:storage', USAGE, main);
