import { compile } from '@mdx-js/mdx';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { renderBrokerSection } from '../src/broker/page-section.js';
import { cpuSeconds, rssBytes, run } from '../src/broker/processes.js';
import type { BrokerBenchResults, Pair, Run } from '../src/broker/results.js';

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
    const compiled = String(await compile(text, { remarkPlugins: [remarkGfm] }));
    expect(compiled).toContain('"table"');
  });
});

describe('process figures from /proc', () => {
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
