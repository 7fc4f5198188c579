import { describe, expect, it } from 'vitest';
import {
  consumerAssignmentPartitions,
  consumerSubscriptionTopics,
  decodeConsumerProtocolAssignment,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeOffsetsRecordKey,
  encodeConsumerProtocolAssignment,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  offsetsPartitionFor,
  ProtocolDecodeError,
  Writer,
} from '../src/index.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('__consumer_offsets records in Kafka 4.1 formats', () => {
  it('keys: offset commit key version 1 (group, topic, partition), group metadata key version 2', () => {
    expect(hex(encodeOffsetCommitKey('g', 't', 7))).toBe('0001' + '000167' + '000174' + '00000007');
    expect(hex(encodeGroupMetadataKey('g'))).toBe('0002' + '000167');
    expect(decodeOffsetsRecordKey(encodeOffsetCommitKey('grp', 'orders', 3))).toEqual({
      kind: 'offsetCommit',
      version: 1,
      group: 'grp',
      topic: 'orders',
      partition: 3,
    });
    expect(decodeOffsetsRecordKey(encodeGroupMetadataKey('grp'))).toEqual({
      kind: 'groupMetadata',
      version: 2,
      group: 'grp',
    });
    expect(() => decodeOffsetsRecordKey(Uint8Array.from([0, 9, 0, 0]))).toThrow(/key version 9/);
    expect(() => decodeOffsetsRecordKey(Uint8Array.from([0, 2, 0, 1, 0x67, 0]))).toThrow(ProtocolDecodeError);
  });

  it('OffsetCommitValue: version 3 with the leader epoch, version 1 when it expires; versions 0 and 4 read', () => {
    const v3 = {
      offset: 42,
      leaderEpoch: 5,
      metadata: 'm',
      commitTimestamp: 1700000000000,
      expireTimestamp: -1,
    };
    expect(hex(encodeOffsetCommitValue(v3))).toBe(
      '0003' + '000000000000002a' + '00000005' + '00016d' + '0000018bcfe56800',
    );
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(v3))).toEqual({ version: 3, ...v3 });
    const v1 = { ...v3, leaderEpoch: -1, expireTimestamp: 1700000060000 };
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(v1))).toEqual({ version: 1, ...v1 });
    const v0 = new Writer().int16(0, 'v').int64(9, 'o').string('', 'm').int64(1, 't').toBytes();
    expect(decodeOffsetCommitValue(v0)).toEqual({
      version: 0,
      offset: 9,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: 1,
      expireTimestamp: -1,
    });
    // Version 4: compact string, and a tagged field Kafka may add later, skipped.
    const v4 = new Writer()
      .int16(4, 'v')
      .int64(9, 'o')
      .int32(2, 'e')
      .compactString('x', 'm')
      .int64(1, 't')
      .uvarint(1, 'n')
      .uvarint(0, 'tag')
      .uvarint(1, 's')
      .int8(0, 'x')
      .toBytes();
    expect(decodeOffsetCommitValue(v4)).toMatchObject({
      version: 4,
      offset: 9,
      leaderEpoch: 2,
      metadata: 'x',
    });
  });

  it('GroupMetadataValue: version 3 round trip with a static member; bytes passed through untouched', () => {
    const value = {
      protocolType: 'consumer',
      generation: 3,
      protocol: 'range',
      leader: 'a-1',
      currentStateTimestamp: 1700000000000,
      members: [
        {
          memberId: 'a-1',
          groupInstanceId: null,
          clientId: 'a',
          clientHost: '/127.0.0.1',
          rebalanceTimeout: 300000,
          sessionTimeout: 45000,
          subscription: Uint8Array.from([0, 1, 2]),
          assignment: Uint8Array.from([9]),
        },
        {
          memberId: 'i-2',
          groupInstanceId: 'i',
          clientId: 'b',
          clientHost: '/127.0.0.1',
          rebalanceTimeout: 1,
          sessionTimeout: 2,
          subscription: new Uint8Array(0),
          assignment: new Uint8Array(0),
        },
      ],
    };
    const bytes = encodeGroupMetadataValue(value);
    expect(hex(bytes.subarray(0, 2))).toBe('0003');
    expect(decodeGroupMetadataValue(bytes)).toEqual({ version: 3, ...value });
    const empty = {
      protocolType: 'consumer',
      generation: 4,
      protocol: null,
      leader: null,
      currentStateTimestamp: 5,
      members: [],
    };
    expect(hex(encodeGroupMetadataValue(empty))).toBe(
      '0003' +
        '0008' +
        hex(Buffer.from('consumer')) +
        '00000004' +
        'ffff' +
        'ffff' +
        '0000000000000005' +
        '00000000',
    );
    expect(() => decodeGroupMetadataValue(Uint8Array.from([0, 7]))).toThrow(/version 7/);
  });

  it("a group's partition is abs(Java's String.hashCode) % n, Integer.MIN_VALUE mapping to 0", () => {
    expect(offsetsPartitionFor('foo', 50)).toBe(101574 % 50);
    expect(offsetsPartitionFor('hello', 50)).toBe(99162322 % 50);
    // "polygenelubricants".hashCode() == Integer.MIN_VALUE.
    expect(offsetsPartitionFor('polygenelubricants', 50)).toBe(0);
    // A negative hash: "Aa\u00ff…" style strings; "zzzzzz".hashCode() = -1-based overflow.
    let h = 0;
    for (const c of 'zzzzzzzz') h = (h * 31 + c.charCodeAt(0)) % 2 ** 32;
    const java = h >= 2 ** 31 ? h - 2 ** 32 : h;
    expect(offsetsPartitionFor('zzzzzzzz', 50)).toBe(Math.abs(java) % 50);
    expect(offsetsPartitionFor('é', 50)).toBe(233 % 50);
    expect(offsetsPartitionFor('', 50)).toBe(0);
  });

  it('consumer protocol subscription topics and assignment, undefined for bytes that are not one', () => {
    const sub = new Writer()
      .int16(1, 'v')
      .arrayLength(2, 't')
      .string('a', 't')
      .string('b', 't')
      .nullableBytes(null, 'u')
      .arrayLength(0, 'o')
      .toBytes();
    expect(consumerSubscriptionTopics(sub)).toEqual(['a', 'b']);
    expect(consumerSubscriptionTopics(Uint8Array.from([1]))).toBeUndefined();
    const asg = new Writer()
      .int16(0, 'v')
      .arrayLength(1, 'a')
      .string('a', 't')
      .arrayLength(2, 'p')
      .int32(0, 'p')
      .int32(3, 'p')
      .nullableBytes(null, 'u')
      .toBytes();
    expect(consumerAssignmentPartitions(asg)).toEqual([{ topic: 'a', partitions: [0, 3] }]);
    expect(consumerAssignmentPartitions(new Uint8Array(0))).toEqual([]);
    expect(consumerAssignmentPartitions(Uint8Array.from([0, 0, 0, 0, 0, 9]))).toBeUndefined();
  });

  it("ConsumerProtocolAssignment written as ConsumerProtocol.serializeAssignment: the member's version capped at 3", () => {
    const assignment = { assignedPartitions: [{ topic: 'a', partitions: [0, 3] }], userData: null };
    // INT16 version, INT32 count, STRING topic, INT32 count + INT32 partitions, NULLABLE_BYTES user data (-1).
    expect(hex(encodeConsumerProtocolAssignment(assignment, 1))).toBe(
      '0001' + '00000001' + '000161' + '00000002' + '00000000' + '00000003' + 'ffffffff',
    );
    const v7 = encodeConsumerProtocolAssignment(assignment, 7);
    expect(decodeConsumerProtocolAssignment(v7)).toEqual({ version: 3, ...assignment });
    expect(() => encodeConsumerProtocolAssignment(assignment, -1)).toThrow(RangeError);
  });
});
