/**
 * A second, independent reading of the definitions for the tests: an interpreter that walks a parsed
 * definition at run time to write any message (the client's direction: requests) and read any message
 * (responses), and fast-check arbitraries for values of any message version. The generated code and this
 * interpreter share only the definition and the wire primitives; where they disagree, one of them is wrong.
 */
import fc from 'fast-check';
import { type ApiDef, type FieldDef, parseDefinition, presence } from '../generator/definition.js';
import { readDefinitions } from '../generator/main.js';
import { camel } from '../generator/names.js';
import { defaultExpression, isServed, servedFields } from '../generator/types.js';
import { contains } from '../generator/version-range.js';
import type { Reader } from '../src/wire/reader.js';
import { Writer } from '../src/wire/writer.js';

export const DEFINITIONS: ApiDef[] = readDefinitions().map((s) => parseDefinition(s.path, s.text));

export function definitionOf(name: string): ApiDef {
  const api = DEFINITIONS.find((a) => a.name === name);
  if (api === undefined) throw new Error(`no definition ${name}`);
  return api;
}

type Value = unknown;
type Message = Record<string, Value>;

export function defaultValue(api: ApiDef, f: FieldDef): Value {
  return new Function(`return (${defaultExpression(api, f)});`)();
}

const flexibleIn = (api: ApiDef, v: number) => contains(api.flexible, v);

function writePrimitive(w: Writer, type: string, value: Value, nullable: boolean, flexible: boolean): void {
  const f = 'x';
  switch (type) {
    case 'int8':
      w.int8(value as number, f);
      return;
    case 'int16':
      w.int16(value as number, f);
      return;
    case 'uint16':
      w.uint16(value as number, f);
      return;
    case 'int32':
      w.int32(value as number, f);
      return;
    case 'int64':
      w.int64(value as number, f);
      return;
    case 'float64':
      w.float64(value as number, f);
      return;
    case 'bool':
      w.bool(value as boolean, f);
      return;
    case 'uuid':
      w.uuid(value as string, f);
      return;
    case 'string': {
      const s = value as string | null;
      if (flexible) nullable ? w.compactNullableString(s, f) : w.compactString(s, f);
      else nullable ? w.nullableString(s, f) : w.string(s, f);
      return;
    }
    default: {
      const b = value as Uint8Array | null;
      if (flexible) nullable ? w.compactNullableBytes(b, f) : w.compactBytes(b, f);
      else nullable ? w.nullableBytes(b, f) : w.bytesField(b, f);
    }
  }
}

function readPrimitive(r: Reader, type: string, nullable: boolean, flexible: boolean): Value {
  const f = 'x';
  switch (type) {
    case 'bool':
      return r.bool(f);
    case 'string':
      if (flexible) return nullable ? r.compactNullableString(f) : r.compactString(f);
      return nullable ? r.nullableString(f) : r.string(f);
    case 'bytes':
    case 'records':
      if (flexible) return nullable ? r.compactNullableBytes(f) : r.compactBytes(f);
      return nullable ? r.nullableBytes(f) : r.bytesField(f);
    default:
      return (r as unknown as Record<string, (f: string) => Value>)[type]!.call(r, f);
  }
}

function writeValue(api: ApiDef, f: FieldDef, value: Value, v: number, w: Writer): void {
  const flexible = flexibleIn(api, v);
  const nullable = contains(f.nullable, v);
  const t = f.type;
  if (t.kind === 'primitive') {
    writePrimitive(w, t.name, value, nullable, flexible);
    return;
  }
  if (t.kind === 'struct') {
    if (nullable) w.int8(value === null ? -1 : 1, 'x');
    if (value !== null) writeFields(api, f.fields, value as Message, v, w);
    return;
  }
  const items = value as Value[] | null;
  if (items === null) {
    if (flexible) w.compactArrayLength(-1, 'x');
    else w.arrayLength(-1, 'x');
    return;
  }
  if (flexible) w.compactArrayLength(items.length, 'x');
  else w.arrayLength(items.length, 'x');
  for (const item of items) {
    if (t.kind === 'array') writePrimitive(w, t.element, item, false, flexible);
    else writeFields(api, f.fields, item as Message, v, w);
  }
}

function isDefault(api: ApiDef, f: FieldDef, value: Value): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (f.type.kind === 'struct') return false;
  return value === defaultValue(api, f);
}

/** Writes a struct the way any Kafka client would: regular fields in order, then tagged ones by tag. */
export function writeFields(
  api: ApiDef,
  fields: readonly FieldDef[],
  value: Message,
  v: number,
  w: Writer,
): void {
  const tagged: FieldDef[] = [];
  for (const f of fields) {
    const p = presence(f, v);
    if (p === 'regular') writeValue(api, f, value[camel(f.name)], v, w);
    else if (p === 'tagged' && !isDefault(api, f, value[camel(f.name)])) tagged.push(f);
  }
  if (!flexibleIn(api, v)) return;
  tagged.sort((a, b) => a.tag! - b.tag!);
  w.uvarint(tagged.length, 'x');
  for (const f of tagged) {
    const inner = new Writer();
    writeValue(api, f, value[camel(f.name)], v, inner);
    const bytes = inner.toBytes();
    w.uvarint(f.tag!, 'x').uvarint(bytes.length, 'x').raw(bytes);
  }
}

function readValue(api: ApiDef, f: FieldDef, v: number, r: Reader): Value {
  const flexible = flexibleIn(api, v);
  const nullable = contains(f.nullable, v);
  const t = f.type;
  if (t.kind === 'primitive') return readPrimitive(r, t.name, nullable, flexible);
  if (t.kind === 'struct') return nullable && r.int8('x') < 0 ? null : readFields(api, f.fields, v, r);
  const n = flexible ? r.compactArrayLength('x', 1) : r.arrayLength('x', 1);
  if (n === -1) return null;
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      t.kind === 'array' ? readPrimitive(r, t.element, false, flexible) : readFields(api, f.fields, v, r),
    );
  }
  return out;
}

/** Reads a struct of version `v`; fields the version lacks (or tags not sent) hold their defaults. */
export function readFields(api: ApiDef, fields: readonly FieldDef[], v: number, r: Reader): Message {
  const out: Message = {};
  for (const f of servedFields(api, fields)) {
    out[camel(f.name)] = presence(f, v) === 'regular' ? readValue(api, f, v, r) : defaultValue(api, f);
  }
  if (flexibleIn(api, v)) {
    const count = r.uvarint('x');
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint('x');
      const size = r.uvarint('x');
      const end = r.offset + size;
      const f = fields.find((x) => x.tag === tag && presence(x, v) === 'tagged');
      if (f === undefined || !isServed(api, f)) r.offset = end;
      else out[camel(f.name)] = readValue(api, f, v, r);
      if (r.offset !== end) throw new Error(`tag ${tag} read to ${r.offset}, declared end ${end}`);
    }
  }
  return out;
}

// ---- arbitraries ----

const uuidArb = fc.uuid().map((u) => u.toLowerCase());

function primitiveArb(type: string): fc.Arbitrary<Value> {
  switch (type) {
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'int64':
      return fc.oneof(
        fc.constantFrom(-1, 0, 1, -2, 2 ** 32, -(2 ** 32) - 1),
        fc.maxSafeInteger(),
        fc.integer().map((n) => (n === 0 ? 0 : -n)),
      );
    case 'float64':
      return fc.double({ noNaN: true });
    case 'bool':
      return fc.boolean();
    case 'uuid':
      return uuidArb;
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    default:
      return fc.uint8Array({ maxLength: 40 });
  }
}

/**
 * A value of version `v` of a message, in the served-union shape the generated code uses: fields the
 * version lacks hold their defaults (`absent: 'default'`), or anything (`absent: 'any'`, for responses,
 * where the writer must drop ignorable ones).
 */
export function messageArb(
  api: ApiDef,
  fields: readonly FieldDef[],
  v: number,
  absent: 'default' | 'any',
  depth = 0,
): fc.Arbitrary<Message> {
  const entries: Record<string, fc.Arbitrary<Value>> = {};
  for (const f of servedFields(api, fields)) {
    const here = presence(f, v) !== 'absent';
    if (!here && (absent === 'default' || !f.ignorable || f.tag !== undefined)) {
      entries[camel(f.name)] = fc.constant(defaultValue(api, f));
      continue;
    }
    const version = here ? v : Math.max(api.serve.min, f.versions.min);
    let arb = valueArb(api, f, version, absent, depth);
    if (contains(f.nullable, version)) arb = fc.oneof(arb, fc.constant(null));
    entries[camel(f.name)] = arb;
  }
  return fc.record(entries);
}

function valueArb(
  api: ApiDef,
  f: FieldDef,
  v: number,
  absent: 'default' | 'any',
  depth: number,
): fc.Arbitrary<Value> {
  const t = f.type;
  if (t.kind === 'primitive') return primitiveArb(t.name);
  if (t.kind === 'array') return fc.array(primitiveArb(t.element), { maxLength: 3 });
  const struct = messageArb(api, f.fields, v, absent, depth + 1);
  if (t.kind === 'struct') return struct;
  return fc.array(struct, { maxLength: depth >= 1 ? 2 : 3 });
}

/** What the reader of version `v` must see for `value`: fields the version lacks hold their defaults. */
export function asSeenIn(api: ApiDef, fields: readonly FieldDef[], value: Message, v: number): Message {
  const out: Message = {};
  for (const f of servedFields(api, fields)) {
    const name = camel(f.name);
    const x = value[name];
    if (presence(f, v) === 'absent' || x === undefined) {
      out[name] = defaultValue(api, f);
      continue;
    }
    const t = f.type;
    if (t.kind === 'struct') out[name] = x === null ? null : asSeenIn(api, f.fields, x as Message, v);
    else if (t.kind === 'structArray' && x !== null) {
      out[name] = (x as Message[]).map((e) => asSeenIn(api, f.fields, e, v));
    } else out[name] = x;
  }
  return out;
}
