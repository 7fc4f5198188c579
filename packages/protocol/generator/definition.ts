/**
 * klog's compact form of Kafka's message definitions (`clients/src/main/resources/common/message/*.json`),
 * and its parser. One file per API holds the request and the response; each field keeps the facts of
 * Kafka's JSON — name, type, versions, nullableVersions, tag / taggedVersions, default, ignorable — on one
 * line, then (optionally) Kafka's `about` text on quoted lines below it, then its children. See
 * definitions/README.md for the form.
 */
import { contains, intersects, isEmpty, parseRange, type VersionRange, within } from './version-range.js';

export const PRIMITIVES = [
  'int8',
  'int16',
  'int32',
  'int64',
  'uint16',
  'float64',
  'bool',
  'string',
  'bytes',
  'uuid',
  'records',
] as const;
export type Primitive = (typeof PRIMITIVES)[number];

export type FieldType =
  | { readonly kind: 'primitive'; readonly name: Primitive }
  | { readonly kind: 'array'; readonly element: Primitive }
  | { readonly kind: 'structArray'; readonly struct: string }
  | { readonly kind: 'struct'; readonly struct: string };

export interface FieldDef {
  /** Kafka's name, e.g. `TransactionalId`. */
  readonly name: string;
  readonly type: FieldType;
  readonly versions: VersionRange;
  readonly nullable: VersionRange;
  readonly tag: number | undefined;
  readonly tagged: VersionRange;
  /** The literal as written (`-1`, `null`, `""`, `0x7fffffff`, `true`), or undefined for the type's own. */
  readonly default: string | undefined;
  readonly ignorable: boolean;
  /** Kafka's `about` text, when the definition keeps it (the generated field's doc comment). */
  readonly about: string | undefined;
  readonly fields: readonly FieldDef[];
  readonly line: number;
}

export interface MessageDef {
  /** Kafka's message name, e.g. `ProduceRequest`. */
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

export interface ApiDef {
  /** The API's name as Kafka's ApiKeys spells it, e.g. `Produce`, `InitProducerId`. */
  readonly name: string;
  readonly key: number;
  /** The folder under src/apis, as @platformatic/kafka groups its APIs. */
  readonly group: string;
  /** Kafka 4.1.0's validVersions. */
  readonly kafka: VersionRange;
  readonly flexible: VersionRange;
  /** The versions klog has codecs for. */
  readonly serve: VersionRange;
  readonly request: MessageDef;
  readonly response: MessageDef;
  readonly file: string;
}

export class DefinitionError extends Error {
  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`);
  }
}

interface RawLine {
  readonly depth: number;
  readonly tokens: string[];
  readonly line: number;
  /** A quoted line: part of the `about` text of the field above it. */
  readonly about?: string;
}

function tokenize(file: string, text: string): RawLine[] {
  const out: RawLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trimStart().startsWith('"')) {
      // A quoted line is text, `#` and all: a JSON string, nothing after it.
      const indent = raw.length - raw.trimStart().length;
      if (indent % 2 !== 0)
        throw new DefinitionError(file, line, 'indentation must be a multiple of two spaces');
      let about: unknown;
      try {
        about = JSON.parse(raw.trim());
      } catch {
        throw new DefinitionError(file, line, 'an about line is one JSON string ("…"), nothing after it');
      }
      if (typeof about !== 'string')
        throw new DefinitionError(file, line, 'an about line is one JSON string');
      out.push({ depth: indent / 2, tokens: [], line, about });
      return;
    }
    const content = raw.replace(/#.*$/, '').trimEnd();
    if (content.trim() === '') return;
    const indent = content.length - content.trimStart().length;
    if (indent % 2 !== 0)
      throw new DefinitionError(file, line, 'indentation must be a multiple of two spaces');
    if (content.includes('\t')) throw new DefinitionError(file, line, 'tabs are not allowed');
    out.push({ depth: indent / 2, tokens: content.trim().split(/\s+/), line });
  });
  return out;
}

function parseType(file: string, line: number, text: string): FieldType {
  const isPrimitive = (t: string): t is Primitive => (PRIMITIVES as readonly string[]).includes(t);
  if (text.startsWith('[]')) {
    const element = text.slice(2);
    if (isPrimitive(element)) return { kind: 'array', element };
    if (/^[A-Z][A-Za-z0-9]*$/.test(element)) return { kind: 'structArray', struct: element };
    throw new DefinitionError(file, line, `unknown array element type ${element}`);
  }
  if (isPrimitive(text)) return { kind: 'primitive', name: text };
  if (/^[A-Z][A-Za-z0-9]*$/.test(text)) return { kind: 'struct', struct: text };
  throw new DefinitionError(file, line, `unknown type ${text}`);
}

function parseField(file: string, lines: RawLine[], at: number, depth: number): [FieldDef, number] {
  const { tokens, line } = lines[at]!;
  const [name, typeText, versionsText, ...attrs] = tokens;
  if (name === undefined || typeText === undefined || versionsText === undefined) {
    throw new DefinitionError(file, line, 'a field is: Name type versions [attributes]');
  }
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new DefinitionError(file, line, `bad field name ${name}`);
  const type = parseType(file, line, typeText);
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      throw new DefinitionError(file, line, (error as Error).message);
    }
  };
  const versions = wrap(() => parseRange(versionsText));
  let nullable = parseRange('none');
  let tag: number | undefined;
  let tagged = parseRange('none');
  let defaultValue: string | undefined;
  let ignorable = false;
  for (const attr of attrs) {
    const [key, value] = attr.split('=', 2) as [string, string | undefined];
    if (key === 'ignorable' && value === undefined) ignorable = true;
    else if (key === 'nullable' && value !== undefined) nullable = wrap(() => parseRange(value));
    else if (key === 'tag' && value !== undefined && /^\d+$/.test(value)) tag = Number(value);
    else if (key === 'tagged' && value !== undefined) tagged = wrap(() => parseRange(value));
    else if (key === 'default' && value !== undefined) defaultValue = value;
    else throw new DefinitionError(file, line, `unknown attribute ${attr}`);
  }
  if ((tag === undefined) !== isEmpty(tagged)) {
    throw new DefinitionError(file, line, 'tag= and tagged= go together');
  }
  if (!within(tagged, versions))
    throw new DefinitionError(file, line, 'tagged versions must be within versions');
  const aboutLines: string[] = [];
  let next = at + 1;
  while (next < lines.length && lines[next]!.about !== undefined && lines[next]!.depth >= depth + 1) {
    if (lines[next]!.depth !== depth + 1) {
      throw new DefinitionError(file, lines[next]!.line, 'an about line goes one level under its field');
    }
    aboutLines.push(lines[next]!.about!);
    next++;
  }
  const about = aboutLines.length === 0 ? undefined : aboutLines.join(' ');
  const fields: FieldDef[] = [];
  while (next < lines.length && lines[next]!.depth > depth) {
    if (lines[next]!.about !== undefined) {
      throw new DefinitionError(file, lines[next]!.line, 'an about line goes right under its field');
    }
    if (lines[next]!.depth !== depth + 1)
      throw new DefinitionError(file, lines[next]!.line, 'indented too far');
    const [child, after] = parseField(file, lines, next, depth + 1);
    fields.push(child);
    next = after;
  }
  const isStruct = type.kind === 'struct' || type.kind === 'structArray';
  if (isStruct && fields.length === 0) throw new DefinitionError(file, line, `${name} needs its fields`);
  if (!isStruct && fields.length > 0) throw new DefinitionError(file, line, `${name} is not a struct`);
  checkTags(file, fields);
  return [
    { name, type, versions, nullable, tag, tagged, default: defaultValue, ignorable, about, fields, line },
    next,
  ];
}

function checkTags(file: string, fields: readonly FieldDef[]): void {
  const seen = new Map<number, FieldDef>();
  for (const f of fields) {
    if (f.tag === undefined) continue;
    const other = seen.get(f.tag);
    if (other !== undefined && intersects(other.tagged, f.tagged)) {
      throw new DefinitionError(file, f.line, `tag ${f.tag} is already ${other.name}'s`);
    }
    seen.set(f.tag, f);
  }
}

function parseMessage(file: string, lines: RawLine[], at: number, kind: string): [MessageDef, number] {
  const header = lines[at]!;
  if (header.depth !== 0 || header.tokens[0] !== kind || header.tokens.length !== 2) {
    throw new DefinitionError(file, header.line, `expected "${kind} <MessageName>"`);
  }
  const fields: FieldDef[] = [];
  let next = at + 1;
  while (next < lines.length && lines[next]!.depth > 0) {
    if (lines[next]!.about !== undefined) {
      throw new DefinitionError(file, lines[next]!.line, 'an about line goes right under its field');
    }
    if (lines[next]!.depth !== 1) throw new DefinitionError(file, lines[next]!.line, 'indented too far');
    const [field, after] = parseField(file, lines, next, 1);
    fields.push(field);
    next = after;
  }
  checkTags(file, fields);
  return [{ name: header.tokens[1]!, fields }, next];
}

export function parseDefinition(file: string, text: string): ApiDef {
  const lines = tokenize(file, text);
  const head = lines[0];
  if (head === undefined || head.tokens[0] !== 'api') {
    throw new DefinitionError(file, head?.line ?? 1, 'a definition starts with an "api" line');
  }
  const [, name, ...attrs] = head.tokens;
  const values = new Map<string, string>();
  for (const attr of attrs) {
    const [key, value] = attr.split('=', 2);
    if (key === undefined || value === undefined) throw new DefinitionError(file, head.line, `bad ${attr}`);
    values.set(key, value);
  }
  const get = (key: string): string => {
    const v = values.get(key);
    if (v === undefined) throw new DefinitionError(file, head.line, `the api line needs ${key}=`);
    return v;
  };
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      throw new DefinitionError(file, head.line, (error as Error).message);
    }
  };
  const [request, afterRequest] = parseMessage(file, lines, 1, 'request');
  const [response, afterResponse] = parseMessage(file, lines, afterRequest, 'response');
  if (afterResponse !== lines.length) {
    throw new DefinitionError(file, lines[afterResponse]!.line, 'nothing may follow the response');
  }
  const api: ApiDef = {
    name: name ?? '',
    key: Number(get('key')),
    group: get('group'),
    kafka: wrap(() => parseRange(get('kafka'))),
    flexible: wrap(() => parseRange(get('flexible'))),
    serve: wrap(() => parseRange(get('serve'))),
    request,
    response,
    file,
  };
  if (!/^[A-Z][A-Za-z]*$/.test(api.name)) throw new DefinitionError(file, head.line, 'bad api name');
  if (api.serve.max === Number.POSITIVE_INFINITY) {
    throw new DefinitionError(file, head.line, 'serve= must be a closed range');
  }
  for (const message of [request, response]) checkTaggedAreFlexible(api, message.fields);
  return api;
}

function checkTaggedAreFlexible(api: ApiDef, fields: readonly FieldDef[]): void {
  for (const f of fields) {
    if (!isEmpty(f.tagged) && !within(f.tagged, api.flexible)) {
      throw new DefinitionError(api.file, f.line, 'a tagged field exists only in flexible versions');
    }
    checkTaggedAreFlexible(api, f.fields);
  }
}

/** Whether `f` is on the wire in `version`, and how. */
export function presence(f: FieldDef, version: number): 'absent' | 'regular' | 'tagged' {
  if (!contains(f.versions, version)) return 'absent';
  return contains(f.tagged, version) ? 'tagged' : 'regular';
}
