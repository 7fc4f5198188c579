import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../generator/definition.js';
import { generate } from '../generator/generate.js';
import { generatedOnDisk, PACKAGE_DIR, readDefinitions } from '../generator/main.js';
import { schemaText } from '../generator/schema-text.js';
import { definitionOf } from './definition-codec.js';

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
    expect(turbo.tasks.test.inputs).toEqual(expect.arrayContaining(['definitions/**', 'generator/**', 'src/**', 'test/**']));
    expect(existsSync(join(PACKAGE_DIR, 'turbo.json')), 'a package turbo.json would override the inputs').toBe(false);
  });

  it('one file per API version, found by its path, with the version’s schema text on top', () => {
    const text = readFileSync(join(PACKAGE_DIR, 'src/apis/producer/produce-v7.ts'), 'utf8');
    expect(text).toContain(
      [
        '  Produce Request (Version: 7) => transactional_id acks timeout_ms [topic_data]',
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
    expect(schemaText(definitionOf('Fetch'), definitionOf('Fetch').request, 'Request', 12).slice(0, 2)).toEqual([
      'Fetch Request (Version: 12) => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data] rack_id TAG_BUFFER',
      '  replica_id => INT32',
    ]);
    expect(schemaText(definitionOf('Fetch'), definitionOf('Fetch').request, 'Request', 12)).toContain('  tag 0: cluster_id => COMPACT_NULLABLE_STRING');
  });

  const bad: [string, string, string][] = [
    ['odd indentation', 'request R\n   A int8 0+', 'indentation must be a multiple of two spaces'],
    ['a tag without its versions', 'request R\n  A int8 0+ tag=0', 'tag= and tagged= go together'],
    ['an unknown type', 'request R\n  A int9 0+', 'unknown type int9'],
    ['a struct without fields', 'request R\n  A []Thing 0+', 'A needs its fields'],
    ['fields under a primitive', 'request R\n  A int8 0+\n    B int8 0+', 'A is not a struct'],
    ['a tag used twice', 'request R\n  A int8 1+ tag=0 tagged=1+\n  B int8 1+ tag=0 tagged=1+', "tag 0 is already A's"],
    ['a tagged field in a non-flexible version', 'request R\n  A int8 0+ tag=0 tagged=0+', 'a tagged field exists only in flexible versions'],
    ['a bad version range', 'request R\n  A int8 5-3', 'version range 5-3 is empty'],
    ['an unknown attribute', 'request R\n  A int8 0+ nullible=0+', 'unknown attribute nullible=0+'],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what}, naming the file and line`, () => {
      const text = `api X key=99 group=g kafka=0-3 flexible=1+ serve=0-3\n${body}\nresponse S\n  E int16 0+\n`;
      expect(() => parseDefinition('definitions/x.def', text)).toThrow(new RegExp(`^definitions/x\\.def:\\d+: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    });
  }
});
