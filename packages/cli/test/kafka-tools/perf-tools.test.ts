import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafka, type Server, startServer } from './tool-runner.js';

/**
 * kafka-producer-perf-test.sh and kafka-consumer-perf-test.sh against `klog serve` as a process. Their figures
 * are timings, so no golden file: each line is matched against the printf format of the Kafka class that
 * prints it (ProducerPerformance.Stats.printTotal, ConsumerPerformance.main and printHeader), and the counts
 * in it are checked against the log (kafka-get-offsets.sh) — never a duration.
 */
const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-perf-tools-'));
let server: Server;
let at: string[];
let props: string;

beforeAll(async () => {
  server = await startServer(join(scratch, 'data'));
  at = ['--bootstrap-server', `localhost:${server.port}`];
  props = `bootstrap.servers=localhost:${server.port}`;
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(scratch, { recursive: true, force: true });
});

const n = String.raw`\d+\.\d`;
/** ProducerPerformance.Stats.printTotal's format. */
const TOTAL = new RegExp(
  `^(\\d+) records sent, ${n} records/sec \\(${n}\\d MB/sec\\), ${n}\\d ms avg latency, ${n}\\d ms max latency, \\d+ ms 50th, \\d+ ms 95th, \\d+ ms 99th, \\d+ ms 99\\.9th\\.$`,
);

/** The records in `topic`, from its partitions' latest offsets. */
function recordsIn(topic: string): number {
  const run = kafka('kafka-get-offsets.sh', ['--topic', topic, ...at]);
  expect(run.status).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .reduce((sum, line) => sum + Number(line.split(':')[2]), 0);
}

describe('kafka-producer-perf-test.sh', { timeout: LONG_TIMEOUT_MS }, () => {
  it('sends --num-records records of --record-size bytes, every one on the log, and prints the total line', () => {
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'perf', '--partitions', '3', ...at]).status).toBe(
      0,
    );
    const run = kafka('kafka-producer-perf-test.sh', [
      '--topic',
      'perf',
      '--num-records',
      '20000',
      '--record-size',
      '100',
      '--throughput',
      '-1',
      '--producer-props',
      props,
      'linger.ms=1',
    ]);
    expect([run.status, run.stderr, run.hung]).toEqual([0, '', false]);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(TOTAL);
    expect(TOTAL.exec(lines.at(-1)!)![1]).toBe('20000');
    // Any line before it is a 5 s window (Stats.printWindow), on a slow machine.
    for (const line of lines.slice(0, -1))
      expect(line).toMatch(
        /^\d+ records sent, \d+\.\d records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d ms avg latency, \d+\.\d ms max latency\.$/,
      );
    // Idempotent, several in flight: exactly the records sent, none twice.
    expect(recordsIn('perf')).toBe(20000);
    // A sample of the payload: 100 capital letters.
    const read = kafka('kafka-console-consumer.sh', [
      '--topic',
      'perf',
      '--partition',
      '0',
      '--offset',
      '0',
      '--max-messages',
      '1',
      ...at,
    ]);
    expect(read.stdout).toMatch(/^[A-Z]{100}\n$/);
  });

  it('--payload-monotonic under --throughput with acks=1, and --payload-file', () => {
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'mono', '--partitions', '1', ...at]).status).toBe(
      0,
    );
    const run = kafka('kafka-producer-perf-test.sh', [
      '--topic',
      'mono',
      '--num-records',
      '30',
      '--payload-monotonic',
      '--throughput',
      '1000',
      '--producer-props',
      props,
      'acks=1',
    ]);
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^30 records sent, /);
    const read = kafka('kafka-console-consumer.sh', [
      '--topic',
      'mono',
      '--from-beginning',
      '--max-messages',
      '30',
      ...at,
    ]);
    expect(read.stdout.trim().split('\n')).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));

    const file = join(scratch, 'payloads.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const fromFile = kafka('kafka-producer-perf-test.sh', [
      '--topic',
      'mono',
      '--num-records',
      '10',
      '--payload-file',
      file,
      '--throughput',
      '-1',
      '--producer-props',
      props,
    ]);
    expect(fromFile.status).toBe(0);
    expect(fromFile.stdout).toMatch(
      new RegExp(`^Reading payloads from: ${file}\nNumber of messages read: 3\n10 records sent, `),
    );
    expect(recordsIn('mono')).toBe(40);
  });

  it("refuses as Kafka's argparse4j refuses, and what klog cannot do in one line, exit 1", () => {
    const base = ['--topic', 'perf', '--num-records', '10', '--throughput', '-1', '--producer-props', props];
    const usage = /^usage: producer-performance \[-h\] --topic TOPIC .*\n/;
    const refused = (args: string[], last: string | RegExp) => {
      const run = kafka('kafka-producer-perf-test.sh', args);
      expect([run.status, run.stdout]).toEqual([1, '']);
      if (typeof last === 'string') expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(last);
      else expect(run.stderr).toMatch(last);
      return run.stderr;
    };
    expect(
      refused(
        base,
        'producer-performance: error: one of the arguments --record-size --payload-file --payload-monotonic is required',
      ),
    ).toMatch(usage);
    refused(
      ['--topic', 'perf', '--num-records', '10', '--record-size', '1', '--producer-props', props],
      'producer-performance: error: argument --throughput is required',
    );
    refused(
      [...base, '--record-size', '1', '--payload-monotonic'],
      'producer-performance: error: argument --payload-monotonic: not allowed with argument --record-size',
    );
    refused(
      [
        '--topic',
        'perf',
        '--num-records',
        '0',
        '--record-size',
        '1',
        '--throughput',
        '-1',
        '--producer-props',
        props,
      ],
      'producer-performance: error: --num-records should be greater than zero',
    );
    refused(
      ['--topic', 'perf', '--num-records', '1', '--record-size', '1', '--throughput', '-1'],
      'producer-performance: error: Either --producer-props or --producer.config must be specified.',
    );
    refused([...base, '--record-size', '1', 'x'], /^usage: .*\nproducer-performance: error: /s);
    refused(
      [...base.slice(0, -1), 'bootstrap.servers', '--record-size', '1'],
      'Exception in thread "main" java.lang.IllegalArgumentException: Invalid property: bootstrap.servers',
    );
    refused(
      [...base, 'buffer.memory=1', '--record-size', '1'],
      "klog's kafka-producer-perf-test.sh does not act on the producer setting buffer.memory",
    );
    refused(
      [...base, '--record-size', '1', '--transactional-id', 't'],
      /^klog's kafka-producer-perf-test\.sh does not support --transactional-id: klog has no transactions/,
    );
    refused(
      [...base, '--record-size', '1', '--print-metrics'],
      /^klog's kafka-producer-perf-test\.sh does not support --print-metrics: /,
    );
    refused(
      [...base, 'acks=1', 'enable.idempotence=true', '--record-size', '1'],
      'Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );
    // No arguments at all: the help, exit 0.
    const help = kafka('kafka-producer-perf-test.sh', []);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--num-records <NUM-RECORDS>');
  });
});

describe('kafka-consumer-perf-test.sh', { timeout: LONG_TIMEOUT_MS }, () => {
  const HEADER =
    'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';
  const stamp = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}`;
  const f4 = String.raw`(?:\d+\.\d{4}|NaN|Infinity)`;
  const SUMMARY = new RegExp(
    `^${stamp}, ${stamp}, (${f4}), ${f4}, (\\d+), ${f4}, \\d+, -?\\d+, ${f4}, ${f4}$`,
  );

  it('reads --messages records in a group, prints the header and the summary line, and commits', () => {
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'toread', '--partitions', '2', ...at]).status,
    ).toBe(0);
    const sent = kafka('kafka-producer-perf-test.sh', [
      '--topic',
      'toread',
      '--num-records',
      '5000',
      '--record-size',
      '100',
      '--throughput',
      '-1',
      '--producer-props',
      props,
    ]);
    expect(sent.status).toBe(0);
    const run = kafka('kafka-consumer-perf-test.sh', [
      '--topic',
      'toread',
      '--messages',
      '5000',
      '--group',
      'perf-g',
      ...at,
    ]);
    expect([run.status, run.stderr, run.hung]).toEqual([0, '', false]);
    const [header, summary, ...rest] = run.stdout.trimEnd().split('\n');
    expect(header).toBe(HEADER);
    expect(rest).toEqual([]);
    const m = SUMMARY.exec(summary!)!;
    expect(m).not.toBeNull();
    // 5000 records of 100 bytes: 0.4768 MB (bytes / 1024²), as Kafka counts key and value bytes.
    expect([m[1], m[2]]).toEqual(['0.4768', '5000']);
    // The group committed where it stopped.
    const groups = kafka('kafka-consumer-groups.sh', ['--describe', '--group', 'perf-g', ...at]);
    const committed = groups.stdout
      .split('\n')
      .filter((l) => l.includes('toread'))
      .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[3]), 0);
    expect(committed).toBe(5000);

    // The same read as a member of a Kafka 4 consumer group (--consumer.config group.protocol=consumer).
    const config = join(scratch, 'consumer-protocol.properties');
    writeFileSync(config, 'group.protocol=consumer\n');
    const kip848 = kafka('kafka-consumer-perf-test.sh', [
      '--topic',
      'toread',
      '--messages',
      '5000',
      '--group',
      'perf-kip848',
      '--consumer.config',
      config,
      ...at,
    ]);
    expect([kip848.status, kip848.stderr, kip848.hung]).toEqual([0, '', false]);
    expect(SUMMARY.exec(kip848.stdout.trimEnd().split('\n')[1]!)?.slice(1, 3)).toEqual(['0.4768', '5000']);
    expect(kafka('kafka-consumer-groups.sh', ['--list', '--type', ...at]).stdout).toMatch(
      /^perf-kip848 +Consumer +$/m,
    );
  });

  it("stops at --timeout with Kafka's warning; --hide-header; --show-detailed-stats; bad input refused", () => {
    const run = kafka('kafka-consumer-perf-test.sh', [
      '--topic',
      'toread',
      '--messages',
      '6000',
      '--timeout',
      '500',
      '--hide-header',
      '--date-format',
      'yyyy',
      ...at,
    ]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'WARNING: Exiting before consuming the expected number of messages: timeout (500 ms) exceeded. You can use the --timeout option to increase the timeout.',
    );
    // A new group from the earliest: all 5000, fewer than asked.
    expect(lines[1]).toMatch(/^\d{4}, \d{4}, 0\.4768, [^,]+, 5000, /);
    expect(lines).toHaveLength(2);
    const detailed = kafka('kafka-consumer-perf-test.sh', [
      '--topic',
      'toread',
      '--messages',
      '10',
      '--show-detailed-stats',
      ...at,
    ]);
    expect(detailed.stdout.split('\n')[0]).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    const fails = (args: string[], stderr: string) =>
      expect(kafka('kafka-consumer-perf-test.sh', args)).toMatchObject({ status: 1, stderr });
    fails(['--topic', 'toread', ...at], 'Missing required argument "[messages]"\n');
    fails(['--messages', '1', ...at], 'Missing required argument "[topic]"\n');
    fails(
      ['--topic', 'toread', '--messages', '1', '--reporting-interval', 'x', ...at],
      'Value [x] did not match pattern [^\\d+$]\n',
    );
    fails(
      ['--topic', 'toread', '--messages', '1', '--date-format', 'EEE', ...at],
      "klog's kafka-consumer-perf-test.sh formats dates with the letters y M d H h m s S a only, not 'E'\n",
    );
    fails(
      ['--topic', 'toread', '--messages', '1', '--print-metrics', ...at],
      "klog's kafka-consumer-perf-test.sh does not support --print-metrics: klog's consumer keeps no Java metrics registry to print\n",
    );
  });
});
