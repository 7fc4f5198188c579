/**
 * One module per API, `src/apis/<group>/<api>.ts`: the request and response types over every version klog
 * serves (Kafka's "one MessageData for every version"), and the codec that picks the version's reader and
 * writer. And `src/apis/index.ts`, the list of them all.
 */
import type { ApiDef, FieldDef, MessageDef } from './definition.js';
import {
  codeVersions,
  generatedLine,
  readName,
  readResponseName,
  takesVersion,
  versionCode,
  writeName,
  writeRequestName,
} from './emit-version.js';
import { camel, kebab } from './names.js';
import { alwaysTagged, fieldNote, servedFields, tsType } from './types.js';
import { formatRange } from './version-range.js';

interface Struct {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

function collectStructs(api: ApiDef, fields: readonly FieldDef[], out: Struct[]): void {
  for (const f of servedFields(api, fields)) {
    if (f.type.kind === 'struct' || f.type.kind === 'structArray') {
      out.push({ name: f.type.struct, fields: f.fields });
      collectStructs(api, f.fields, out);
    }
  }
}

const WIDTH = 110;

/** A doc comment at `indent`: on one line if it fits in WIDTH columns, else wrapped at word breaks. */
export function docComment(indent: string, text: string): string[] {
  const one = `${indent}/** ${text} */`;
  if (one.length <= WIDTH) return [one];
  const out = [`${indent}/**`];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && `${indent} * ${line} ${word}`.length > WIDTH) {
      out.push(`${indent} * ${line}`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  out.push(`${indent} * ${line}`, `${indent} */`);
  return out;
}

/** Kafka's about text (when the definition keeps it), then the field's versions and attributes. */
function fieldDoc(f: FieldDef): string {
  // `*/` would end the comment early.
  const about = f.about?.trim().replaceAll('*/', '*\\/');
  if (about === undefined || about === '') return `${f.name}: ${fieldNote(f)}.`;
  return `${/[.!?]$/.test(about) ? about : `${about}.`} ${f.name}: ${fieldNote(f)}.`;
}

function members(
  api: ApiDef,
  message: MessageDef,
  fields: readonly FieldDef[],
  response: boolean,
  indent: string,
) {
  const out: string[] = [];
  for (const f of servedFields(api, fields)) {
    const optional = response && f.tag !== undefined && alwaysTagged(api, f);
    out.push(...docComment(indent, fieldDoc(f)));
    out.push(`${indent}${camel(f.name)}${optional ? '?' : ''}: ${tsType(api, message.name, f)};`);
  }
  return out;
}

function messageTypes(api: ApiDef, message: MessageDef, response: boolean): string[] {
  const served = formatRange(api.serve);
  const out = [
    response
      ? `/** ${message.name} as klog writes it, versions ${served}; a version writes only the fields it has. */`
      : `/** ${message.name} as klog reads it, versions ${served}; a field its version lacks holds its default. */`,
    `export interface ${message.name} {`,
    ...members(api, message, message.fields, response, '  '),
    '}',
  ];
  const structs: Struct[] = [];
  collectStructs(api, message.fields, structs);
  if (structs.length > 0) {
    out.push('', `export declare namespace ${message.name} {`);
    structs.forEach((s, i) => {
      if (i > 0) out.push('');
      out.push(`  interface ${s.name} {`, ...members(api, message, s.fields, response, '    '), '  }');
    });
    out.push('}');
  }
  return out;
}

export function apiFilePath(api: ApiDef): string {
  return `src/apis/${api.group}/${kebab(api.name)}.ts`;
}

type Direction = 'readRequest' | 'writeResponse' | 'writeRequest' | 'readResponse';

/** One method's version switch: versions that share code share a case, calling that version's function. */
function versionSwitch(api: ApiDef, direction: Direction, verb: 'reads' | 'writes'): string[] {
  const name = {
    readRequest: readName,
    writeResponse: writeName,
    writeRequest: writeRequestName,
    readResponse: readResponseName,
  }[direction];
  const byCode = new Map<number, number[]>();
  for (const [v, code] of codeVersions(api)) byCode.set(code, [...(byCode.get(code) ?? []), v]);
  const out = ['    switch (version) {'];
  for (const [code, versions] of byCode) {
    for (const v of versions) out.push(`      case ${v}:`);
    if (direction === 'readRequest' || direction === 'readResponse')
      out.push(`        return ${name(api, code)}(r);`);
    else {
      const version = takesVersion(versionCode(api, code)[direction]) ? ', version' : '';
      out.push(`        ${name(api, code)}(w, m${version});`, '        return;');
    }
  }
  out.push(
    '      default:',
    `        throw new RangeError(\`${api.name} version \${version} is not one klog ${verb}\`);`,
    '    }',
  );
  return out;
}

export function emitApiFile(api: ApiDef, definitionPath: string): string {
  const base = kebab(api.name);
  const codeFiles = [...new Set(codeVersions(api).values())];
  const imports = codeFiles.map(
    (v) =>
      `import { ${readName(api, v)}, ${readResponseName(api, v)}, ${writeName(api, v)}, ${writeRequestName(api, v)} } from './${base}-v${v}.js';`,
  );
  const flexibleFrom = api.flexible.max < api.flexible.min ? -1 : api.flexible.min;
  const kafka = api.kafka;
  return [
    generatedLine(definitionPath),
    `// ${api.name} (key ${api.key}): the types and the codec of every version klog serves.`,
    "import type { ApiCodec } from '../api-codec.js';",
    "import type { Reader } from '../../wire/reader.js';",
    "import type { Writer } from '../../wire/writer.js';",
    ...imports,
    '',
    ...messageTypes(api, api.request, false),
    '',
    ...messageTypes(api, api.response, true),
    '',
    `/** ${api.name}: Kafka 4.1.0 has versions ${formatRange(kafka)}, flexible from ${flexibleFrom}; klog reads and writes ${formatRange(api.serve)}. */`,
    `export const ${api.name}: ApiCodec<${api.request.name}, ${api.response.name}, ${api.key}> = {`,
    `  name: '${api.name}',`,
    `  apiKey: ${api.key},`,
    `  minVersion: ${api.serve.min},`,
    `  maxVersion: ${api.serve.max},`,
    `  firstFlexibleVersion: ${flexibleFrom},`,
    `  kafkaVersions: { min: ${kafka.min}, max: ${kafka.max} },`,
    `  readRequest(version: number, r: Reader): ${api.request.name} {`,
    ...versionSwitch(api, 'readRequest', 'reads'),
    '  },',
    `  writeResponse(version: number, w: Writer, m: ${api.response.name}): void {`,
    ...versionSwitch(api, 'writeResponse', 'writes'),
    '  },',
    `  writeRequest(version: number, w: Writer, m: ${api.request.name}): void {`,
    ...versionSwitch(api, 'writeRequest', 'writes'),
    '  },',
    `  readResponse(version: number, r: Reader): ${api.response.name} {`,
    ...versionSwitch(api, 'readResponse', 'reads'),
    '  },',
    '};',
    '',
  ].join('\n');
}

export function emitIndexFile(apis: readonly ApiDef[]): string {
  const sorted = [...apis].sort((a, b) => a.key - b.key);
  return [
    generatedLine('definitions/*.def'),
    '// Every API klog has codecs for, by key.',
    "import type { ApiCodec } from './api-codec.js';",
    ...sorted.map(
      (a) =>
        `import { ${a.name}, type ${a.request.name}, type ${a.response.name} } from './${a.group}/${kebab(a.name)}.js';`,
    ),
    '',
    ...sorted.map((a) => `export * from './${a.group}/${kebab(a.name)}.js';`),
    '',
    '/** The request and response types of every API klog has codecs for, by API key. */',
    'export interface ApiMessages {',
    ...sorted.map(
      (a) =>
        `  /** ${a.name}. */\n  ${a.key}: { readonly request: ${a.request.name}; readonly response: ${a.response.name} };`,
    ),
    '}',
    '',
    '/** The codecs by API key. */',
    'export const API_CODECS: ReadonlyMap<number, ApiCodec<unknown, never>> = new Map<number, ApiCodec<unknown, never>>([',
    ...sorted.map((a) => `  [${a.key}, ${a.name} as ApiCodec<unknown, never>],`),
    ']);',
    '',
  ].join('\n');
}
