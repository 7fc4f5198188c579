import {
  type BrokerConfigDef,
  brokerConfigFlag,
  brokerFlagOf,
  CONFIG_TABLES,
  type ConfigTables,
  parseConfigValue,
  type SettingValue,
  type TopicConfigDef,
  type Validator,
  validatorText,
} from '@klog/broker';
import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { bytesText } from '../format.js';
import type { ServerProperties } from './server-properties.js';

/**
 * `klog serve`'s setting flags, printed and parsed from the broker's tables (`BROKER_CONFIGS` and
 * `TOPIC_CONFIGS`, one row per setting): each row's flag, its help with Kafka's name, bounds and default, and
 * its value read from the command line or a server.properties. Nothing here names a setting.
 */

/** The word in `<…>` after a flag: `<ms>`, `<n>`, `<host>`, `<policy>`. */
function argName(name: string, validator: Validator): string {
  const last = name
    .split(/[.]|(?=[A-Z])/)
    .at(-1)!
    .toLowerCase();
  switch (validator.kind) {
    case 'range':
      return last === 'ms' || last === 'port' || last === 'id' ? last : 'n';
    case 'host':
      return 'host';
    case 'path':
      return 'dir';
    default:
      return last;
  }
}

/** A default as help prints it: sizes in bytes in their unit when exact (`1 GiB`). */
function defaultText(value: SettingValue, bytes: boolean): string {
  const shown = typeof value === 'number' && bytes ? bytesText(value) : String(value);
  // A size that is no whole unit reads best as the number itself.
  return shown.endsWith(' bytes') ? String(value) : shown;
}

/** `doc (kafka.name, min to max, default d)`: everything after the doc comes from the row. */
function helpText(doc: string, name: string | null, validator: Validator, shown: string | undefined): string {
  const parts = [
    name,
    validator.kind === 'range' || validator.kind === 'fraction' ? validatorText(validator) : undefined,
    shown === undefined ? undefined : `default ${shown}`,
  ].filter((p) => p !== undefined && p !== null);
  return parts.length === 0 ? doc : `${doc} (${parts.join(', ')})`;
}

function brokerDefaultShown(def: BrokerConfigDef): string | undefined {
  if (def.defaultValue === undefined) return def.defaultDoc;
  return defaultText(def.defaultValue, def.bytes === true);
}

function topicDefaultShown(def: TopicConfigDef): string {
  const n = Number(def.defaultValue);
  return def.brokerName.endsWith('.bytes') && Number.isSafeInteger(n) && n > 0
    ? defaultText(n, true)
    : def.defaultValue;
}

/** One setting flag of `klog serve`: the option commander shows and the row it reads into. */
export type SettingFlag =
  | { readonly kind: 'broker'; readonly def: BrokerConfigDef; readonly flag: string; readonly option: Option }
  | { readonly kind: 'topic'; readonly def: TopicConfigDef; readonly flag: string; readonly option: Option };

/** Every setting flag, in the tables' order: the broker's rows, then the topic configs' broker defaults. */
export function settingFlags(tables: ConfigTables = CONFIG_TABLES): SettingFlag[] {
  const out: SettingFlag[] = [];
  for (const def of tables.broker) {
    const flag = brokerConfigFlag(def);
    if (flag === null) continue;
    const help = helpText(def.doc, def.name, def.validator, brokerDefaultShown(def));
    const option =
      def.validator.kind === 'boolean'
        ? new Option(flag, help)
        : new Option(`${flag} <${argName(def.key, def.validator)}>`, help);
    out.push({ kind: 'broker', def, flag, option });
  }
  for (const def of tables.topic) {
    const flag = brokerFlagOf(def);
    const help = helpText(
      `default ${def.name}: ${def.doc}`,
      def.brokerName,
      def.validator,
      topicDefaultShown(def),
    );
    out.push({
      kind: 'topic',
      def,
      flag,
      option: new Option(`${flag} <${argName(def.name, def.validator)}>`, help),
    });
  }
  return out;
}

/** Adds every setting flag to `command` (a boolean gets its `--no-` twin too). */
export function addSettingOptions(command: Command, flags: readonly SettingFlag[]): Command {
  for (const f of flags) {
    command.addOption(f.option);
    if (f.kind === 'broker' && f.def.validator.kind === 'boolean') {
      command.addOption(new Option(`--no-${f.flag.slice(2)}`, `the opposite of ${f.flag}`));
    }
  }
  return command;
}

/**
 * A value as text, checked by its row: a whole number is said with its bounds (`expected a whole number from
 * 0 to 65535`), anything else with the broker's own reason. `where` names the flag or the file's line.
 */
export function settingValue(where: string, text: string, validator: Validator): string {
  if (validator.kind === 'range') {
    const n = /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < validator.min || n > validator.max) {
      throw new UsageError(
        `${where} ${JSON.stringify(text)}: expected a whole number from ${validator.min} to ${validator.max}`,
      );
    }
    return String(n);
  }
  const parsed = parseConfigValue(validator, text);
  if (!parsed.ok) throw new UsageError(`${where} ${JSON.stringify(text)}: ${parsed.reason}`);
  return parsed.value;
}

function typed(def: BrokerConfigDef, text: string): SettingValue {
  if (def.validator.kind === 'range') return Number(text);
  if (def.validator.kind === 'boolean') return text === 'true';
  return text;
}

/** What the flags and the file set: broker options by field, broker-level topic defaults by Kafka's name. */
export interface GivenSettings {
  readonly options: Readonly<Record<string, SettingValue>>;
  readonly logSettings: Readonly<Record<string, string>>;
}

/**
 * The settings `klog serve` was given: each flag's value, else the file's (a flag wins over the file), checked
 * by its row. What neither gives is left to the broker's defaults (the same rows).
 */
export function givenSettings(
  command: Command,
  flags: readonly SettingFlag[],
  file: ServerProperties | undefined,
  tables: ConfigTables = CONFIG_TABLES,
): GivenSettings {
  const options: Record<string, SettingValue> = {};
  const logSettings: Record<string, string> = {};
  for (const f of flags) {
    const value = command.getOptionValue(f.option.attributeName()) as string | boolean | undefined;
    if (value === undefined) continue;
    if (f.kind === 'topic')
      logSettings[f.def.brokerName] = settingValue(f.flag, String(value), f.def.validator);
    else if (typeof value === 'boolean') options[f.def.key] = value;
    else options[f.def.key] = typed(f.def, settingValue(f.flag, value, f.def.validator));
  }
  if (file === undefined) return { options, logSettings };
  const fromFile = (name: string, validator: Validator) => {
    const value = file.values.get(name);
    return value === undefined ? undefined : settingValue(`${file.path}: ${name}`, value, validator);
  };
  for (const def of tables.broker) {
    if (def.name === null || options[def.key] !== undefined) continue;
    const value = fromFile(def.name, def.validator);
    if (value !== undefined) options[def.key] = typed(def, value);
  }
  for (const def of tables.topic) {
    if (logSettings[def.brokerName] !== undefined) continue;
    for (const name of [...(def.brokerSynonyms ?? []).map((c) => c.name), def.brokerName]) {
      const validator = def.brokerSynonyms?.find((c) => c.name === name)?.validator ?? def.validator;
      const value = fromFile(name, validator);
      if (value !== undefined) logSettings[name] = value;
    }
  }
  return { options, logSettings };
}
