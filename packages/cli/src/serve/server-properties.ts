import { UsageError } from '../errors.js';

/**
 * `klog serve --config <file>`: a Kafka `server.properties`, read as Java's `Properties.load` reads the
 * lines Kafka's files use (`key=value` or `key: value`, `#` and `!` comments, blank lines, a trailing `\`
 * joining the next line). A line that is not a setting is an error naming the file and line.
 */
export function parseProperties(
  text: string,
  file: string,
): Map<string, { readonly value: string; readonly line: number }> {
  const out = new Map<string, { value: string; line: number }>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const at = i + 1;
    let line = lines[i]!.trim();
    while (line.endsWith('\\') && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line);
    if (m === null) throw new UsageError(`${file}:${at}: expected key=value, got ${JSON.stringify(line)}`);
    out.set(m[1]!, { value: m[2]!, line: at });
  }
  return out;
}

/** The broker-level topic defaults klog applies, by Kafka's names (the broker checks their values). */
export const LOG_SETTING_NAMES = [
  'compression.type',
  'log.cleanup.policy',
  'log.cleaner.delete.retention.ms',
  'log.cleaner.min.cleanable.ratio',
  'log.cleaner.min.compaction.lag.ms',
  'log.message.timestamp.type',
  'log.retention.bytes',
  'log.retention.ms',
  'log.retention.minutes',
  'log.retention.hours',
  'log.roll.ms',
  'log.roll.hours',
] as const;

/** Settings with a `klog serve` option of their own, by Kafka's name → the option's flag. */
export const OPTION_SETTINGS: Readonly<Record<string, string>> = {
  'log.dirs': '--data-dir',
  'log.dir': '--data-dir',
  'node.id': '--node-id',
  'broker.id': '--node-id',
  'auto.create.topics.enable': '--auto-create-topics',
  'num.partitions': '--num-partitions',
  'message.max.bytes': '--message-max-bytes',
  'log.segment.bytes': '--segment-bytes',
  'socket.request.max.bytes': '--socket-request-max-bytes',
  'connections.max.idle.ms': '--connections-max-idle-ms',
  'log.retention.check.interval.ms': '--log-retention-check-interval-ms',
  'log.cleaner.backoff.ms': '--log-cleaner-backoff-ms',
};

/**
 * What a server.properties gives `klog serve`: values for its own options (by flag), broker-level topic
 * defaults, and the keys it ignores — Kafka's files hold many settings a one-node klog has no use for
 * (process.roles, controller.quorum.voters, listeners…): each is named in one warning line, not an error.
 */
export function readServerProperties(
  text: string,
  file: string,
): {
  readonly flags: ReadonlyMap<string, string>;
  readonly logSettings: Readonly<Record<string, string>>;
  readonly ignored: readonly string[];
} {
  const flags = new Map<string, string>();
  const logSettings: Record<string, string> = {};
  const ignored: string[] = [];
  for (const [key, { value }] of parseProperties(text, file)) {
    const flag = OPTION_SETTINGS[key];
    if (flag !== undefined) {
      // log.dirs may list several directories: klog has one.
      if (flag === '--data-dir' && value.includes(',')) {
        throw new UsageError(`${file}: ${key}=${value}: klog keeps one log directory, give one`);
      }
      flags.set(flag, value.trim());
    } else if ((LOG_SETTING_NAMES as readonly string[]).includes(key)) {
      logSettings[key] = value;
    } else {
      ignored.push(key);
    }
  }
  return { flags, logSettings, ignored };
}
