import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConsumerGroupMemberMetadataValue,
  decodeConsumerGroupCurrentMemberAssignmentValue,
  decodeConsumerGroupMemberMetadataValue,
  decodeConsumerGroupMetadataValue,
  decodeConsumerGroupPartitionMetadataValue,
  decodeConsumerGroupRegularExpressionValue,
  decodeConsumerGroupTargetAssignmentMemberValue,
  decodeConsumerGroupTargetAssignmentMetadataValue,
  decodeOffsetsRecordKey,
  encodeConsumerGroupCurrentMemberAssignmentKey,
  encodeConsumerGroupCurrentMemberAssignmentValue,
  encodeConsumerGroupMemberMetadataKey,
  encodeConsumerGroupMemberMetadataValue,
  encodeConsumerGroupMetadataKey,
  encodeConsumerGroupMetadataValue,
  encodeConsumerGroupPartitionMetadataKey,
  encodeConsumerGroupRegularExpressionKey,
  encodeConsumerGroupRegularExpressionValue,
  encodeConsumerGroupTargetAssignmentMemberKey,
  encodeConsumerGroupTargetAssignmentMemberValue,
  encodeConsumerGroupTargetAssignmentMetadataKey,
  encodeConsumerGroupTargetAssignmentMetadataValue,
  ProtocolDecodeError,
} from '../src/index.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replaceAll(' ', ''), 'hex'));

const T1 = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const T2 = '00000000-0000-0000-0000-000000000001';

/** The value with one more tagged field (tag 7, three bytes) in its last section: what a newer Kafka might add. */
function withUnknownTag(value: Uint8Array): Uint8Array {
  expect(value.at(-1)).toBe(0); // an empty tagged-field section
  return Uint8Array.from([...value.subarray(0, -1), 1, 7, 3, 0xaa, 0xbb, 0xcc]);
}

describe('__consumer_offsets records of consumer groups (KIP-848), Kafka 4.1 formats', () => {
  it('keys: the record type, then INT16-length strings; decodeOffsetsRecordKey reads every one', () => {
    expect(hex(encodeConsumerGroupMetadataKey('g'))).toBe('0003' + '000167');
    expect(hex(encodeConsumerGroupPartitionMetadataKey('g'))).toBe('0004' + '000167');
    expect(hex(encodeConsumerGroupMemberMetadataKey('g', 'm'))).toBe('0005' + '000167' + '00016d');
    expect(hex(encodeConsumerGroupTargetAssignmentMetadataKey('g'))).toBe('0006' + '000167');
    expect(hex(encodeConsumerGroupTargetAssignmentMemberKey('g', 'm'))).toBe('0007' + '000167' + '00016d');
    expect(hex(encodeConsumerGroupCurrentMemberAssignmentKey('g', 'm'))).toBe('0008' + '000167' + '00016d');
    expect(hex(encodeConsumerGroupRegularExpressionKey('g', 'a.*'))).toBe('0010' + '000167' + '0003612e2a');

    expect(decodeOffsetsRecordKey(encodeConsumerGroupMetadataKey('grp'))).toEqual({
      kind: 'consumerGroupMetadata',
      version: 3,
      group: 'grp',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupPartitionMetadataKey('grp'))).toEqual({
      kind: 'consumerGroupPartitionMetadata',
      version: 4,
      group: 'grp',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupMemberMetadataKey('grp', 'mem'))).toEqual({
      kind: 'consumerGroupMemberMetadata',
      version: 5,
      group: 'grp',
      memberId: 'mem',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupTargetAssignmentMetadataKey('grp'))).toEqual({
      kind: 'consumerGroupTargetAssignmentMetadata',
      version: 6,
      group: 'grp',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupTargetAssignmentMemberKey('grp', 'mem'))).toEqual({
      kind: 'consumerGroupTargetAssignmentMember',
      version: 7,
      group: 'grp',
      memberId: 'mem',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupCurrentMemberAssignmentKey('grp', 'mem'))).toEqual({
      kind: 'consumerGroupCurrentMemberAssignment',
      version: 8,
      group: 'grp',
      memberId: 'mem',
    });
    expect(decodeOffsetsRecordKey(encodeConsumerGroupRegularExpressionKey('grp', '^t.*'))).toEqual({
      kind: 'consumerGroupRegularExpression',
      version: 16,
      group: 'grp',
      regex: '^t.*',
    });
  });

  it('keys that are not one: a type Kafka 4.1 uses for other groups, a short key, bytes after it', () => {
    // 9–15: share and streams groups' records, not read here.
    expect(() => decodeOffsetsRecordKey(bytes('0009 000167'))).toThrow(/key version 9/);
    expect(() => decodeOffsetsRecordKey(bytes('0011 000167'))).toThrow(/key version 17/);
    expect(() => decodeOffsetsRecordKey(bytes('0005 000167'))).toThrow(ProtocolDecodeError);
    expect(() => decodeOffsetsRecordKey(bytes('0003 000167 00'))).toThrow(/1 bytes after the key/);
  });

  it('ConsumerGroupMetadataValue: the hash is tag 0, written only when it is not 0, a full int64', () => {
    expect(hex(encodeConsumerGroupMetadataValue({ epoch: 5, metadataHash: 0n }))).toBe('00000000000500');
    const h = -0x0123456789abcdefn; // beyond 2^53, and negative
    const withHash = encodeConsumerGroupMetadataValue({ epoch: 5, metadataHash: h });
    expect(hex(withHash)).toBe('0000' + '00000005' + '01' + '00' + '08' + 'fedcba9876543211');
    expect(decodeConsumerGroupMetadataValue(withHash)).toEqual({ epoch: 5, metadataHash: h });
    const max = 0x7fffffffffffffffn;
    expect(
      decodeConsumerGroupMetadataValue(encodeConsumerGroupMetadataValue({ epoch: 1, metadataHash: max })),
    ).toEqual({ epoch: 1, metadataHash: max });
    expect(decodeConsumerGroupMetadataValue(bytes('0000 00000005 00'))).toEqual({
      epoch: 5,
      metadataHash: 0n,
    });
    // An unknown tag beside the hash is skipped.
    expect(
      decodeConsumerGroupMetadataValue(bytes('0000 00000007 02 0102abcd 0008 0000000000000009')),
    ).toEqual({ epoch: 7, metadataHash: 9n });
    expect(() => decodeConsumerGroupMetadataValue(bytes('0001 00000005 00'))).toThrow(/version 1/);
    expect(() => decodeConsumerGroupMetadataValue(bytes('0000 00000005 01 0004 00000001'))).toThrow(
      ProtocolDecodeError,
    );
  });

  it('ConsumerGroupMemberMetadataValue: field by field, names sorted as Kafka writes them', () => {
    const v: ConsumerGroupMemberMetadataValue = {
      instanceId: null,
      rackId: 'r',
      clientId: 'c',
      clientHost: '/h',
      subscribedTopicNames: ['b', 'a'],
      subscribedTopicRegex: null,
      rebalanceTimeoutMs: 300000,
      serverAssignor: 'uniform',
      classicMemberMetadata: null,
    };
    const encoded = encodeConsumerGroupMemberMetadataValue(v);
    expect(hex(encoded)).toBe(
      '0000' +
        '00' + // instanceId null
        '0272' + // rackId 'r'
        '0263' + // clientId 'c'
        '032f68' + // clientHost '/h'
        '03' +
        '0261' +
        '0262' + // sorted: a, b
        '00' + // regex null
        '000493e0' + // 300000
        '08' +
        Buffer.from('uniform').toString('hex') +
        '00',
    );
    expect(decodeConsumerGroupMemberMetadataValue(encoded)).toEqual({
      ...v,
      subscribedTopicNames: ['a', 'b'],
    });
    expect(decodeConsumerGroupMemberMetadataValue(withUnknownTag(encoded))).toEqual({
      ...v,
      subscribedTopicNames: ['a', 'b'],
    });
  });

  it('ConsumerGroupMemberMetadataValue: a classic member carries tag 0, a nullable struct with its marker', () => {
    const v: ConsumerGroupMemberMetadataValue = {
      instanceId: 'i',
      rackId: null,
      clientId: 'c',
      clientHost: 'h',
      subscribedTopicNames: [],
      subscribedTopicRegex: 't.*',
      rebalanceTimeoutMs: -1,
      serverAssignor: null,
      classicMemberMetadata: {
        sessionTimeoutMs: 45000,
        supportedProtocols: [{ name: 'range', metadata: Uint8Array.from([1, 2]) }],
      },
    };
    const encoded = encodeConsumerGroupMemberMetadataValue(v);
    const struct = '0000afc8' + '02' + '0672616e6765' + '03' + '0102' + '00' + '00';
    expect(hex(encoded)).toBe(
      '0000' +
        '0269' +
        '00' +
        '0263' +
        '0268' +
        '01' +
        '04742e2a' +
        'ffffffff' +
        '00' +
        // one tagged field: tag 0, size (the struct and its 1), 1 = not null, the struct
        '01' +
        '00' +
        (struct.length / 2 + 1).toString(16).padStart(2, '0') +
        '01' +
        struct,
    );
    expect(decodeConsumerGroupMemberMetadataValue(encoded)).toEqual(v);
    // An unknown tag after tag 0 is skipped, and tag 0 still read.
    const more = Uint8Array.from([...encoded]);
    const at = encoded.length - (struct.length / 2 + 4); // the section's count
    expect(more[at]).toBe(1);
    more[at] = 2;
    const twoTags = Uint8Array.from([...more, 9, 1, 0xff]);
    expect(decodeConsumerGroupMemberMetadataValue(twoTags)).toEqual(v);
    // A tag 0 of 0 (null) is read as no classic metadata.
    const nullTag = Uint8Array.from([...encoded.subarray(0, at), 1, 0, 1, 0]);
    expect(decodeConsumerGroupMemberMetadataValue(nullTag).classicMemberMetadata).toBeNull();
  });

  it('target assignment metadata and member, current assignment: round trips and bytes', () => {
    const epoch = encodeConsumerGroupTargetAssignmentMetadataValue({ assignmentEpoch: 12 });
    expect(hex(epoch)).toBe('0000' + '0000000c' + '00');
    expect(decodeConsumerGroupTargetAssignmentMetadataValue(withUnknownTag(epoch))).toEqual({
      assignmentEpoch: 12,
    });

    const target = encodeConsumerGroupTargetAssignmentMemberValue({
      topicPartitions: [{ topicId: T1, partitions: [0, 2] }],
    });
    expect(hex(target)).toBe(
      '0000' + '02' + T1.replaceAll('-', '') + '03' + '00000000' + '00000002' + '00' + '00',
    );
    expect(decodeConsumerGroupTargetAssignmentMemberValue(withUnknownTag(target))).toEqual({
      topicPartitions: [{ topicId: T1, partitions: [0, 2] }],
    });

    const current = {
      memberEpoch: 4,
      previousMemberEpoch: 3,
      state: 1 as const,
      assignedPartitions: [{ topicId: T1, partitions: [1] }],
      partitionsPendingRevocation: [
        { topicId: T2, partitions: [] },
        { topicId: T1, partitions: [0, 5] },
      ],
    };
    const encoded = encodeConsumerGroupCurrentMemberAssignmentValue(current);
    expect(hex(encoded.subarray(0, 11))).toBe('0000' + '00000004' + '00000003' + '01');
    expect(decodeConsumerGroupCurrentMemberAssignmentValue(encoded)).toEqual(current);
    expect(decodeConsumerGroupCurrentMemberAssignmentValue(withUnknownTag(encoded))).toEqual(current);
    const badState = Uint8Array.from(encoded);
    badState[10] = 3;
    expect(() => decodeConsumerGroupCurrentMemberAssignmentValue(badState)).toThrow(/member state 3/);
  });

  it('ConsumerGroupRegularExpressionValue: topics, then the INT64 version and timestamp', () => {
    const v = { topics: ['t1'], version: 42, timestamp: 1700000000000 };
    const encoded = encodeConsumerGroupRegularExpressionValue(v);
    expect(hex(encoded)).toBe('0000' + '02' + '037431' + '000000000000002a' + '0000018bcfe56800' + '00');
    expect(decodeConsumerGroupRegularExpressionValue(withUnknownTag(encoded))).toEqual(v);
  });

  it('ConsumerGroupPartitionMetadataValue (type 4, written before Kafka 4.1): read', () => {
    const value = bytes(
      '0000' +
        '02' + // one topic
        T1.replaceAll('-', '') +
        '026f' + // 'o'
        '00000002' + // two partitions
        '02' + // one partition metadata
        '00000001' +
        '02' +
        '037231' + // racks ['r1']
        '00' +
        '00' +
        '00',
    );
    expect(decodeConsumerGroupPartitionMetadataValue(value)).toEqual({
      topics: [
        {
          topicId: T1,
          topicName: 'o',
          numPartitions: 2,
          partitionMetadata: [{ partition: 1, racks: ['r1'] }],
        },
      ],
    });
    expect(decodeConsumerGroupPartitionMetadataValue(withUnknownTag(value)).topics).toHaveLength(1);
  });

  it('every value reads back what was written (fast-check)', () => {
    const uuid = fc.uuid({ version: [4] });
    const tps = fc.array(fc.record({ topicId: uuid, partitions: fc.array(fc.nat(1000)) }), { maxLength: 4 });
    const name = fc.string({ maxLength: 8 });
    fc.assert(
      fc.property(
        fc.record({
          instanceId: fc.option(name),
          rackId: fc.option(name),
          clientId: name,
          clientHost: name,
          subscribedTopicNames: fc.uniqueArray(name, { maxLength: 4 }).map((a) => a.sort()),
          subscribedTopicRegex: fc.option(name),
          rebalanceTimeoutMs: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
          serverAssignor: fc.option(name),
          classicMemberMetadata: fc.option(
            fc.record({
              sessionTimeoutMs: fc.nat(),
              supportedProtocols: fc.array(fc.record({ name, metadata: fc.uint8Array({ maxLength: 8 }) })),
            }),
          ),
        }),
        fc.record({
          memberEpoch: fc.integer({ min: -2, max: 2 ** 31 - 1 }),
          previousMemberEpoch: fc.integer({ min: -2, max: 2 ** 31 - 1 }),
          state: fc.constantFrom(0 as const, 1 as const, 2 as const, 127 as const),
          assignedPartitions: tps,
          partitionsPendingRevocation: tps,
        }),
        fc.record({
          epoch: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          metadataHash: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        }),
        (member, current, metadata) => {
          expect(
            decodeConsumerGroupMemberMetadataValue(encodeConsumerGroupMemberMetadataValue(member)),
          ).toEqual(member);
          expect(
            decodeConsumerGroupCurrentMemberAssignmentValue(
              encodeConsumerGroupCurrentMemberAssignmentValue(current),
            ),
          ).toEqual(current);
          expect(decodeConsumerGroupMetadataValue(encodeConsumerGroupMetadataValue(metadata))).toEqual(
            metadata,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
