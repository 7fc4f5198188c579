import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlainBatch, computeBatchCrc, decodeBatchHeader } from '@klog/storage/internals';
import { compile } from '@mdx-js/mdx';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { idleConnectionsOnce, kernelFloor, settledRss, startAcceptOnly } from '../src/broker/broker-bench.js';
import {
  cpuFloorOf,
  crcCpuRun,
  FLOOR_RATIO_GOAL,
  floorGoalLabel,
  storedBatches,
} from '../src/broker/cpu-floor.js';
import {
  breakdownOf,
  CPU_PARTS,
  type CpuProfile,
  cpuParts,
  OTHER_THREADS,
  OUTSIDE_JS,
} from '../src/broker/cpu-profile.js';
import { renderBrokerSection } from '../src/broker/page-section.js';
import { cpuSeconds, kernelCpuSeconds, rssBytes, run, threadCpuSeconds } from '../src/broker/processes.js';
import type {
  BrokerBenchResults,
  Pair,
  Run,
  SettledIdleConnections,
  WorkloadResult,
} from '../src/broker/results.js';
import { BENCH_DIR } from '../src/paths.js';

const PYTHON = '/usr/bin/python3';
const FILE_FLOOR = join(BENCH_DIR, 'python', 'file_floor.py');

const runOf = (mbPerSec: number, cpu?: number): Run => ({
  ms: 1000 / mbPerSec,
  mbPerSec,
  ...(cpu === undefined ? {} : { cpuSecondsPerMb: cpu }),
});
const pair = (k: number, b: number): Pair => ({
  klog: [runOf(k, 0.01)],
  baseline: [runOf(b, 0.005)],
  roundRatios: [k / b],
  ratio: k / b,
});

const sample: BrokerBenchResults = {
  schema: 1,
  date: '2026-12-02T20:00:00.000Z',
  quick: false,
  durationSeconds: 120,
  machine: { cpu: 'Test CPU', cores: 2, memoryBytes: 2 ** 33, node: 'v20.20.2', os: 'Linux 6', arch: 'x64' },
  tools: { kcat: '1.7.1', librdkafka: '2.0.2' },
  rounds: 3,
  workloads: [
    {
      id: '100B',
      label: '1 M × 100 B',
      messages: 1e6,
      messageBytes: 100,
      produce: pair(40, 50),
      fetch: { ...pair(30, 100), messages: 140000 },
      produceVsLoopback: pair(40, 800),
      readBackVsLoopback: pair(60, 800),
    },
    {
      id: '1KiB',
      label: '100 k × 1 KiB',
      messages: 1e5,
      messageBytes: 1024,
      produce: pair(90, 100),
      fetch: { ...pair(80, 100), messages: 14000 },
      produceVsLoopback: pair(90, 900),
      readBackVsLoopback: pair(120, 900),
    },
  ],
  idle: {
    connections: 1000,
    rssBeforeBytes: 60 * 2 ** 20,
    rssAfterBytes: 70 * 2 ** 20,
    bytesPerConnection: 10486,
  },
  target: { min: 0.5, worst: 0.3, met: false },
};

describe('the broker section of the Performance page', () => {
  it('says how many reads of the fetch window each round added up, and nothing for older results', () => {
    const older = renderBrokerSection(sample).join('\n');
    expect(older).not.toContain('ครั้งต่อ broker');
    const eight: BrokerBenchResults = {
      ...sample,
      workloads: sample.workloads.map((w) => ({ ...w, fetch: { ...w.fetch, reads: 8 } })),
    };
    expect(renderBrokerSection(eight).join('\n')).toContain('แต่ละรอบ kcat อ่านชุดนี้ 8 ครั้งต่อ broker');
  });
  it('says what each timed produce was preceded by, and nothing for older results', () => {
    expect(renderBrokerSection(sample).join('\n')).not.toContain('topic อีกอันหนึ่งก่อน');
    const warmed: BrokerBenchResults = {
      ...sample,
      workloads: sample.workloads.map((w) => ({ ...w, warmUpMessages: w.messages / 10 })),
    };
    expect(renderBrokerSection(warmed).join('\n')).toContain(
      '(100,000 message ใน 1 M × 100 B, 10,000 message ใน 100 k × 1 KiB)',
    );
  });
  it('shows every workload, each ratio against the goal, CPU per MB and the idle connections', async () => {
    const text = renderBrokerSection(sample).join('\n');
    for (const w of sample.workloads) expect(text).toContain(w.label);
    expect(text).toContain(
      '| 1 M × 100 B | 40.0 MB/s | 50.0 MB/s | 0.80× | 30.0 MB/s | 100.0 MB/s | 0.30× | ถึงเป้า / ไม่ถึงเป้า |',
    );
    expect(text).toContain('| 1 M × 100 B | 10.0 ms | 5.0 ms | 2.00× |');
    expect(text).toContain('| ต่อ connection | 10.2 KiB |');
    expect(text).toContain('kcat 1.7.1 (librdkafka 2.0.2)');
    expect(text).toContain('ไม่ถึงเป้า 0.5×: fetch 1 M × 100 B (0.30×)');
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
  });
});

describe('the kernel floor of the CPU table', () => {
  it('shows klog’s kernel part and the kernel floor; results from before CRC-32C leave the floor goal empty', async () => {
    const [w100, w1k] = sample.workloads as [WorkloadResult, WorkloadResult];
    const withKernel = (w: WorkloadResult, kernel: number): WorkloadResult => ({
      ...w,
      produce: { ...w.produce, klog: w.produce.klog.map((r) => ({ ...r, kernelCpuSecondsPerMb: kernel })) },
    });
    const withFloor: BrokerBenchResults = {
      ...sample,
      workloads: [
        { ...withKernel(w100, 0.004), kernelFloor: [runOf(300, 0.002), runOf(280, 0.003)] },
        withKernel(w1k, 0.003),
      ],
    };
    const text = renderBrokerSection(withFloor).join('\n');
    expect(text).toContain(
      '| งาน | klog | ใน kernel | mock | kernel floor | CRC-32C | floor | ÷ floor (เป้า ≤ 1.5×) |',
    );
    expect(text).toContain('| 1 M × 100 B | 10.00 ms | 4.00 ms | 5.00 ms | 2.50 ms | — | — | — |');
    expect(text).toContain('| 100 k × 1 KiB | 10.00 ms | 3.00 ms | 5.00 ms | — | — | — | — |');
    expect(text).toContain('bench/python/file_floor.py');
    expect(text).toContain('ผลชุดนี้วัดก่อนที่ bench จะวัด CRC-32C');
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
  });
});

describe('the floor of issue 44: kernel floor + CRC-32C', () => {
  const w100 = sample.workloads[0]!;
  // klog 10 ms/MB; kernel floor 2 and 3 ms/MB (mean 2.5); CRC-32C 0.04 and 0.06 ms/MB (mean 0.05).
  const measured: WorkloadResult = {
    ...w100,
    kernelFloor: [runOf(300, 0.002), runOf(280, 0.003)],
    crc32cFloor: [runOf(9000, 0.00004), runOf(8000, 0.00006)],
  };

  it('adds the means of the rounds, kernel and CRC-32C, and divides klog’s mean by the sum', () => {
    const f = cpuFloorOf(measured)!;
    expect(f.klogMsPerMb).toBeCloseTo(10);
    expect(f.kernelMsPerMb).toBeCloseTo(2.5);
    expect(f.crcMsPerMb).toBeCloseTo(0.05);
    expect(f.floorMsPerMb).toBeCloseTo(2.55);
    expect(f.ratio).toBeCloseTo(10 / 2.55);
    // No floor without both parts: older results, or a run that measured no CRC-32C.
    expect(cpuFloorOf(w100)).toBeUndefined();
    expect(cpuFloorOf({ produce: measured.produce, crc32cFloor: measured.crc32cFloor! })).toBeUndefined();
    expect(cpuFloorOf({ produce: measured.produce, kernelFloor: measured.kernelFloor! })).toBeUndefined();
  });

  it('is a goal row against 1.5×, and the row of issue 25’s retired 3× of the mock is not shown', async () => {
    const f = cpuFloorOf(measured)!;
    const results: BrokerBenchResults = {
      ...sample,
      workloads: [measured, sample.workloads[1]!],
      goals: [
        {
          label: floorGoalLabel(measured.label),
          value: f.ratio,
          bound: FLOOR_RATIO_GOAL,
          direction: 'atMost',
          unit: 'ratio',
          met: false,
        },
      ],
    };
    const text = renderBrokerSection(results).join('\n');
    expect(text).toContain('| CPU per MB 1 M × 100 B, klog / floor | 3.92× | ≤ 1.50× | ไม่ถึงเป้า |');
    expect(text).toContain(
      '| 1 M × 100 B | 10.00 ms | 0.00 ms | 5.00 ms | 2.50 ms | 0.05 ms | 2.55 ms | 3.92× ไม่ถึงเป้า |',
    );
    expect(text).toContain('เป้าของ issue 44 คือ klog ÷ floor ≤ 1.5× ซึ่งแทนเป้าเดิม klog ≤ 3× ของ mock');
    expect(text).not.toContain('เป้าเดิมของ CPU ต่อ MB');
    // Older results hold issue 25's goal: it is left out of the goal table, and the page says what replaced it.
    const older = renderBrokerSection({
      ...sample,
      goals: [
        {
          label: 'CPU per MB 1 M × 100 B, klog / mock',
          value: 3.2,
          bound: 3,
          direction: 'atMost',
          unit: 'ratio',
          met: false,
        },
        { label: 'idle connection', value: 7.4, bound: 10, direction: 'atMost', unit: 'KiB', met: true },
      ],
    }).join('\n');
    expect(older).not.toContain('klog / mock |');
    expect(older).toContain('| idle connection | 7.4 KiB | ≤ 10.0 KiB | ถึงเป้า |');
    expect(older).toContain(
      'เป้าเดิมของ CPU ต่อ MB (klog ≤ 3× ของ mock) ถูกแทนด้วยเป้าของ issue 44: klog ≤ 1.5× ของ floor',
    );
    expect(String(await compile(text, { remarkPlugins: [remarkGfm] }))).toContain('"table"');
  });
});

describe('CRC-32C over the batches klog stored (the floor’s second part)', () => {
  it('reads every batch of a partition’s segments in order, and measures CPU per payload MB over them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'klog-crc-'));
    try {
      const batch = (baseOffset: number, values: number, bytes: number) =>
        buildPlainBatch(
          Array.from({ length: values }, () => ({ key: null, value: Buffer.alloc(bytes, 0x61) })),
          baseOffset,
          1_700_000_000_000,
        );
      const a = batch(0, 100, 100);
      const b = batch(100, 50, 1024);
      const c = batch(150, 1, 10);
      const partition = join(dir, 'bench-0');
      mkdirSync(partition);
      writeFileSync(join(partition, '00000000000000000000.log'), Buffer.concat([a, b]));
      writeFileSync(join(partition, '00000000000000000150.log'), c);
      writeFileSync(join(partition, '00000000000000000000.index'), Buffer.alloc(8));
      const batches = storedBatches(dir, 'bench', 0);
      expect(batches.map((x) => Buffer.from(x))).toEqual([a, b, c]);
      // Each stored batch still checks: the CRC range is the batch's own.
      for (const x of batches)
        expect(computeBatchCrc(x, 0, decodeBatchHeader(x))).toBe(decodeBatchHeader(x).crc);
      const payload = 100 * 100 + 50 * 1024 + 10;
      const r = crcCpuRun(batches, payload);
      expect(r.cpuSecondsPerMb).toBeGreaterThan(0);
      expect(r.mbPerSec).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the socket → file floor of the CPU table', () => {
  it('adds the floor and klog ÷ it where a run measured one; older results keep four columns', async () => {
    expect(renderBrokerSection(sample).join('\n')).not.toContain('socket → file');
    const [w100, w1k] = sample.workloads as [WorkloadResult, WorkloadResult];
    const withFloor: BrokerBenchResults = {
      ...sample,
      workloads: [{ ...w100, fileFloor: [runOf(300, 0.004), runOf(280, 0.006)] }, w1k],
    };
    const text = renderBrokerSection(withFloor).join('\n');
    expect(text).toContain('| 1 M × 100 B | 10.0 ms | 5.0 ms | 2.00× | 5.0 ms | 2.00× |');
    expect(text).toContain('| 100 k × 1 KiB | 10.0 ms | 5.0 ms | 2.00× | — | — |');
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
  });
});

describe('the consumer-group row of the broker section', () => {
  it('is absent from results written before consumer groups, and rendered when present', async () => {
    expect(renderBrokerSection(sample).join('\n')).not.toContain('kcat -G');
    const withGroup: BrokerBenchResults = {
      ...sample,
      groupConsume: {
        label: '1,000,000 × 100 B',
        messages: 1e6,
        messageBytes: 100,
        partitions: 4,
        all: [runOf(25)],
        allFirstMessageMs: 3210,
        window: { ...pair(20, 40), messages: 140000 },
        firstMessageMs: { klog: 3150.4, mock: 3020.6 },
      },
    };
    const text = renderBrokerSection(withGroup).join('\n');
    expect(text).toContain('| 140,000 × 100 B | 20.0 MB/s | 40.0 MB/s | 0.50× | 3150 ms | 3021 ms |');
    expect(text).toContain('| 1,000,000 × 100 B | 25.0 MB/s | — | — | 3210 ms | — |');
    expect(text).not.toContain('หลังเข้า group');
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
    // The reading alone, the join left out: its own row, between the window and the whole count.
    const afterJoin = renderBrokerSection({
      ...withGroup,
      groupConsume: { ...withGroup.groupConsume!, afterJoin: pair(120, 100) },
    }).join('\n');
    const lines = afterJoin.split('\n');
    const at = lines.indexOf('| 140,000 × 100 B | 20.0 MB/s | 40.0 MB/s | 0.50× | 3150 ms | 3021 ms |');
    expect(lines.slice(at, at + 3)).toEqual([
      '| 140,000 × 100 B | 20.0 MB/s | 40.0 MB/s | 0.50× | 3150 ms | 3021 ms |',
      '| 140,000 × 100 B หลังเข้า group | 120.0 MB/s | 100.0 MB/s | 1.20× | — | — |',
      '| 1,000,000 × 100 B | 25.0 MB/s | — | — | 3210 ms | — |',
    ]);
    expect(String(await compile(afterJoin, { remarkPlugins: [remarkGfm] }))).toContain('"table"');
    // A consumer-protocol member's read of the same window (issue 41): klog only, its join with no delay.
    expect(afterJoin).not.toContain('KIP-848');
    const kip848 = renderBrokerSection({
      ...withGroup,
      groupConsume: {
        ...withGroup.groupConsume!,
        consumerProtocol: {
          window: [runOf(30)],
          firstMessageMs: 41.6,
          classicOnSameClient: { window: [runOf(10)], firstMessageMs: 3101 },
        },
      },
    }).join('\n');
    expect(kip848).toContain(
      '| 140,000 × 100 B, librdkafka 2.15.1, classic | 10.0 MB/s | — | — | 3101 ms | — |',
    );
    expect(kip848).toContain(
      '| 140,000 × 100 B, librdkafka 2.15.1, `group.protocol=consumer` (KIP-848) | 30.0 MB/s | — | — | 42 ms | — |',
    );
    expect(kip848).toContain('ConsumerGroupHeartbeat');
    expect(String(await compile(kip848, { remarkPlugins: [remarkGfm] }))).toContain('"table"');
  });
});

describe('the idle connections of the broker section', () => {
  it('shows each round and says why the median, where a run kept its rounds', () => {
    expect(renderBrokerSection(sample).join('\n')).not.toContain('แต่ละรอบ |');
    const text = renderBrokerSection({
      ...sample,
      idle: { ...sample.idle, roundBytesPerConnection: [9216, 10486, 12800] },
    }).join('\n');
    expect(text).toContain('| ต่อ connection | 10.2 KiB |');
    expect(text).toContain('| แต่ละรอบ | 9.0 KiB, 10.2 KiB, 12.5 KiB |');
    expect(text).toContain('รายงานค่ากลาง');
  });
});

describe('the idle connections measured settled, beside Node', () => {
  const settled: SettledIdleConnections = {
    measure: 'settled',
    connections: 1000,
    rssBeforeBytes: 50 * 2 ** 20,
    rssAfterBytes: 63 * 2 ** 20,
    bytesPerConnection: 13 * 1024,
    roundBytesPerConnection: [13 * 1024, 12.5 * 1024, 13.5 * 1024],
    nodeBytesPerConnection: 6.5 * 1024,
    roundNodeBytesPerConnection: [6.5 * 1024, 6.2 * 1024, 6.6 * 1024],
    unsettledReadings: 0,
  };

  it('shows klog and the Node baseline per connection, their ratio and each round', () => {
    const text = renderBrokerSection({ ...sample, idle: settled }).join('\n');
    expect(text).toContain('| ต่อ connection (ค่ากลาง) | 13.0 KiB | 6.5 KiB | 2.00× |');
    expect(text).toContain('| แต่ละรอบ | 13.0 KiB, 12.5 KiB, 13.5 KiB | 6.5 KiB, 6.2 KiB, 6.6 KiB |  |');
    expect(text).toContain('เปิดอีก 999 connection');
    expect(text).not.toContain('| RSS ก่อน |');
    expect(text).not.toContain('ยังไม่หยุดเปลี่ยน');
    const unsettled = renderBrokerSection({ ...sample, idle: { ...settled, unsettledReadings: 2 } }).join(
      '\n',
    );
    expect(unsettled).toContain('มี 2 ค่าที่อ่านตอนรอครบ 45 s แล้ว process ยังไม่หยุดเปลี่ยน');
  });

  /** A clock the test moves: each sleep advances it, and RSS is a function of the time. */
  const fakeClock = (rssAt: (ms: number) => number) => {
    let t = 0;
    return {
      rss: () => rssAt(t),
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
      },
    };
  };
  const MiB = 2 ** 20;
  /** Two settled readings of up to 45 s each, on a busy machine (the repository's LONG_TIMEOUT_MS). */
  const LONG_TIMEOUT_MS = 300_000;

  it('waits out a rise and the fall after it, and reads the level it comes to rest at', async () => {
    // Up 20 MiB over the first 3 s, down to 30 MiB by 15 s, flat from then on.
    const rssAt = (ms: number) =>
      ms <= 3000
        ? 40 * MiB + (20 * MiB * ms) / 3000
        : Math.max(30 * MiB, 60 * MiB - (30 * MiB * (ms - 3000)) / 12_000);
    const clock = fakeClock(rssAt);
    const { rss, settled } = await settledRss(clock);
    expect(settled).toBe(true);
    expect(rss).toBe(30 * MiB);
    // Steady for 8 s after it came to rest at 15 s.
    expect(clock.now()).toBeGreaterThanOrEqual(23_000);
  });

  it('a process already at rest is read after the minimum wait', async () => {
    const clock = fakeClock(() => 40 * MiB);
    expect(await settledRss(clock)).toEqual({ rss: 40 * MiB, settled: true });
    expect(clock.now()).toBe(12_000);
  });

  it('a process that keeps shrinking is read when the wait runs out, and says so', async () => {
    const clock = fakeClock((ms) => 200 * MiB - 100 * 1024 * (ms / 1000));
    const { settled } = await settledRss(clock);
    expect(settled).toBe(false);
    expect(clock.now()).toBe(45_000);
  });

  it(
    'waits for a real process to settle before and after the connections, and each connection is counted',
    async () => {
      const round = await idleConnectionsOnce(await startAcceptOnly(), 201);
      expect(round.connections).toBe(201);
      // 200 sockets Node keeps: more than nothing, far less than a megabyte each.
      expect(round.rssAfterBytes).toBeGreaterThan(round.rssBeforeBytes);
      expect(round.bytesPerConnection).toBeGreaterThan(0);
      expect(round.bytesPerConnection).toBeLessThan(MiB);
    },
    LONG_TIMEOUT_MS,
  );
});

describe('the kernel floor’s receiver (bench/python/file_floor.py)', () => {
  it('takes every byte sent into the file and answers only then; its CPU is measured while it is alive', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klog-floor-'));
    try {
      const file = join(dir, 'floor.log');
      const bytes = 5 * 1024 * 1024 + 123;
      const floor = await kernelFloor({ python: PYTHON, fileFloor: FILE_FLOOR }, bytes, file);
      expect(statSync(file).size).toBe(bytes);
      expect(readFileSync(file).every((b) => b === 0x61)).toBe(true);
      expect(floor.ms).toBeGreaterThan(0);
      expect(floor.cpu).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the run when the receiver stops before it has every byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klog-floor-'));
    try {
      // A directory where the file should be: the receiver cannot open it and exits without "done".
      await expect(kernelFloor({ python: PYTHON, fileFloor: FILE_FLOOR }, 1024 * 1024, dir)).rejects.toThrow(
        /without taking all 1048576 bytes|EPIPE|ECONNRESET/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('process figures from /proc', () => {
  it('the main thread’s CPU grows with work on it and is part of the whole; the kernel’s part grows with syscalls', () => {
    const all = cpuSeconds(process.pid);
    const main = threadCpuSeconds(process.pid).mainThread;
    let x = 0;
    for (let i = 0; i < 2e7; i++) x += Math.sqrt(x + 1);
    const mainUsed = threadCpuSeconds(process.pid).mainThread - main;
    expect(mainUsed).toBeGreaterThan(0);
    expect(mainUsed).toBeLessThanOrEqual(cpuSeconds(process.pid) - all + 1e-6);
    // Kernel time counts in 10 ms ticks: write until one more is counted (a hang bound only).
    const kernel = kernelCpuSeconds(process.pid);
    const dir = mkdtempSync(join(tmpdir(), 'klog-kernel-'));
    try {
      const fd = openSync(join(dir, 'k'), 'w');
      const block = Buffer.alloc(64 * 1024, 1);
      const end = Date.now() + 60_000;
      while (kernelCpuSeconds(process.pid) === kernel && Date.now() < end) {
        for (let i = 0; i < 64; i++) writeSync(fd, block, 0, block.length, 0);
      }
      closeSync(fd);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(kernelCpuSeconds(process.pid)).toBeGreaterThan(kernel);
  });

  it('CPU seconds are finer than the kernel’s 10 ms ticks: 15 ms of work reads as about 15 ms', () => {
    // getrusage (process.cpuUsage, microseconds, every thread) is the reference; ticks would read 10 or 20.
    // Five tries, the median error: the worker's other threads (and a thread that exits between two
    // readings, which schedstat loses) move a single try by a few ms on a busy machine.
    const errors: number[] = [];
    const readings: number[] = [];
    for (let i = 0; i < 5; i++) {
      const usage = process.cpuUsage();
      const before = cpuSeconds(process.pid);
      let x = 0;
      while (process.cpuUsage(usage).user + process.cpuUsage(usage).system < 15_000) x += Math.sqrt(x + 1);
      const measured = cpuSeconds(process.pid) - before;
      const reference = (process.cpuUsage(usage).user + process.cpuUsage(usage).system) / 1e6;
      readings.push(measured);
      errors.push(Math.abs(measured - reference));
    }
    errors.sort((a, b) => a - b);
    expect(errors[2]).toBeLessThan(0.003);
    // Not tick counts: some reading is off a 10 ms step.
    expect(readings.some((r) => Math.abs(r * 100 - Math.round(r * 100)) > 0.05)).toBe(true);
  });

  it('CPU seconds grow with work; RSS is the process’s own', async () => {
    const before = cpuSeconds(process.pid);
    let x = 0;
    // Work until the kernel has counted some of it (10 ms ticks), however busy the machine; a hang bound only.
    const end = Date.now() + 30_000;
    while (cpuSeconds(process.pid) === before && Date.now() < end)
      for (let i = 0; i < 1e6; i++) x += Math.sqrt(x + 1);
    expect(cpuSeconds(process.pid)).toBeGreaterThan(before);
    expect(rssBytes(process.pid)).toBeGreaterThan(10 * 2 ** 20);
    await expect(run(process.execPath, ['-e', 'process.exit(3)'])).rejects.toThrow(/exited 3/);
    expect(
      (await run(process.execPath, ['-e', 'console.log("a\\nb")'], { stdout: 'count-lines' })).lines,
    ).toBe(2);
  });
});

describe('where klog serve’s CPU goes, from a CPU profile', () => {
  const url = (pkg: string, file: string) => `file:///repo/packages/${pkg}/dist/${file}`;
  // root → (program), (idle), (garbage collector), the read path down to a native CRC and the segment's writev.
  const profile: CpuProfile = {
    startTime: 1_000_000,
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 4, 5] },
      { id: 2, callFrame: { functionName: '(program)', url: '' } },
      { id: 3, callFrame: { functionName: '(idle)', url: '' } },
      { id: 4, callFrame: { functionName: '(garbage collector)', url: '' } },
      {
        id: 5,
        callFrame: { functionName: 'onStreamRead', url: 'node:internal/stream_base_commons' },
        children: [6],
      },
      {
        id: 6,
        callFrame: { functionName: 'onBytes', url: url('broker', 'connection.js') },
        children: [7, 9],
      },
      {
        id: 7,
        callFrame: { functionName: 'validateRecords', url: url('storage', 'log/log-validator.js') },
        children: [8],
      },
      { id: 8, callFrame: { functionName: 'crc32c', url: '' } },
      {
        id: 9,
        callFrame: { functionName: 'append', url: url('storage', 'segment/file-records.js') },
        children: [10],
      },
      { id: 10, callFrame: { functionName: 'writev', url: '' } },
    ],
    // One sample each, 1 ms apart: the time a sample stands for is the delta after it.
    samples: [2, 3, 4, 6, 7, 8, 10, 10],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('puts each sample in its part, native code in its caller’s, and leaves idle time out', () => {
    const b = breakdownOf(profile);
    expect(b.sampledMs).toBe(7);
    expect(b.fractions[OUTSIDE_JS]).toBeCloseTo(1 / 7);
    expect(b.fractions['garbage collection']).toBeCloseTo(1 / 7);
    expect(b.fractions['frames (connection)']).toBeCloseTo(1 / 7);
    expect(b.fractions['record validation']).toBeCloseTo(1 / 7);
    expect(b.fractions['CRC-32C']).toBeCloseTo(1 / 7);
    expect(b.fractions['segment write (page cache)']).toBeCloseTo(2 / 7);
    expect(b.fractions.other).toBe(0);
    expect(Object.values(b.fractions).reduce((s, x) => s + x, 0)).toBeCloseTo(1);
  });

  it('counts the record walk (quick-walk.js) as record validation, not as the log', () => {
    const walk: CpuProfile = {
      startTime: 0,
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
        {
          id: 2,
          callFrame: { functionName: 'append', url: url('storage', 'log/log.js') },
          children: [3, 4],
        },
        { id: 3, callFrame: { functionName: 'quickWalk', url: url('storage', 'log/quick-walk.js') } },
        { id: 4, callFrame: { functionName: 'check', url: url('storage', 'log/log-validator.js') } },
      ],
      samples: [2, 3, 3, 4],
      timeDeltas: [0, 1000, 1000, 1000, 1000],
    };
    const b = breakdownOf(walk);
    expect(b.fractions['record validation']).toBeCloseTo(3 / 4);
    expect(b.fractions['log, producer state, index']).toBeCloseTo(1 / 4);
  });

  it('splits the measured CPU: sampled parts by the share of the main thread the samples saw, the rest outside JavaScript, the other threads apart', () => {
    // 7 ms sampled over 1 MB, of a profiled main thread that used 10 ms/MB: the samples saw 70 % of it.
    const b = breakdownOf(profile);
    const parts = cpuParts(b, 1, { allMsPerMb: 3, mainThreadMsPerMb: 2, profiledMainThreadMsPerMb: 10 });
    const ms = Object.fromEntries(parts.map((p) => [p.part, p.msPerMb]));
    expect(parts.map((p) => p.part)).toEqual([...CPU_PARTS]);
    expect(ms['CRC-32C']).toBeCloseTo((1 / 7) * 0.7 * 2);
    expect(ms['segment write (page cache)']).toBeCloseTo((2 / 7) * 0.7 * 2);
    // (program)'s sample, and the 30 % of the main thread no sample saw.
    expect(ms[OUTSIDE_JS]).toBeCloseTo((1 / 7) * 0.7 * 2 + 0.3 * 2);
    expect(ms[OTHER_THREADS]).toBeCloseTo(1);
    expect(parts.reduce((s, p) => s + p.msPerMb, 0)).toBeCloseTo(3);
    expect(parts.reduce((s, p) => s + p.fraction, 0)).toBeCloseTo(1);
    // Samples that stand for more than the CPU (a thread preempted in a syscall) see all of it, no more.
    const over = cpuParts(b, 1, { allMsPerMb: 2, mainThreadMsPerMb: 2, profiledMainThreadMsPerMb: 5 });
    const outside = over.find((p) => p.part === OUTSIDE_JS)!;
    expect(outside.msPerMb).toBeCloseTo((1 / 7) * 2);
    expect(over.find((p) => p.part === OTHER_THREADS)!.msPerMb).toBe(0);
    expect(over.reduce((s, p) => s + p.msPerMb, 0)).toBeCloseTo(2);
  });

  it('counts only the samples inside a window of the monotonic clock', () => {
    // Samples fall at 1.000, 1.001, … s: the window holds the 4th to the 6th (frames, validation, CRC).
    const b = breakdownOf(profile, { fromUs: 1_003_000, toUs: 1_005_000 });
    expect(b.sampledMs).toBe(3);
    expect(b.fractions['frames (connection)']).toBeCloseTo(1 / 3);
    expect(b.fractions['CRC-32C']).toBeCloseTo(1 / 3);
    expect(b.fractions['segment write (page cache)']).toBe(0);
  });
});

describe('the goals, RSS under load and the CPU breakdown on the page', () => {
  it('renders a goal table, the peak RSS and one chart per profiled workload; older results show none', async () => {
    expect(renderBrokerSection(sample).join('\n')).not.toContain('CPU ต่อ MB ไปที่ไหน');
    const parts = CPU_PARTS.map((part, i) => ({
      part,
      fraction: i === 0 ? 0.5 : 0.5 / (CPU_PARTS.length - 1),
      msPerMb: i === 0 ? 1 : 1 / (CPU_PARTS.length - 1),
    }));
    const w0 = sample.workloads[0]!;
    const withProfile: BrokerBenchResults = {
      ...sample,
      workloads: [
        {
          ...w0,
          rssUnderLoadBytes: 96 * 2 ** 20,
          profile: {
            file: 'broker-produce-100B.cpuprofile',
            windowed: true,
            profiledCpuMsPerMb: 2.5,
            sampledMsPerMb: 1.8,
            parts,
          },
        },
        sample.workloads[1]!,
      ],
      goals: [
        {
          label: 'produce 1 M × 100 B / mock',
          value: 0.8,
          bound: 0.8,
          direction: 'atLeast',
          unit: 'ratio',
          met: true,
        },
        {
          label: 'fetch 1 M × 100 B / mock',
          value: 0.3,
          bound: 1,
          direction: 'atLeast',
          unit: 'ratio',
          met: false,
        },
        { label: 'idle connection', value: 10.24, bound: 10, direction: 'atMost', unit: 'KiB', met: false },
        {
          label: 'fetch 100 k × 1 KiB / mock',
          value: 0.998,
          bound: 1,
          direction: 'atLeast',
          unit: 'ratio',
          met: false,
        },
      ],
    };
    const text = renderBrokerSection(withProfile).join('\n');
    expect(text).toContain('| produce 1 M × 100 B / mock | 0.80× | ≥ 0.80× | ถึงเป้า |');
    expect(text).toContain('| idle connection | 10.2 KiB | ≤ 10.0 KiB | ไม่ถึงเป้า |');
    // Rounded to two places it would read 1.00× against ≥ 1.00×, missed: the third place says why.
    expect(text).toContain('| fetch 100 k × 1 KiB / mock | 0.998× | ≥ 1.00× | ไม่ถึงเป้า |');
    // The fetch column reads the run's own fetch goal (1×), not the produce target.
    expect(text).toContain('| 0.30× | ถึงเป้า / ไม่ถึงเป้า |');
    expect(text).toContain('1 M × 100 B 96 MiB');
    expect(text).toContain('CPU ต่อ MB ของ klog ไปที่ไหน: 1 M × 100 B');
    expect(text).toContain(`| ${OUTSIDE_JS} | 1.00 ms (50 %) |`);
    // The chart's bars: one per part, and with no floor measured (no CRC-32C) the mock's whole CPU per MB
    // (5 ms) and no goal line: issue 25's 3× the mock's is retired.
    expect(text.match(/<rect /g)?.length).toBe(CPU_PARTS.length);
    expect(text).toContain('mock ทั้ง process 5.00 ms/MB');
    expect(text).not.toContain('เป้า 3×');
    expect(text.match(/<line /g)?.length).toBe(1);
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"svg"');
    // With the floor measured, kernel 2 ms + CRC-32C 0.5 ms: its line, and the goal's at 1.5× (3.75 ms).
    const floored = renderBrokerSection({
      ...withProfile,
      workloads: [
        {
          ...withProfile.workloads[0]!,
          kernelFloor: [runOf(300, 0.002)],
          crc32cFloor: [runOf(9000, 0.0005)],
        },
        sample.workloads[1]!,
      ],
    }).join('\n');
    expect(floored).toContain('floor (kernel + CRC-32C) 2.50 ms/MB');
    expect(floored).toContain('เป้า 1.5× ของ floor 3.75 ms/MB');
    expect(floored.match(/<line /g)?.length).toBe(2);
  });
});
