import type { Logger, LogLevel } from './logger.js';

/**
 * One log line per kind of event per interval, with how many were not logged: a disk that fills, or a
 * flood of refused connections, shows in the broker's log at once without the log becoming the flood
 * (Kafka's `SocketServer` logs its connection refusals the same way, at most once per throttle interval).
 */
export class LogLimiter {
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `line` at `level` unless a line of `kind` was logged less than `intervalMs` ago (then counts it). */
  log(level: LogLevel, kind: string, line: string): void {
    const now = this.now();
    const seen = this.#last.get(kind);
    if (seen !== undefined && now - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    const more =
      seen !== undefined && seen.suppressed > 0
        ? ` (and ${seen.suppressed} more since the last such line)`
        : '';
    this.#last.set(kind, { at: now, suppressed: 0 });
    this.logger[level](`${line}${more}`);
  }
}
