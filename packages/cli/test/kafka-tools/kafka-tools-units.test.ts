import { describe, expect, it } from 'vitest';
import { murmur2, rangeAssign } from '../../src/kafka-tools/clients.js';
import { parseToolArgs, ToolUsageError } from '../../src/kafka-tools/tool-options.js';
import { includeList } from '../../src/kafka-tools/topic-command.js';

describe("the pieces of Kafka's clients the tools carry", () => {
  it("murmur2 gives Kafka's own test vectors (UtilsTest.testMurmur2), so keyed records land where Kafka puts them", () => {
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [text, hash] of cases) expect(murmur2(new TextEncoder().encode(text))).toBe(hash);
  });

  it("the range assignor cuts each topic's partitions in consecutive ranges, the first members taking one more", () => {
    expect(rangeAssign(['m2', 'm1'], new Map([['t', 5]]))).toEqual(
      new Map([
        ['m2', new Map([['t', [3, 4]]])],
        ['m1', new Map([['t', [0, 1, 2]]])],
      ]),
    );
  });

  it("--topic is TopicFilter.IncludeList's regex: whole names, commas as alternatives", () => {
    expect(includeList('quick.*').test('quickstart-events')).toBe(true);
    expect(includeList('orders').test('orders-v2')).toBe(false);
    expect(includeList('a, b').test('b')).toBe(true);
  });

  it('reads options as jopt-simple does: unique prefixes, --name=value, optional values', () => {
    const opts = parseToolArgs(
      't',
      'p',
      [
        { name: 'state', arg: 's', optional: true, help: '' },
        { name: 'list', help: '' },
      ],
      ['--li', '--state'],
    );
    expect(opts.has('list')).toBe(true);
    expect(opts.value('state')).toBe('');
    expect(() => parseToolArgs('t', 'p', [{ name: 'list', help: '' }], ['--lis=1'])).toThrow(ToolUsageError);
  });
});
