// The command lines of Kafka's tools, read as Kafka reads them: jopt-simple's long options (`--name value`,
// `--name=value`, any unique prefix of a name), each tool's own list of them (Kafka's `*CommandOptions`
// classes), and the checks of Kafka's `CommandLineUtils` (required, incompatible). Parsing and printing
// only: the tools themselves are in this folder's other files.

/** One option of a Kafka tool: a flag, or one that takes a value (repeatable if `many`). */
export interface ToolOption {
  readonly name: string;
  readonly arg?: string;
  readonly many?: boolean;
  /** jopt-simple's `withOptionalArg`: the next word is its value unless it is an option. */
  readonly optional?: boolean;
  readonly help: string;
  /**
   * Kafka's tool has it and klog's cannot honour it: why, said in one line and exit 1, never ignored
   * silently.
   */
  readonly unsupported?: string;
}

/**
 * A command line Kafka's tool would refuse: the message on stderr, exit code 1 (what Kafka's
 * `CommandLineUtils.printUsageAndExit` and an `IllegalArgumentException` in a tool's main give).
 */
export class ToolUsageError extends Error {
  override readonly name = 'ToolUsageError';
}

/** `--help` or `--version`: printed, exit code 0 (Kafka's `HelpOrVersionException`). */
export class ToolHelp extends Error {
  override readonly name = 'ToolHelp';
  constructor(readonly text: string) {
    super('help');
  }
}

export interface ParsedOptions {
  has(name: string): boolean;
  value(name: string): string | undefined;
  values(name: string): readonly string[];
  readonly given: ReadonlySet<string>;
}

/** Why `--command-config` is refused: its settings are security settings, and klog speaks PLAINTEXT only. */
export const NO_SECURITY = 'klog speaks PLAINTEXT only, so there are no admin client settings to pass';

/**
 * A tool's options written as its `--help` lists them, one option a line: `--name`, then `<arg>` for one
 * that takes a value (`<arg>...` when it may repeat, `[arg]` when the value is optional, as jopt-simple
 * prints it), then two or more spaces and the help; an indented line `unsupported: why` under an option
 * marks one klog refuses. Kafka's tools are read the way their help reads, and the tables stay data.
 */
export function optionTable(text: string): readonly ToolOption[] {
  const out: ToolOption[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const refused = /^\s+unsupported: (.*)$/.exec(line);
    if (refused !== null) {
      const last = out.pop();
      if (last === undefined) throw new Error(`optionTable: ${line.trim()} follows no option`);
      out.push({ ...last, unsupported: refused[1]! });
      continue;
    }
    const m = /^--(\S+)(?: ([<[])(.*?)[>\]](\.\.\.)?)?(?:\s{2,}(.*))?$/.exec(line.trim());
    if (m === null) throw new Error(`optionTable: cannot read ${JSON.stringify(line)}`);
    const [, name, bracket, arg, many, help] = m;
    out.push({
      name: name!,
      help: help ?? '',
      ...(arg === undefined ? {} : { arg }),
      ...(many === undefined ? {} : { many: true }),
      ...(bracket === '[' ? { optional: true } : {}),
    });
  }
  return out;
}

const COMMON: readonly ToolOption[] = [
  { name: 'help', help: 'Print usage information.' },
  { name: 'version', help: 'Display Kafka version.' },
];

/** Kafka's version these tools follow, as `--version` prints it, with klog's. */
export const KAFKA_TOOLS_VERSION = '4.1.0';

/**
 * Reads `args` against `options` as jopt-simple does: an unknown option or a missing value is a
 * ToolUsageError, with jopt-simple's words.
 */
export function parseToolArgs(
  tool: string,
  purpose: string,
  options: readonly ToolOption[],
  args: readonly string[],
): ParsedOptions {
  const all = [...COMMON, ...options];
  const found = new Map<string, string[]>();
  const resolve = (written: string): ToolOption => {
    const exact = all.find((o) => o.name === written);
    if (exact !== undefined) return exact;
    // jopt-simple takes any unambiguous prefix of an option's name.
    const prefixed = all.filter((o) => o.name.startsWith(written));
    if (prefixed.length === 1) return prefixed[0]!;
    if (prefixed.length > 1)
      throw new ToolUsageError(
        `Option ${written} is ambiguous; possibilities: ${prefixed.map((o) => o.name).join(', ')}`,
      );
    throw new ToolUsageError(`${written} is not a recognized option`);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--') || a === '--') {
      // Kafka's tools take no positional arguments; jopt-simple keeps them and the tools refuse them.
      throw new ToolUsageError(`Found non argument parameters: ${a}`);
    }
    const eq = a.indexOf('=');
    const option = resolve(eq < 0 ? a.slice(2) : a.slice(2, eq));
    let value: string | undefined;
    if (option.arg !== undefined) {
      if (eq >= 0) value = a.slice(eq + 1);
      else if (i + 1 < args.length && !(option.optional === true && args[i + 1]!.startsWith('--')))
        value = args[++i];
      if (value === undefined && option.optional === true) value = '';
      if (value === undefined) throw new ToolUsageError(`Option ${option.name} requires an argument`);
    } else if (eq >= 0) {
      throw new ToolUsageError(`Option ${option.name} does not take an argument`);
    }
    found.set(option.name, [...(found.get(option.name) ?? []), ...(value === undefined ? [] : [value])]);
  }
  if (found.has('help')) throw new ToolHelp(usage(tool, purpose, options));
  if (found.has('version')) throw new ToolHelp(`${KAFKA_TOOLS_VERSION} (klog's ${tool})`);
  for (const name of found.keys()) {
    const option = all.find((o) => o.name === name)!;
    if (option.unsupported !== undefined)
      throw new ToolUsageError(`klog's ${tool} does not support --${name}: ${option.unsupported}`);
  }
  return {
    has: (name) => found.has(name),
    value: (name) => {
      const v = found.get(name);
      return v === undefined ? undefined : v[v.length - 1];
    },
    values: (name) => found.get(name) ?? [],
    given: new Set(found.keys()),
  };
}

/** The usage text: the tool's purpose and its options, as jopt-simple lists them. */
export function usage(tool: string, purpose: string, options: readonly ToolOption[]): string {
  const rows = [...options, ...COMMON]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((o) => [`--${o.name}${o.arg === undefined ? '' : ` <${o.arg}>`}`, o.help] as const);
  const width = Math.max(...rows.map((r) => r[0].length));
  return [
    purpose,
    `Option${' '.repeat(Math.max(1, width - 4))}Description`,
    `------${' '.repeat(Math.max(1, width - 4))}-----------`,
    ...rows.map(([flag, help]) => `${flag.padEnd(width)}  ${help}`),
    '',
    `klog's ${tool}: Kafka ${KAFKA_TOOLS_VERSION}'s options; an option klog cannot honour says so and exits 1.`,
  ].join('\n');
}

/** Kafka's `CommandLineUtils.checkRequiredArgs`: each of `required` must be given. */
export function checkRequired(opts: ParsedOptions, ...required: string[]): void {
  for (const name of required)
    if (!opts.has(name)) throw new ToolUsageError(`Missing required argument "[${name}]"`);
}

/** Kafka's `CommandLineUtils.checkInvalidArgs`: when `used` is given, none of `invalid` may be. */
export function checkInvalid(opts: ParsedOptions, used: string, invalid: Iterable<string>): void {
  if (!opts.has(used)) return;
  for (const name of invalid)
    if (opts.has(name)) throw new ToolUsageError(`Option "[${used}]" can't be used with option "[${name}]"`);
}

/** A whole number option (jopt-simple's `ofType(Integer.class)`): anything else is refused. */
export function intOption(opts: ParsedOptions, name: string): number | undefined {
  const text = opts.value(name);
  if (text === undefined) return undefined;
  const n = /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new ToolUsageError(`Cannot parse argument '${text}' of option ${name}`);
  return n;
}

/** `--property key=value` and its kind, repeated: the pairs in order, a later key replacing an earlier one. */
export function pairs(flag: string, items: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new ToolUsageError(`Invalid ${flag} ${item}: expected key=value`);
    out.set(item.slice(0, eq).trim(), item.slice(eq + 1));
  }
  return out;
}
