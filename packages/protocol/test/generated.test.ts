import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../generator/definition.js';
import { codeVersions } from '../generator/emit-version.js';
import { generate } from '../generator/generate.js';
import { generatedOnDisk, PACKAGE_DIR, readDefinitions } from '../generator/main.js';
import { schemaText } from '../generator/schema-text.js';
import { Metadata, ProtocolEncodeError } from '../src/index.js';
import { Writer } from '../src/wire/writer.js';
import { DEFINITIONS, definitionOf } from './definition-codec.js';

describe('the generator', () => {
  it('what is committed under src/apis is what the definitions make (run `pnpm --filter @klog/protocol generate`)', () => {
    const files = generate(readDefinitions());
    for (const [path, content] of files) {
      expect(readFileSync(join(PACKAGE_DIR, path), 'utf8'), path).toBe(content);
    }
    expect(generatedOnDisk()).toEqual([...files.keys()].sort());
  });

  it('turbo reruns this test when a definition or the generator changes (both are in its test inputs)', () => {
    const turbo = JSON.parse(readFileSync(join(PACKAGE_DIR, '../../turbo.json'), 'utf8')) as {
      tasks: { test: { inputs: string[] } };
    };
    expect(turbo.tasks.test.inputs).toEqual(
      expect.arrayContaining(['definitions/**', 'generator/**', 'src/**', 'test/**']),
    );
    expect(
      existsSync(join(PACKAGE_DIR, 'turbo.json')),
      'a package turbo.json would override the inputs',
    ).toBe(false);
  });

  it('every generated file says so on its first line, as tools look for it, and is marked linguist-generated', () => {
    const files = [...generate(readDefinitions()).keys()];
    for (const path of files) {
      const first = readFileSync(join(PACKAGE_DIR, path), 'utf8').split('\n')[0];
      expect(first, path).toMatch(/^\/\/ Code generated .* DO NOT EDIT\.$/);
    }
    const attrs = execFileSync(
      'git',
      ['check-attr', 'linguist-generated', '--', ...files, 'src/apis/api-codec.ts'],
      {
        cwd: PACKAGE_DIR,
        encoding: 'utf8',
      },
    );
    const byFile = new Map(
      attrs
        .trim()
        .split('\n')
        .map((l) => [l.split(': ')[0]!, l.split(': ')[2]!] as const),
    );
    for (const path of files) expect(byFile.get(path), path).toBe('true');
    expect(byFile.get('src/apis/api-codec.ts')).toBe('unset');
  });

  it('a version the same on the wire as an earlier one has no file: the earlier one’s code reads and writes it', () => {
    expect([...codeVersions(definitionOf('Produce'))]).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 3],
      [5, 5],
      [6, 5],
      [7, 5],
      [8, 8],
    ]);
    expect(existsSync(join(PACKAGE_DIR, 'src/apis/producer/produce-v4.ts'))).toBe(false);
    const v3 = readFileSync(join(PACKAGE_DIR, 'src/apis/producer/produce-v3.ts'), 'utf8');
    expect(v3).toContain('for v4, the same on the wire');
    // The version switch sends v4 to v3's code.
    const produce = readFileSync(join(PACKAGE_DIR, 'src/apis/producer/produce.ts'), 'utf8');
    expect(produce).not.toContain('produce-v4.js');
    // No two files of one API hold the same code.
    for (const api of DEFINITIONS) {
      const base = api.file.slice('definitions/'.length, -'.def'.length);
      const code = [...new Set(codeVersions(api).values())].map((v) =>
        readFileSync(join(PACKAGE_DIR, `src/apis/${api.group}/${base}-v${v}.ts`), 'utf8')
          .split('*/')[1]!
          .replace(/V\d+\b/g, 'V#'),
      );
      expect(new Set(code).size, api.name).toBe(code.length);
    }
  });

  it('a writer shared by several versions names the version it was asked to write', () => {
    expect(codeVersions(definitionOf('Metadata')).get(6)).toBe(5);
    const response = {
      throttleTimeMs: 0,
      brokers: [],
      clusterId: null,
      controllerId: -1,
      topics: [],
      clusterAuthorizedOperations: 7,
      errorCode: 0,
    };
    for (const version of [5, 6]) {
      expect(() => Metadata.writeResponse(version, new Writer(), response)).toThrow(
        `clusterAuthorizedOperations: version ${version} has no such field, and its value is not the default`,
      );
      expect(() => Metadata.writeResponse(version, new Writer(), response)).toThrow(ProtocolEncodeError);
    }
  });

  it("Kafka's about texts become the fields' doc comments; a field without one keeps its versions note", () => {
    const produce = readFileSync(join(PACKAGE_DIR, 'src/apis/producer/produce.ts'), 'utf8');
    expect(produce).toContain(
      '  /** The timeout to await a response in milliseconds. TimeoutMs: versions 0+. */\n  timeoutMs: number;',
    );
    const text = [
      'api X key=99 group=g kafka=0-3 flexible=1+ serve=0-3',
      'request R',
      '  A int8 0+',
      '    "Line one, # not a comment,"',
      '    "line two."',
      '  B int8 0+',
      'response S',
      '  E int16 0+',
      '',
    ].join('\n');
    const api = parseDefinition('definitions/x.def', text);
    expect(api.request.fields.map((f) => f.about)).toEqual([
      'Line one, # not a comment, line two.',
      undefined,
    ]);
    const x = generate([{ path: 'definitions/x.def', text }]).get('src/apis/g/x.ts')!;
    expect(x).toContain('  /** Line one, # not a comment, line two. A: versions 0+. */\n  a: number;');
    expect(x).toContain('  /** B: versions 0+. */\n  b: number;');
  });

  it('one file per version with code of its own, found by its path, with the version’s schema text on top', () => {
    const text = readFileSync(join(PACKAGE_DIR, 'src/apis/producer/produce-v5.ts'), 'utf8');
    expect(text).toContain(
      [
        '  Produce Request (Version: 5) => transactional_id acks timeout_ms [topic_data]',
        '    transactional_id => NULLABLE_STRING',
        '    acks => INT16',
        '    timeout_ms => INT32',
        '    topic_data => name [partition_data]',
        '      name => STRING',
        '      partition_data => index records',
        '        index => INT32',
        '        records => RECORDS',
      ].join('\n'),
    );
  });

  it('flexible versions print compact types, tag buffers and tagged fields', () => {
    expect(
      schemaText(definitionOf('Fetch'), definitionOf('Fetch').request, 'Request', 12).slice(0, 2),
    ).toEqual([
      'Fetch Request (Version: 12) => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data] rack_id TAG_BUFFER',
      '  replica_id => INT32',
    ]);
    expect(schemaText(definitionOf('Fetch'), definitionOf('Fetch').request, 'Request', 12)).toContain(
      '  tag 0: cluster_id => COMPACT_NULLABLE_STRING',
    );
  });

  const bad: [string, string, string][] = [
    ['odd indentation', 'request R\n   A int8 0+', 'indentation must be a multiple of two spaces'],
    ['a tag without its versions', 'request R\n  A int8 0+ tag=0', 'tag= and tagged= go together'],
    ['an unknown type', 'request R\n  A int9 0+', 'unknown type int9'],
    ['a struct without fields', 'request R\n  A []Thing 0+', 'A needs its fields'],
    ['fields under a primitive', 'request R\n  A int8 0+\n    B int8 0+', 'A is not a struct'],
    [
      'a tag used twice',
      'request R\n  A int8 1+ tag=0 tagged=1+\n  B int8 1+ tag=0 tagged=1+',
      "tag 0 is already A's",
    ],
    [
      'a tagged field in a non-flexible version',
      'request R\n  A int8 0+ tag=0 tagged=0+',
      'a tagged field exists only in flexible versions',
    ],
    ['a bad version range', 'request R\n  A int8 5-3', 'version range 5-3 is empty'],
    ['an unknown attribute', 'request R\n  A int8 0+ nullible=0+', 'unknown attribute nullible=0+'],
    [
      'an about line that is not a JSON string',
      'request R\n  A int8 0+\n    "unclosed',
      'an about line is one JSON string ("…"), nothing after it',
    ],
    [
      'an about line under nothing',
      'request R\n  "about what?"\n  A int8 0+',
      'an about line goes right under its field',
    ],
    [
      "an about line below a field's children",
      'request R\n  A []T 0+\n    B int8 0+\n    "late"',
      'an about line goes right under its field',
    ],
    [
      'an about line indented too far',
      'request R\n  A int8 0+\n      "deep"',
      'an about line goes one level under its field',
    ],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what}, naming the file and line`, () => {
      const text = `api X key=99 group=g kafka=0-3 flexible=1+ serve=0-3\n${body}\nresponse S\n  E int16 0+\n`;
      expect(() => parseDefinition('definitions/x.def', text)).toThrow(
        new RegExp(`^definitions/x\\.def:\\d+: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
    });
  }
});
