import { Option } from 'commander';
import { UsageError } from './errors.js';

// Flag readers more than one command uses (serve, topics, ack-loss-demo): each bad value is one usage line naming the flag.

/** A whole number flag in [min, max], or a one-line usage error naming the flag. */
export function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a whole number from ${min} to ${max}`);
  }
  return n;
}

/** `host:port` (an IPv6 address in brackets: `[::1]:9092`). */
export function hostPort(flag: string, text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:\s]+):(\d+)$/.exec(text);
  if (m === null)
    throw new UsageError(`${flag} ${JSON.stringify(text)}: expected host:port, e.g. 127.0.0.1:9092`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: wholeNumber(flag, m[2]!, 1, 65535) };
}

/** Where `klog topics` and `klog groups` look for a broker unless told: `klog serve`'s default address. */
const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** `--bootstrap-server`, as every `klog topics` and `klog groups` subcommand takes it (a fresh Option each). */
export function bootstrapServerOption(): Option {
  return new Option('--bootstrap-server <host:port>', 'the broker to talk to').default(DEFAULT_BOOTSTRAP);
}
