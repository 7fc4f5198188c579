import { readFileSync } from 'node:fs';

/**
 * Where klog serve's CPU goes, from a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` Chrome's
 * DevTools opens) taken while kcat produces a bench workload: each sample's function is put in one of a
 * few parts of the produce path, named as the reader of the Performance page knows them. Native code
 * (a binding, a syscall) counts to the part of the JavaScript that called it: a `writev` under the
 * segment is the segment write, a CRC under the validator the CRC.
 */

/**
 * The main thread outside JavaScript: libuv's poll and the read(2) of each socket it makes there. The
 * profiler counts the poll phase as idle, reads and all, so most of this part is what the main thread's
 * CPU has beyond the samples (`cpuParts`).
 */
export const OUTSIDE_JS = 'socket reads, event loop';
/** CPU of the broker's threads other than the main one (V8's GC helpers and compiler, libuv's pool). */
export const OTHER_THREADS = 'other threads (GC, compiler)';

/** The parts, in the order the page and the bench print them. */
export const CPU_PARTS = [
  OUTSIDE_JS,
  'frames (connection)',
  'protocol decode/encode',
  'produce handler',
  'CRC-32C',
  'record validation',
  'segment write (page cache)',
  'log, producer state, index',
  'response write',
  'garbage collection',
  'other',
  OTHER_THREADS,
] as const;
export type CpuPart = (typeof CPU_PARTS)[number];

/** Main-thread CPU by part, as fractions of the sampled non-idle time. */
export interface CpuBreakdown {
  readonly sampledMs: number;
  readonly fractions: { readonly [P in CpuPart]: number };
}

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  /** µs on the monotonic clock (`process.hrtime` reads the same one on Linux). */
  readonly startTime: number;
}

/** A span of the monotonic clock, in µs: the samples counted are those taken inside it. */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** The part a function is in by its own name and file, or undefined: its caller's part. */
function ownPart(frame: CallFrame): CpuPart | 'idle' | undefined {
  const { functionName: name, url } = frame;
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'garbage collection';
  // Outside any JavaScript: libuv's poll, the read(2) of a socket, the kernel's copy.
  if (name === '(program)') return OUTSIDE_JS;
  if (/crc32/i.test(url) || /crc32c?$/i.test(name)) return 'CRC-32C';
  // The record walk (quick-walk.js, and the careful one in log-validator.js) is the validation's.
  if (url.includes('/storage/') && /\/(log-validator|quick-walk)\.js$/.test(url)) {
    return 'record validation';
  }
  if (url.includes('/storage/') && (url.includes('/file-records') || url.includes('/io/'))) {
    return 'segment write (page cache)';
  }
  if (url.includes('/storage/')) return 'log, producer state, index';
  if (url.includes('/protocol/')) return 'protocol decode/encode';
  if (url.includes('/broker/') && url.endsWith('/connection.js')) return 'frames (connection)';
  if (url.includes('/broker/')) return 'produce handler';
  if (url === 'node:internal/stream_base_commons' && name === 'onStreamRead') {
    return OUTSIDE_JS;
  }
  if (url.startsWith('node:internal/stream_base_commons') || url === 'node:net') return 'response write';
  if (url.startsWith('node:internal/streams/writable')) return 'response write';
  return undefined;
}

/** Sums a profile's samples by part (the time each sample stands for is the delta after it). */
export function breakdownOf(profile: CpuProfile, window?: ProfileWindow): CpuBreakdown {
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) byId.set(n.id, n);
  const part = new Map<number, CpuPart | 'idle'>();
  // Parents come before their children in a V8 profile, but walking from the root does not depend on it.
  const root = profile.nodes[0]!;
  const stack: [ProfileNode, CpuPart | 'idle'][] = [[root, 'other']];
  while (stack.length > 0) {
    const [node, inherited] = stack.pop()!;
    const own = ownPart(node.callFrame) ?? inherited;
    part.set(node.id, own);
    for (const c of node.children ?? []) {
      const child = byId.get(c);
      if (child !== undefined) stack.push([child, own]);
    }
  }
  const sums = new Map<CpuPart, number>(CPU_PARTS.map((p) => [p, 0]));
  let total = 0;
  // A sample's time is the start plus the deltas up to it; the one after it is how long it stands for.
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) continue;
    const p = part.get(profile.samples[i]!) ?? 'other';
    if (p === 'idle') continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    sums.set(p, sums.get(p)! + us);
    total += us;
  }
  const fractions = Object.fromEntries(CPU_PARTS.map((p) => [p, total > 0 ? sums.get(p)! / total : 0]));
  return { sampledMs: total / 1000, fractions: fractions as CpuBreakdown['fractions'] };
}

/** CPU per MB measured outside the profiler, in ms. */
export interface MeasuredCpu {
  /** The unprofiled rounds: every thread of the broker. */
  readonly allMsPerMb: number;
  /** The unprofiled rounds: the main thread alone. */
  readonly mainThreadMsPerMb: number;
  /** The profiled run: the main thread alone (the profile's samples are of this time). */
  readonly profiledMainThreadMsPerMb: number;
}

/**
 * The unprofiled rounds' CPU per MB by part. The samples see only part of the main thread's CPU: V8 counts
 * libuv's poll phase as idle, and the socket reads made in it with it. So the sampled parts get the share
 * of the main thread's CPU that the samples cover (in the profiled run), the rest of it goes to the
 * event loop outside JavaScript, and what the other threads used is a part of its own: the parts add up
 * to the whole, and nothing is spread over parts that did not spend it.
 */
export function cpuParts(
  b: CpuBreakdown,
  profiledMb: number,
  measured: MeasuredCpu,
): { part: CpuPart; fraction: number; msPerMb: number }[] {
  const main = Math.min(measured.mainThreadMsPerMb, measured.allMsPerMb);
  // Sampled wall time can pass the CPU it stands for (a thread preempted inside a syscall): at most all.
  const seen =
    measured.profiledMainThreadMsPerMb > 0
      ? Math.min(1, b.sampledMs / profiledMb / measured.profiledMainThreadMsPerMb)
      : 1;
  return CPU_PARTS.map((part) => {
    let ms = b.fractions[part] * seen * main;
    if (part === OUTSIDE_JS) ms += (1 - seen) * main;
    if (part === OTHER_THREADS) ms = measured.allMsPerMb - main;
    return { part, fraction: measured.allMsPerMb > 0 ? ms / measured.allMsPerMb : 0, msPerMb: ms };
  });
}

export function readCpuProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}
