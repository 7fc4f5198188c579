import { BOUNDS, LOG_LEVELS, type LogLevel } from '@klog/broker';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';

export function logLevel(text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text)) {
    throw new UsageError(`--log-level ${JSON.stringify(text)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  return text as LogLevel;
}

export function hostFlag(flag: string, text: string): string {
  if (text.trim() === '' || /\s/.test(text))
    throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a host name or address`);
  return text;
}

/** A number flag given or not, checked against the broker's bounds for `setting` (config.ts, one place). */
export function optionalNumber<K extends keyof typeof BOUNDS>(
  flag: string,
  text: string | undefined,
  setting: K,
): { [P in K]?: number } {
  if (text === undefined) return {};
  const [min, max] = BOUNDS[setting];
  return { [setting]: wholeNumber(flag, text, min, max) } as { [P in K]?: number };
}

type FlushSettings = { logFlushIntervalMessages?: number; logFlushIntervalMs?: number };

/**
 * `--flush`: `os` (Kafka's default, nothing forced), `every-append` (log.flush.interval.messages = 1),
 * `messages=N`, `ms=N` (log.flush.interval.ms), or both joined by a comma.
 */
export function flushPolicy(text: string): FlushSettings {
  if (text === 'os') return {};
  if (text === 'every-append') return { logFlushIntervalMessages: 1 };
  const out: FlushSettings = {};
  for (const part of text.split(',')) {
    const m = /^(messages|ms)=(.*)$/.exec(part);
    const key = m?.[1] === 'messages' ? 'logFlushIntervalMessages' : 'logFlushIntervalMs';
    if (m === null || out[key] !== undefined) {
      throw new UsageError(
        `--flush ${JSON.stringify(text)}: expected os, every-append, messages=N, ms=N or messages=N,ms=M`,
      );
    }
    const [min, max] = BOUNDS[key];
    out[key] = wholeNumber(`--flush ${m[1]}`, m[2]!, min, max);
  }
  return out;
}
