import { BROKER_CONFIGS, LOG_LEVELS, type LogLevel } from '@klog/broker';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../flags.js';

export function logLevel(text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text)) {
    throw new UsageError(`--log-level ${JSON.stringify(text)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  return text as LogLevel;
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
    // The bounds of the setting's own row (log.flush.interval.messages or log.flush.interval.ms).
    const v = BROKER_CONFIGS.find((d) => d.key === key)!.validator as { min: number; max: number };
    out[key] = wholeNumber(`--flush ${m[1]}`, m[2]!, v.min, v.max);
  }
  return out;
}
