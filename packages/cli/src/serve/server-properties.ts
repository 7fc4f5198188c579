import { CONFIG_TABLES, type ConfigTables } from '@klog/broker';
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

/** What a server.properties gives `klog serve`, by the names the settings tables know. */
export interface ServerProperties {
  readonly path: string;
  /**
   * Values by Kafka's name as the tables spell it: a broker setting's own name (a synonym such as `broker.id`
   * is stored under `node.id`), a topic config's broker-level default, or a coarser spelling of one
   * (`log.retention.hours`).
   */
  readonly values: ReadonlyMap<string, string>;
  /** Keys no row has: each is named in one warning line. */
  readonly ignored: readonly string[];
}

/**
 * A server.properties read by the settings tables (`BROKER_CONFIGS`, `TOPIC_CONFIGS`): the names every row
 * (and its synonyms) has, and the keys it ignores — Kafka's files hold many settings a one-node klog has no
 * use for (process.roles, controller.quorum.voters, listeners…): each is named in one warning line, not an
 * error.
 */
export function readServerProperties(
  text: string,
  file: string,
  tables: ConfigTables = CONFIG_TABLES,
): ServerProperties {
  const names = new Map<string, string>();
  for (const def of tables.broker) {
    if (def.name === null) continue;
    for (const name of [def.name, ...(def.synonyms ?? [])]) names.set(name, def.name);
  }
  for (const def of tables.topic) {
    for (const name of [def.brokerName, ...(def.brokerSynonyms ?? []).map((c) => c.name)])
      names.set(name, name);
  }
  const values = new Map<string, string>();
  const ignored: string[] = [];
  for (const [key, { value }] of parseProperties(text, file)) {
    const name = names.get(key);
    if (name === undefined) {
      ignored.push(key);
      continue;
    }
    // log.dirs may list several directories: klog has one.
    if (tables.broker.some((d) => d.name === name && d.validator.kind === 'path') && value.includes(',')) {
      throw new UsageError(`${file}: ${key}=${value}: klog keeps one log directory, give one`);
    }
    values.set(name, value.trim());
  }
  return { path: file, values, ignored };
}
