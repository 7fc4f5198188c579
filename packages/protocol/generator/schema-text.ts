/**
 * A message version as the Kafka protocol guide prints it (the BNF of kafka.apache.org/protocol, made by
 * Kafka's `Protocol.toHtml`), put on top of each generated file so a reader sees the wire layout the code
 * below reads or writes. Tagged fields, which the guide keeps in its tables, are listed after the fields
 * they follow, as `tag N: name => TYPE`.
 */
import { type ApiDef, type FieldDef, type MessageDef, presence } from './definition.js';
import { snake } from './names.js';
import { contains } from './version-range.js';

function typeName(f: FieldDef, version: number, flexible: boolean): string {
  const nullable = contains(f.nullable, version);
  const t = f.type;
  const primitive = t.kind === 'primitive' ? t.name : t.kind === 'array' ? t.element : undefined;
  switch (primitive) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'uint16':
    case 'float64':
    case 'uuid':
      return primitive.toUpperCase();
    case 'bool':
      return 'BOOLEAN';
    case 'string':
      return `${flexible ? 'COMPACT_' : ''}${nullable && t.kind === 'primitive' ? 'NULLABLE_' : ''}STRING`;
    case 'bytes':
      return `${flexible ? 'COMPACT_' : ''}${nullable && t.kind === 'primitive' ? 'NULLABLE_' : ''}BYTES`;
    case 'records':
      return `${flexible ? 'COMPACT_' : ''}RECORDS`;
    default:
      throw new Error(`${f.name} has no primitive type`);
  }
}

function reference(f: FieldDef): string {
  const name = snake(f.name);
  return f.type.kind === 'array' || f.type.kind === 'structArray' ? `[${name}]` : name;
}

function fieldList(fields: readonly FieldDef[], version: number, flexible: boolean): string {
  const names = fields.filter((f) => presence(f, version) === 'regular').map(reference);
  if (flexible) names.push('TAG_BUFFER');
  return names.join(' ');
}

function fieldLines(
  fields: readonly FieldDef[],
  version: number,
  flexible: boolean,
  indent: string,
  out: string[],
): void {
  const line = (f: FieldDef, prefix: string) => {
    if (f.type.kind === 'struct' || f.type.kind === 'structArray') {
      out.push(`${indent}${prefix}${snake(f.name)} => ${fieldList(f.fields, version, flexible)}`.trimEnd());
      fieldLines(f.fields, version, flexible, `${indent}  `, out);
    } else {
      out.push(`${indent}${prefix}${snake(f.name)} => ${typeName(f, version, flexible)}`);
    }
  };
  for (const f of fields) if (presence(f, version) === 'regular') line(f, '');
  for (const f of fields) if (presence(f, version) === 'tagged') line(f, `tag ${f.tag}: `);
}

export function schemaText(api: ApiDef, message: MessageDef, kind: 'Request' | 'Response', version: number) {
  const flexible = contains(api.flexible, version);
  const out = [
    `${api.name} ${kind} (Version: ${version}) => ${fieldList(message.fields, version, flexible)}`.trimEnd(),
  ];
  fieldLines(message.fields, version, flexible, '  ', out);
  return out;
}
