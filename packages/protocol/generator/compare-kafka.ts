/**
 * Checks definitions/*.def against Kafka's own message JSON files, field by field: name, type, versions,
 * nullableVersions, tag, taggedVersions, default, ignorable, and the API's key, validVersions and
 * flexibleVersions. Kafka's files are not part of this repository; point the script at a checkout:
 *
 *   pnpm --filter @klog/protocol exec tsx generator/compare-kafka.ts \
 *     <kafka 4.1.0>/clients/src/main/resources/common/message [<kafka 3.9>/…/message]
 *
 * A field klog keeps for a version Kafka 4.0 removed (ListOffsets v0) is looked up in the second directory.
 * Exits 1 and lists every difference.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApiDef, type FieldDef, parseDefinition } from './definition.js';
import { readDefinitions } from './main.js';
import { formatRange, parseRange } from './version-range.js';

export interface KafkaField {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  ignorable?: boolean;
  about?: string;
  fields?: KafkaField[];
}
export interface KafkaMessage {
  apiKey: number;
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: KafkaField[];
  /** Structs shared by several fields, named by their type and written once (ConsumerGroupDescribe's). */
  commonStructs?: { name: string; fields: KafkaField[] }[];
}

/** The message's fields with every field of a common struct's type given that struct's fields. */
export function withCommonStructs(m: KafkaMessage): KafkaField[] {
  const common = new Map((m.commonStructs ?? []).map((s) => [s.name, s.fields]));
  const expand = (fields: KafkaField[]): KafkaField[] =>
    fields.map((f) => {
      const children = f.fields ?? common.get(f.type.replace(/^\[\]/, ''));
      return children === undefined ? f : { ...f, fields: expand(children) };
    });
  return expand(m.fields);
}

/** Kafka's JSON allows `//` comments; strip them (outside strings) before parsing. */
export function parseKafkaJson(text: string): KafkaMessage {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return JSON.parse(out) as KafkaMessage;
}

export function load(dirs: readonly string[], name: string): KafkaMessage[] {
  return dirs
    .filter((d) => existsSync(join(d, `${name}.json`)))
    .map((d) => parseKafkaJson(readFileSync(join(d, `${name}.json`), 'utf8')));
}

function norm(range: string | undefined): string {
  return range === undefined ? 'none' : formatRange(parseRange(range));
}

function typeText(f: FieldDef): string {
  const t = f.type;
  if (t.kind === 'primitive') return t.name === 'bool' ? 'bool' : t.name;
  if (t.kind === 'array') return `[]${t.element === 'bool' ? 'bool' : t.element}`;
  if (t.kind === 'structArray') return `[]${t.struct}`;
  return t.struct;
}

function compareFields(
  where: string,
  ours: readonly FieldDef[],
  sources: KafkaField[][],
  problems: string[],
): void {
  const first = sources[0] ?? [];
  for (const k of first) {
    if (!ours.some((f) => f.name === k.name)) problems.push(`${where}.${k.name}: in Kafka, missing here`);
  }
  for (const f of ours) {
    const k = sources.map((fields) => fields.find((x) => x.name === f.name)).find((x) => x !== undefined);
    if (k === undefined) {
      problems.push(`${where}.${f.name}: here, not in Kafka`);
      continue;
    }
    const w = `${where}.${f.name}`;
    const kType = k.type.replace('boolean', 'bool');
    if (kType !== typeText(f)) problems.push(`${w}: type ${typeText(f)}, Kafka ${k.type}`);
    if (norm(k.versions) !== formatRange(f.versions)) {
      problems.push(`${w}: versions ${formatRange(f.versions)}, Kafka ${k.versions}`);
    }
    if (norm(k.nullableVersions) !== formatRange(f.nullable)) {
      problems.push(`${w}: nullable ${formatRange(f.nullable)}, Kafka ${k.nullableVersions ?? 'none'}`);
    }
    if (norm(k.taggedVersions) !== formatRange(f.tagged) || k.tag !== f.tag) {
      problems.push(`${w}: tag ${f.tag} in ${formatRange(f.tagged)}, Kafka ${k.tag} in ${k.taggedVersions}`);
    }
    const kDefault = k.default === undefined ? undefined : String(k.default);
    const ourDefault = f.default === '""' ? '' : f.default;
    if (kDefault !== ourDefault)
      problems.push(`${w}: default ${f.default}, Kafka ${JSON.stringify(k.default)}`);
    if ((k.ignorable ?? false) !== f.ignorable)
      problems.push(`${w}: ignorable ${f.ignorable}, Kafka ${k.ignorable}`);
    compareFields(
      w,
      f.fields,
      sources.map((fields) => fields.find((x) => x.name === f.name)?.fields ?? []),
      problems,
    );
  }
}

export function compareWithKafka(api: ApiDef, dirs: readonly string[]): string[] {
  const problems: string[] = [];
  for (const message of [api.request, api.response]) {
    const kafka = load(dirs, message.name);
    const latest = kafka[0];
    if (latest === undefined) {
      problems.push(`${message.name}: no ${message.name}.json in ${dirs.join(', ')}`);
      continue;
    }
    if (latest.apiKey !== api.key) problems.push(`${message.name}: key ${api.key}, Kafka ${latest.apiKey}`);
    if (norm(latest.validVersions) !== formatRange(api.kafka)) {
      problems.push(
        `${message.name}: kafka=${formatRange(api.kafka)}, Kafka validVersions ${latest.validVersions}`,
      );
    }
    if (norm(latest.flexibleVersions) !== formatRange(api.flexible)) {
      problems.push(
        `${message.name}: flexible=${formatRange(api.flexible)}, Kafka ${latest.flexibleVersions}`,
      );
    }
    compareFields(message.name, message.fields, kafka.map(withCommonStructs), problems);
  }
  return problems;
}

function main(): void {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: tsx generator/compare-kafka.ts <kafka message dir> [<older kafka message dir>]');
    process.exit(2);
  }
  let failed = 0;
  for (const source of readDefinitions()) {
    const api = parseDefinition(source.path, source.text);
    const problems = compareWithKafka(api, dirs);
    console.log(`${problems.length === 0 ? 'same' : 'DIFF'}  ${source.path}`);
    for (const p of problems) console.log(`      ${p}`);
    failed += problems.length;
  }
  process.exit(failed === 0 ? 0 : 1);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
