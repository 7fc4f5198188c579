/**
 * The broker's log: one line per event, with a level. `info` says what a person running `klog serve` wants to
 * know (listening, shutting down, a connection closed for a reason); `debug` adds every connection and a
 * summary of every request, as Kafka's request log does.
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  readonly level: LogLevel;
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
  /** Whether `debug` lines are kept (so callers can skip building them). */
  readonly debugEnabled: boolean;
}

export function createLogger(level: LogLevel, sink: (level: LogLevel, line: string) => void): Logger {
  const rank = LOG_LEVELS.indexOf(level);
  const at = (l: LogLevel) => (LOG_LEVELS.indexOf(l) <= rank ? (m: string) => sink(l, m) : () => {});
  return {
    level,
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    debugEnabled: rank >= LOG_LEVELS.indexOf('debug'),
  };
}

/** Keeps nothing: for a broker embedded in a test that does not look at its log. */
export const SILENT: Logger = createLogger('error', () => {});
