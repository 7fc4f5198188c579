/**
 * What a field is in the versions klog serves: its TypeScript type, its default, whether it can be null.
 * A message's TypeScript type covers every served version at once, as Kafka's generated `*Data` classes
 * do ("a single MessageData object represents every possible version of a Message"): a field a version
 * lacks holds its default when read, and is left out when written.
 */
import type { ApiDef, FieldDef } from './definition.js';
import { camel } from './names.js';
import { intersects, isEmpty, type VersionRange, versionsOf } from './version-range.js';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

function servedRange(api: ApiDef, f: FieldDef): VersionRange {
  const min = Math.max(api.serve.min, f.versions.min);
  const max = Math.min(api.serve.max, f.versions.max);
  return { min, max };
}

/** Whether the field is on the wire in any served version. */
export function isServed(api: ApiDef, f: FieldDef): boolean {
  return !isEmpty(servedRange(api, f));
}

export function servedFields(api: ApiDef, fields: readonly FieldDef[]): FieldDef[] {
  return fields.filter((f) => isServed(api, f));
}

/** Whether the field is null in some served version (its TypeScript type then includes null). */
export function canBeNull(api: ApiDef, f: FieldDef): boolean {
  return intersects(f.nullable, servedRange(api, f));
}

/** Whether the field is tagged in every served version that has it (it is then optional in responses). */
export function alwaysTagged(api: ApiDef, f: FieldDef): boolean {
  return versionsOf(servedRange(api, f)).every((v) => v >= f.tagged.min && v <= f.tagged.max);
}

export function scalarType(name: string): string {
  switch (name) {
    case 'bool':
      return 'boolean';
    case 'string':
    case 'uuid':
      return 'string';
    case 'bytes':
    case 'records':
      return 'Uint8Array';
    default:
      return 'number';
  }
}

/** The TypeScript type of a field; structs by their name inside the message's namespace. */
export function tsType(api: ApiDef, messageName: string, f: FieldDef): string {
  const t = f.type;
  let base: string;
  if (t.kind === 'primitive') base = scalarType(t.name);
  else if (t.kind === 'array') base = `${scalarType(t.element)}[]`;
  else if (t.kind === 'structArray') base = `${messageName}.${t.struct}[]`;
  else base = `${messageName}.${t.struct}`;
  return canBeNull(api, f) ? `${base} | null` : base;
}

function literal(f: FieldDef, text: string): string {
  if (text === 'null') return 'null';
  if (text === 'true' || text === 'false') return text;
  if (text === '""') return "''";
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`${f.name}: default ${text} is not a value`);
  return String(n);
}

/** The value a field holds when its version lacks it (Kafka's `default`, else the type's zero). */
export function defaultExpression(api: ApiDef, f: FieldDef): string {
  if (f.default !== undefined) return literal(f, f.default);
  const t = f.type;
  if (t.kind === 'array' || t.kind === 'structArray') return '[]';
  if (t.kind === 'struct') {
    const parts = servedFields(api, f.fields).map((c) => `${camel(c.name)}: ${defaultExpression(api, c)}`);
    return `{ ${parts.join(', ')} }`;
  }
  switch (t.name) {
    case 'bool':
      return 'false';
    case 'string':
      return "''";
    case 'uuid':
      return `'${ZERO_UUID}'`;
    case 'bytes':
      return 'new Uint8Array(0)';
    case 'records':
      return 'null';
    default:
      return '0';
  }
}

/** A short note for the field's doc comment: Kafka's versions, nullable versions, tag and default. */
export function fieldNote(f: FieldDef): string {
  const fmt = (r: VersionRange) =>
    r.max === Number.POSITIVE_INFINITY ? `${r.min}+` : r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`;
  const parts = [`versions ${fmt(f.versions)}`];
  if (!isEmpty(f.nullable)) parts.push(`nullable ${fmt(f.nullable)}`);
  if (f.tag !== undefined) parts.push(`tag ${f.tag} in ${fmt(f.tagged)}`);
  if (f.default !== undefined) parts.push(`default ${f.default}`);
  if (f.ignorable) parts.push('ignorable');
  return parts.join(', ');
}
