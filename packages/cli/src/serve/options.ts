import { LOG_LEVELS, type LogLevel } from '@klog/broker';
import { UsageError } from '../errors.js';

export function logLevel(text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text)) {
    throw new UsageError(`--log-level ${JSON.stringify(text)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  return text as LogLevel;
}

export function hostFlag(flag: string, text: string): string {
  if (text.trim() === '' || /\s/.test(text)) throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a host name or address`);
  return text;
}
