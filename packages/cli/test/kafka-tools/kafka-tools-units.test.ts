import { describe, expect, it } from 'vitest';
import {
  autoCommitFailedLine,
  commitFailure,
  murmur2,
  rangeAssign,
  tpKey,
} from '../../src/kafka-tools/clients.js';
import { CONFIG_COMMAND_OPTIONS, configsToBeAdded } from '../../src/kafka-tools/config-command.js';
import { parseOffsetSpec } from '../../src/kafka-tools/get-offset-shell.js';
import {
  javaHashObject,
  javaHashOrder,
  javaStringHash,
  topicPartitionHash,
} from '../../src/kafka-tools/java-order.js';
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

  it("iterates as java.util.HashMap does: Java's String and TopicPartition hashes, buckets, resizing", () => {
    // Values Java gives: "hello".hashCode() and new TopicPartition("t", 0).hashCode().
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('')).toBe(0);
    expect(topicPartitionHash('t', 0)).toBe(31 * 31 + 116);
    // LogDirsCommand's JSON as Kafka prints it (its documentation's example): the keys in this order.
    const json = JSON.stringify(
      javaHashObject([
        ['version', 1],
        [
          'brokers',
          [
            javaHashObject([
              ['broker', 0],
              [
                'logDirs',
                [
                  javaHashObject([
                    ['logDir', '/tmp/kafka-logs'],
                    ['error', null],
                    ['partitions', []],
                  ]),
                ],
              ],
            ]),
          ],
        ],
      ]),
    );
    expect(json).toBe(
      '{"brokers":[{"broker":0,"logDirs":[{"partitions":[],"error":null,"logDir":"/tmp/kafka-logs"}]}],"version":1}',
    );
    // Small Integers hash to themselves: a HashSet<Integer> of them iterates in ascending order; 17 entries
    // make the table 32 wide, so 16 no longer shares bucket 0 with 0.
    expect(javaHashOrder([3, 1, 2], (n) => n)).toEqual([1, 2, 3]);
    expect(javaHashOrder([16, 0], (n) => n)).toEqual([16, 0]);
    const many = Array.from({ length: 17 }, (_, i) => 16 - i);
    expect(javaHashOrder(many, (n) => n)).toEqual(Array.from({ length: 17 }, (_, i) => i));
  });

  it("GetOffsetShell's --time: the names and ListOffsetsRequest's special timestamps", () => {
    expect(
      ['latest', 'earliest', 'max-timestamp', 'earliest-local', 'latest-tiered'].map(parseOffsetSpec),
    ).toEqual([-1, -2, -3, -4, -5]);
    expect(parseOffsetSpec('1700000000000')).toBe(1700000000000);
    expect(() => parseOffsetSpec('1.5')).toThrow(/^Malformed time argument 1\.5\./);
  });

  it("ConfigCommand's --add-config: commas inside square brackets stay in the value, keys are checked", () => {
    const parse = (value: string) =>
      configsToBeAdded(
        parseToolArgs('kafka-configs.sh', '', CONFIG_COMMAND_OPTIONS, ['--add-config', value]),
      );
    expect(parse('a=1, b = [x,y] ,c=')).toEqual(
      new Map([
        ['a', '1'],
        ['b', 'x,y'],
        ['c', ''],
      ]),
    );
    expect(() => parse('a')).toThrow(/^Invalid entity config/);
    expect(() => parse('a b=1')).toThrow('Invalid character found for config key: a b');
  });

  it("a failed auto-commit: the exception Kafka's consumer raises for the first failed partition, and its warning line", () => {
    expect(commitFailure(new Map())).toBeUndefined();
    expect(commitFailure(new Map([[tpKey('t', 0), 22]]))?.message).toMatch(
      /^Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member\./,
    );
    expect(commitFailure(new Map([[tpKey('t', 0), 27]]))).toEqual({
      retriable: false,
      message: expect.stringMatching(/executing a rebalance at the moment/),
    });
    expect(commitFailure(new Map([[tpKey('t', 1), 16]]))).toEqual({
      retriable: true,
      message:
        'Offset commit failed with a retriable exception. You should retry committing the latest consumed offsets.',
    });
    expect(commitFailure(new Map([[tpKey('t', 1), 58]]))?.message).toMatch(/^Unexpected error in commit: /);
    // Offsets in java.util.HashMap's order of TopicPartition keys, not as given: t-0's hashCode 1077 falls
    // in bucket 5 of 16, t-1's 1108 in bucket 4.
    const offsets = new Map([
      [tpKey('t', 0), 5],
      [tpKey('t', 1), 7],
    ]);
    expect(autoCommitFailedLine('Asynchronous', { clientId: 'c', groupId: 'g' }, offsets, 'why')).toBe(
      "WARN [Consumer clientId=c, groupId=g] Asynchronous auto-commit of offsets {t-1=OffsetAndMetadata{offset=7, leaderEpoch=null, metadata=''}, t-0=OffsetAndMetadata{offset=5, leaderEpoch=null, metadata=''}} failed: why (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)",
    );
  });
});
