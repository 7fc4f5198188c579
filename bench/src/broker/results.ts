import { existsSync, readFileSync } from 'node:fs';
import type { MachineInfo } from '../results.js';
import type { StartupResult } from './startup-bench.js';

/**
 * The shape of bench/broker-results.json: `pnpm bench:broker`, klog serve against librdkafka's own mock
 * cluster and against raw loopback sockets, the same kcat, the same bytes, in one run. The Performance
 * page renders its broker section from it.
 */

/** One measured run of one side. */
export interface Run {
  readonly ms: number;
  /** Payload megabytes (10^6 bytes of message values) per second. */
  readonly mbPerSec: number;
  /** CPU seconds (user + system) of the broker's process per payload megabyte, where measured. */
  readonly cpuSecondsPerMb?: number;
  /** Of that, the main thread's (the event loop, where JavaScript runs); absent in older results. */
  readonly mainThreadCpuSecondsPerMb?: number;
  /** Of that, the kernel's (all threads; /proc's stime in 10 ms ticks); absent in older results. */
  readonly kernelCpuSecondsPerMb?: number;
}

export interface Pair {
  readonly klog: readonly Run[];
  readonly baseline: readonly Run[];
  /** klog throughput / baseline throughput, per round. */
  readonly roundRatios: readonly number[];
  /** Median of the round ratios. */
  readonly ratio: number;
}

export interface WorkloadResult {
  readonly id: string;
  readonly label: string;
  readonly messages: number;
  readonly messageBytes: number;
  /**
   * Messages each broker took on another topic before each timed produce (a broker in service, its produce
   * path compiled); absent in older results, which timed a broker's first produce.
   */
  readonly warmUpMessages?: number;
  /** Producing every message with kcat, idempotent, acks=all: klog / the mock. */
  readonly produce: Pair;
  /** Reading back a window both brokers keep (the mock keeps ~5 MB per partition): klog / the mock. */
  readonly fetch: Pair & {
    readonly messages: number;
    /** Reads of the window per broker in each round, their times added (absent in older results: one). */
    readonly reads?: number;
  };
  /** klog's produce against moving the same bytes through a loopback socket (the limit). */
  readonly produceVsLoopback: Pair;
  /** Reading every message back from klog against the loopback socket. */
  readonly readBackVsLoopback: Pair;
  /**
   * The same bytes into a Node process that only writes each chunk it reads to a file (no protocol, no
   * checks): the CPU per MB below which no broker in Node that keeps Kafka's files can go; absent in older
   * results.
   */
  readonly fileFloor?: readonly Run[];
  /**
   * The same bytes into a process that reads them into one reused 1 MiB buffer and writes each read to a
   * file in the data directory's file system (Python, `bench/python/file_floor.py`): what the kernel alone
   * spends per MB here on TCP receive and the page-cache write, which any broker keeping its log in files
   * pays; absent in older results.
   */
  readonly kernelFloor?: readonly Run[];
  /**
   * klog's own CRC-32C (`computeBatchCrc`, what storage runs on each produced batch) over the record batches
   * of the round's produce as klog stored them, one Run per round (measured in the bench's process,
   * process.cpuUsage); with the kernel floor it makes the floor of issue 44's CPU goal (cpu-floor.ts). Absent
   * in older results.
   */
  readonly crc32cFloor?: readonly Run[];
  /** The record batches kcat sent in the last round: how many, and their mean size in bytes; absent in older results. */
  readonly producedBatches?: { readonly count: number; readonly meanBytes: number };
  /** klog serve's peak resident memory while kcat produced (sampled every 50 ms); absent in older results. */
  readonly rssUnderLoadBytes?: number;
  /** Where klog's produce CPU goes, from a profiled run; absent in older results. */
  readonly profile?: ProduceProfile;
}

/** One more produce of a workload with klog under `node --cpu-prof`, and its CPU by part. */
export interface ProduceProfile {
  /** The `.cpuprofile`'s name (bench/profiles/ when the run wrote its results; DevTools opens it). */
  readonly file: string;
  /** The samples are those taken while kcat produced (false: the whole profile, startup included). */
  readonly windowed: boolean;
  /** klog's CPU per MB in this profiled run (/proc: every thread, the profiler's cost too). */
  readonly profiledCpuMsPerMb: number;
  /** The main thread's CPU per MB in this profiled run; absent in older results. */
  readonly profiledMainThreadMsPerMb?: number;
  /** The main thread's sampled non-idle time per MB. */
  readonly sampledMsPerMb: number;
  /**
   * Each part's ms of the unprofiled rounds' CPU per MB and its share of that: the sampled parts scaled to
   * the main thread's CPU, what the sampler never sees of it (socket reads in the event loop's poll), and the
   * other threads' (cpu-profile.ts, `cpuParts`). Older results: the sampled shares of the whole.
   */
  readonly parts: readonly { readonly part: string; readonly fraction: number; readonly msPerMb: number }[];
}

/** Results written before issue 44's settled reading: RSS 0.5 s after the last connection, no baseline. */
export interface EarlyIdleConnections {
  readonly measure?: undefined;
  readonly connections: number;
  /** The median round's (a fresh klog serve each round). */
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /** The median of the rounds: RSS is V8's heap sizing as much as what a connection holds, so one run swings. */
  readonly bytesPerConnection: number;
  /** Each round's figure; absent in results written before rounds. */
  readonly roundBytesPerConnection?: readonly number[];
}

/**
 * RSS read once the process has stopped changing, before and after the connections (V8's memory reducer
 * has run, klog has let quiet connections' frame buffers go), on the CLI bundle, beside a Node process that
 * only accepts and answers, in the same rounds.
 */
export interface SettledIdleConnections {
  readonly measure: 'settled';
  readonly connections: number;
  /** The median round's (fresh processes each round). */
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /** klog's median of the rounds, and each round's. */
  readonly bytesPerConnection: number;
  readonly roundBytesPerConnection: readonly number[];
  /** The Node baseline's median bytes per connection, and each round's. */
  readonly nodeBytesPerConnection: number;
  readonly roundNodeBytesPerConnection: readonly number[];
  /** Readings taken when the wait for a settled process ran out (0 in a clean run). */
  readonly unsettledReadings: number;
}

export type IdleConnectionsResult = EarlyIdleConnections | SettledIdleConnections;

/** klog serve's RSS with consumers that stopped reading their Fetch responses (issue 22). */
export interface StalledConsumersResult {
  readonly consumers: number;
  /** `--queued-max-request-bytes`. */
  readonly budgetBytes: number;
  readonly rssBeforeBytes: number;
  readonly rssPeakBytes: number;
}

/** Produce throughput with `--flush every-append` against the default (`os`). */
export interface FlushCostResult {
  readonly messages: number;
  readonly messageBytes: number;
  readonly osMbPerSec: number;
  readonly everyAppendMbPerSec: number;
  /** every-append / os, median over rounds. */
  readonly ratio: number;
}

/** Consuming through a consumer group with kcat -G (issue 23): klog serve against the mock's coordinator. */
export interface GroupConsumeResult {
  readonly label: string;
  readonly messages: number;
  readonly messageBytes: number;
  readonly partitions: number;
  /** Every message, from klog only (the mock keeps ~5 MB per partition). */
  readonly all: readonly Run[];
  readonly allFirstMessageMs: number;
  /** A window both brokers keep, consumed through a group on each: klog / the mock. */
  readonly window: Pair & { readonly messages: number };
  /** Median ms from kcat's start (its join) to its first message, on the window. */
  readonly firstMessageMs: { readonly klog: number; readonly mock: number };
  /**
   * The same window read from klog by a member of Kafka 4's consumer group protocol (kcat on librdkafka 2.15.1,
   * `group.protocol=consumer`): no initial rebalance delay, the broker assigns (issue 41). Absent in older
   * results, or where no librdkafka 2.15.1 build was there.
   */
  readonly consumerProtocol?: {
    readonly window: readonly Run[];
    readonly firstMessageMs: number;
    /** The classic protocol on the same librdkafka 2.15.1, in the same rounds (absent in older results). */
    readonly classicOnSameClient?: { readonly window: readonly Run[]; readonly firstMessageMs: number };
  };
  /**
   * The same window from the first message to the last: the reading alone, without the join and its
   * rebalance delay (3 s of the whole on both sides). Absent in older results.
   */
  readonly afterJoin?: Pair;
}

export interface BrokerBenchResults {
  readonly schema: 1;
  readonly date: string;
  readonly quick: boolean;
  readonly durationSeconds: number;
  readonly machine: MachineInfo;
  readonly tools: { readonly kcat: string; readonly librdkafka: string };
  readonly rounds: number;
  readonly workloads: readonly WorkloadResult[];
  readonly idle: IdleConnectionsResult;
  readonly stalledConsumers?: readonly StalledConsumersResult[];
  readonly flushCost?: FlushCostResult;
  /** Absent in results written before consumer groups. */
  readonly groupConsume?: GroupConsumeResult;
  /** Produce and fetch throughput at least `min` of the mock's (the produce goal), the worst ratio. */
  readonly target: { readonly min: number; readonly worst: number; readonly met: boolean };
  /**
   * Every goal of the run (issues 25 and 44), each against its figure; absent in older results. Results
   * written before issue 44's floor goal hold issue 25's "CPU per MB …, klog / mock" ≤ 3× in its place.
   */
  readonly goals?: readonly Goal[];
  /** klog serve's start-up and idle RSS against Node's, in the same run (issue 44); absent in older results. */
  readonly startup?: StartupResult;
}

/** One goal: a figure of the run against the bound it must reach (≥) or stay under (≤). */
export interface Goal {
  readonly label: string;
  readonly value: number;
  readonly bound: number;
  readonly direction: 'atLeast' | 'atMost';
  readonly unit: 'ratio' | 'KiB';
  readonly met: boolean;
}

/** bench/broker-results.json if `pnpm bench:broker` has written one. */
export function readBrokerResults(path: string): BrokerBenchResults | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as BrokerBenchResults) : undefined;
}
