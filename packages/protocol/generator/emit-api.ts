/**
 * One module per API, `src/apis/<group>/<api>.ts`: the request and response types over every version klog
 * serves (Kafka's "one MessageData for every version"), and the codec that picks the version's reader and
 * writer. And `src/apis/index.ts`, the list of them all.
 */
import type { ApiDef, FieldDef, MessageDef } from './definition.js';
import { GENERATED_NOTE, readName, readResponseName, versionFilePath, writeName, writeRequestName } from './emit-version.js';
import { camel, kebab } from './names.js';
import { alwaysTagged, fieldNote, servedFields, tsType } from './types.js';
import { formatRange, versionsOf } from './version-range.js';

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

function members(api: ApiDef, message: MessageDef, fields: readonly FieldDef[], response: boolean, indent: string) {
  const out: string[] = [];
  for (const f of servedFields(api, fields)) {
    const optional = response && f.tag !== undefined && alwaysTagged(api, f);
    out.push(`${indent}/** ${f.name}: ${fieldNote(f)}. */`);
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

export function emitApiFile(api: ApiDef, definitionPath: string): string {
  const versions = versionsOf(api.serve);
  const base = kebab(api.name);
  const imports = versions.map(
    (v) =>
      `import { ${readName(api, v)}, ${readResponseName(api, v)}, ${writeName(api, v)}, ${writeRequestName(api, v)} } from './${base}-v${v}.js';`,
  );
  const flexibleFrom = api.flexible.max < api.flexible.min ? -1 : api.flexible.min;
  const kafka = api.kafka;
  return [
    `// ${api.name} (key ${api.key}): the types and the codec of every version klog serves.`,
    `// ${GENERATED_NOTE} ${definitionPath}; do not edit.`,
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
    '    switch (version) {',
    ...versions.flatMap((v) => [`      case ${v}:`, `        return ${readName(api, v)}(r);`]),
    '      default:',
    `        throw new RangeError(\`${api.name} version \${version} is not one klog reads\`);`,
    '    }',
    '  },',
    `  writeResponse(version: number, w: Writer, m: ${api.response.name}): void {`,
    '    switch (version) {',
    ...versions.flatMap((v) => [`      case ${v}:`, `        ${writeName(api, v)}(w, m);`, '        return;']),
    '      default:',
    `        throw new RangeError(\`${api.name} version \${version} is not one klog writes\`);`,
    '    }',
    '  },',
    `  writeRequest(version: number, w: Writer, m: ${api.request.name}): void {`,
    '    switch (version) {',
    ...versions.flatMap((v) => [`      case ${v}:`, `        ${writeRequestName(api, v)}(w, m);`, '        return;']),
    '      default:',
    `        throw new RangeError(\`${api.name} version \${version} is not one klog writes\`);`,
    '    }',
    '  },',
    `  readResponse(version: number, r: Reader): ${api.response.name} {`,
    '    switch (version) {',
    ...versions.flatMap((v) => [`      case ${v}:`, `        return ${readResponseName(api, v)}(r);`]),
    '      default:',
    `        throw new RangeError(\`${api.name} version \${version} is not one klog reads\`);`,
    '    }',
    '  },',
    '};',
    '',
  ].join('\n');
}

export function emitIndexFile(apis: readonly ApiDef[]): string {
  const sorted = [...apis].sort((a, b) => a.key - b.key);
  return [
    '// Every API klog has codecs for, by key.',
    `// ${GENERATED_NOTE} definitions/*.def; do not edit.`,
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
    ...sorted.map((a) => `  /** ${a.name}. */\n  ${a.key}: { readonly request: ${a.request.name}; readonly response: ${a.response.name} };`),
    '}',
    '',
    '/** The codecs by API key. */',
    'export const API_CODECS: ReadonlyMap<number, ApiCodec<unknown, never>> = new Map<number, ApiCodec<unknown, never>>([',
    ...sorted.map((a) => `  [${a.key}, ${a.name} as ApiCodec<unknown, never>],`),
    ']);',
    '',
  ].join('\n');
}
