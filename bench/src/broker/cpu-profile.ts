import { readFileSync } from 'node:fs';

/**
 * Where klog serve's CPU goes, from a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` Chrome's
 * DevTools opens) taken while kcat produces a bench workload: each sample's function is put in one of a
 * few parts of the produce path, named as the reader of the Performance page knows them. Native code
 * (a binding, a syscall) counts to the part of the JavaScript that called it: a `writev` under the
 * segment is the segment write, a CRC under the validator the CRC.
 */

/** The parts, in the order the page and the bench print them. */
export const CPU_PARTS = [
  'socket read, event loop (native)',
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
  if (name === '(program)') return 'socket read, event loop (native)';
  if (/crc32/i.test(url) || /crc32c?$/i.test(name)) return 'CRC-32C';
  if (url.includes('/storage/') && url.includes('/log-validator')) return 'record validation';
  if (url.includes('/storage/') && (url.includes('/file-records') || url.includes('/io/'))) {
    return 'segment write (page cache)';
  }
  if (url.includes('/storage/')) return 'log, producer state, index';
  if (url.includes('/protocol/')) return 'protocol decode/encode';
  if (url.includes('/broker/') && url.endsWith('/connection.js')) return 'frames (connection)';
  if (url.includes('/broker/')) return 'produce handler';
  if (url === 'node:internal/stream_base_commons' && name === 'onStreamRead') {
    return 'socket read, event loop (native)';
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

export function readCpuProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}
