/**
 * The shape of bench/results.json: what `pnpm bench` measured, on which machine,
 * when, and which targets it met. docs/performance.mdx is rendered from it alone.
 */

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly node: string;
  readonly os: string;
  readonly arch: string;
}

/** Per-operation latency, pooled over all rounds. */
export interface TaskStats {
  readonly name: string;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
  readonly opsPerSample: number;
  /** Operations per second from the mean, and what one operation moves. */
  readonly opsPerSec: number;
  readonly batchesPerSec?: number;
  readonly recordsPerSec?: number;
  readonly bytesPerSec?: number;
}

export type RatioFormat = 'times' | 'percent';

export type GroupId = 'codec' | 'append' | 'rebuild' | 'judge';

export interface Comparison {
  readonly id: string;
  readonly group: GroupId;
  /** What is compared, e.g. `encode, 10 records × 1 KiB`. */
  readonly label: string;
  readonly subject: TaskStats;
  readonly baseline: TaskStats;
  /** baseline mean / subject mean (median over rounds). */
  readonly ratio: number;
  readonly roundRatios: readonly number[];
  /** How to read `ratio`, e.g. `faster than KafkaJS`. */
  readonly ratioUnit: string;
  /** Print the ratio as `3.20×` or as `87 %`. */
  readonly ratioFormat: RatioFormat;
  /** The target this row counts towards, if any. */
  readonly targetId?: string;
  readonly met?: boolean;
  /** Anything a reader must know to read the row fairly. */
  readonly note?: string;
}

export interface Target {
  readonly id: string;
  readonly label: string;
  /** The ratio must be at least this. */
  readonly min: number;
  /** The lowest ratio among the rows that count towards it. */
  readonly worst: number;
  readonly met: boolean;
  readonly ratioFormat: RatioFormat;
  readonly rows: readonly string[];
}

export interface MemoryResult {
  readonly producers: number;
  readonly batchesPerProducer: number;
  /** Heap the state holds after a full GC. */
  readonly retainedBytes: number;
  /** Highest heap seen while building it, above the heap before. */
  readonly peakBytes: number;
  readonly bytesPerProducer: number;
  /** The numbers themselves, packed: pid, epoch and per batch four numbers, 8 bytes each. */
  readonly payloadBytesPerProducer: number;
}

export interface BenchResults {
  readonly schema: 1;
  readonly date: string;
  readonly quick: boolean;
  readonly durationSeconds: number;
  readonly machine: MachineInfo;
  readonly tools: { readonly tinybench: string; readonly kafkajs: string };
  readonly method: {
    readonly rounds: number;
    readonly timeMsPerTaskPerRound: number;
    readonly warmupMs: number;
  };
  readonly targets: readonly Target[];
  readonly comparisons: readonly Comparison[];
  readonly memory: MemoryResult;
}
