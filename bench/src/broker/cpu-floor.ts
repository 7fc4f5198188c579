import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  computeBatchCrc,
  decodeBatchHeader,
  LOG_OVERHEAD,
  partitionDirName,
  SEGMENT_SUFFIX,
} from '@klog/storage/internals';
import type { Run, WorkloadResult } from './results.js';

/**
 * Issue 44's CPU goal: klog's CPU per MB of produce at most 1.5× the floor, the floor being what any broker
 * that keeps its log in files and checks each batch's CRC must spend: the kernel floor (TCP receive and the
 * page-cache write, file_floor.py) plus CRC-32C over the same record batches. It replaces issue 25's "at most
 * 3× the mock's", a bound on an in-memory broker that writes nothing.
 */
export const FLOOR_RATIO_GOAL = 1.5;

/** The goal's label in the results' goal list, one per workload. */
export function floorGoalLabel(workloadLabel: string): string {
  return `CPU per MB ${workloadLabel}, klog / floor`;
}

/** Issue 25's label of the goal it replaces, as older results hold it. */
export function isRetiredMockCpuGoal(label: string): boolean {
  return /^CPU per MB .*, klog \/ mock$/.test(label);
}

/** CRC-32C's CPU is measured for at least this long per round: 200,000 times process.cpuUsage's µs. */
const CRC_MIN_CPU_SECONDS = 0.2;

/**
 * The record batches klog stored of a partition, each one's bytes as kcat sent them (klog stamps the base
 * offset and leader epoch in place, both outside the CRC's range): every segment of `topic`-`partition`
 * under `dataDir`, in offset order.
 */
export function storedBatches(dataDir: string, topic: string, partition: number): Buffer[] {
  const dir = join(dataDir, partitionDirName(topic, partition));
  const batches: Buffer[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(SEGMENT_SUFFIX))
    .sort()) {
    const bytes = readFileSync(join(dir, name));
    for (let pos = 0; pos < bytes.length; ) {
      const header = decodeBatchHeader(bytes, pos);
      const size = LOG_OVERHEAD + header.batchLength;
      batches.push(bytes.subarray(pos, pos + size));
      pos += size;
    }
  }
  return batches;
}

/**
 * CPU seconds of klog's own CRC-32C per payload MB over `batches`: `computeBatchCrc`, which `Log.check` runs on
 * every produced batch (Kafka's `DefaultRecordBatch.ensureValid`), on each batch in turn, the whole set again
 * until CRC_MIN_CPU_SECONDS of this process's CPU (process.cpuUsage: every thread, µs) have gone, after one
 * pass not counted (the first calls load and optimise the binding's path).
 */
export function crcCpuRun(batches: readonly Uint8Array[], payloadBytes: number): Run {
  const pass = () => {
    for (const b of batches) computeBatchCrc(b, 0, { batchLength: b.length - LOG_OVERHEAD });
  };
  pass();
  const started = performance.now();
  const before = process.cpuUsage();
  let passes = 0;
  let used = 0;
  while (used < CRC_MIN_CPU_SECONDS * 1e6) {
    pass();
    passes++;
    const u = process.cpuUsage(before);
    used = u.user + u.system;
  }
  const ms = performance.now() - started;
  const mb = (payloadBytes * passes) / 1e6;
  return { ms, mbPerSec: mb / (ms / 1000), cpuSecondsPerMb: used / 1e6 / mb };
}

/** One workload's CPU per MB against its floor, each a mean over the rounds, in ms; undefined before CRC was measured. */
export interface CpuFloor {
  readonly klogMsPerMb: number;
  readonly kernelMsPerMb: number;
  readonly crcMsPerMb: number;
  /** kernel + CRC-32C. */
  readonly floorMsPerMb: number;
  /** klog ÷ floor: the goal is at most FLOOR_RATIO_GOAL. */
  readonly ratio: number;
}

const meanMs = (runs: readonly Run[]) =>
  (runs.reduce((s, r) => s + (r.cpuSecondsPerMb ?? 0), 0) / runs.length) * 1000;

export function cpuFloorOf(
  w: Pick<WorkloadResult, 'produce' | 'kernelFloor' | 'crc32cFloor'>,
): CpuFloor | undefined {
  if (w.kernelFloor === undefined || w.crc32cFloor === undefined) return undefined;
  if (w.kernelFloor.length === 0 || w.crc32cFloor.length === 0) return undefined;
  const klogMsPerMb = meanMs(w.produce.klog);
  const kernelMsPerMb = meanMs(w.kernelFloor);
  const crcMsPerMb = meanMs(w.crc32cFloor);
  const floorMsPerMb = kernelMsPerMb + crcMsPerMb;
  return { klogMsPerMb, kernelMsPerMb, crcMsPerMb, floorMsPerMb, ratio: klogMsPerMb / floorMsPerMb };
}
