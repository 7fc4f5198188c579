import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
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
} from '@klog/protocol';
import { appendRecords, Partition } from '@klog/storage/internals';
import { afterAll, describe, expect, it } from 'vitest';
import { klog } from '../run-klog.js';

/**
 * `klog dump-log --offsets-decoder` on a real `__consumer_offsets` segment holding the consumer group
 * records of KIP-848 (types 3–8 and 16) and their tombstones, printed as Kafka 4.1's
 * `DumpLogSegments.OffsetsMessageParser` prints them (its generated `CoordinatorRecordJsonConverters`).
 */
const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-dump-offsets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const T1 = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'; // Kafka's Uuid.toString: Dx4tPEtaaXiHlqW0w9Lh8A
const T2 = '00000000-0000-0000-0000-000000000001'; // AAAAAAAAAAAAAAAAAAAAAQ

/** A type 4 value as Kafka 4.0 wrote it (klog never writes one): topic T1 'orders', 2 partitions. */
const PARTITION_METADATA_VALUE = Buffer.from(
  `0000 02 ${T1.replaceAll('-', '')} 076f7264657273 00000002 02 00000001 02 037231 00 00 00`.replaceAll(
    ' ',
    '',
  ),
  'hex',
);

const records: { key: Uint8Array; value: Uint8Array | null }[] = [
  {
    key: encodeConsumerGroupMetadataKey('g'),
    value: encodeConsumerGroupMetadataValue({ epoch: 3, metadataHash: 0n }),
  },
  {
    key: encodeConsumerGroupMetadataKey('g'),
    value: encodeConsumerGroupMetadataValue({ epoch: 4, metadataHash: -8608480567731124087n }),
  },
  { key: encodeConsumerGroupPartitionMetadataKey('g'), value: PARTITION_METADATA_VALUE },
  {
    key: encodeConsumerGroupMemberMetadataKey('g', 'm1'),
    value: encodeConsumerGroupMemberMetadataValue({
      instanceId: null,
      rackId: null,
      clientId: 'c1',
      clientHost: '/127.0.0.1',
      subscribedTopicNames: ['orders'],
      subscribedTopicRegex: null,
      rebalanceTimeoutMs: 300000,
      serverAssignor: 'uniform',
      classicMemberMetadata: null,
    }),
  },
  {
    key: encodeConsumerGroupMemberMetadataKey('g', 'm2'),
    value: encodeConsumerGroupMemberMetadataValue({
      instanceId: 'i2',
      rackId: 'r1',
      clientId: 'c2',
      clientHost: '/127.0.0.1',
      subscribedTopicNames: [],
      subscribedTopicRegex: 'ord.*',
      rebalanceTimeoutMs: -1,
      serverAssignor: null,
      classicMemberMetadata: {
        sessionTimeoutMs: 45000,
        supportedProtocols: [{ name: 'range', metadata: Uint8Array.from([1, 2]) }],
      },
    }),
  },
  {
    key: encodeConsumerGroupTargetAssignmentMetadataKey('g'),
    value: encodeConsumerGroupTargetAssignmentMetadataValue({ assignmentEpoch: 4 }),
  },
  {
    key: encodeConsumerGroupTargetAssignmentMemberKey('g', 'm1'),
    value: encodeConsumerGroupTargetAssignmentMemberValue({
      topicPartitions: [{ topicId: T1, partitions: [0, 1] }],
    }),
  },
  {
    key: encodeConsumerGroupCurrentMemberAssignmentKey('g', 'm1'),
    value: encodeConsumerGroupCurrentMemberAssignmentValue({
      memberEpoch: 4,
      previousMemberEpoch: 3,
      state: 1,
      assignedPartitions: [{ topicId: T1, partitions: [0] }],
      partitionsPendingRevocation: [{ topicId: T2, partitions: [2] }],
    }),
  },
  {
    key: encodeConsumerGroupRegularExpressionKey('g', 'ord.*'),
    value: encodeConsumerGroupRegularExpressionValue({
      topics: ['orders'],
      version: 17,
      timestamp: 1700000000000,
    }),
  },
  // ConsumerGroup.createGroupTombstoneRecords' order: 8, 7, 6, 5, 16, 4, 3.
  { key: encodeConsumerGroupCurrentMemberAssignmentKey('g', 'm1'), value: null },
  { key: encodeConsumerGroupTargetAssignmentMemberKey('g', 'm1'), value: null },
  { key: encodeConsumerGroupTargetAssignmentMetadataKey('g'), value: null },
  { key: encodeConsumerGroupMemberMetadataKey('g', 'm1'), value: null },
  { key: encodeConsumerGroupRegularExpressionKey('g', 'ord.*'), value: null },
  { key: encodeConsumerGroupPartitionMetadataKey('g'), value: null },
  { key: encodeConsumerGroupMetadataKey('g'), value: null },
];

const EXPECTED = [
  'key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":3}}',
  'key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":4,"metadataHash":-8608480567731124087}}',
  'key: {"type":"4","data":{"groupId":"g"}} payload: {"version":"0","data":{"topics":[{"topicId":"Dx4tPEtaaXiHlqW0w9Lh8A","topicName":"orders","numPartitions":2,"partitionMetadata":[{"partition":1,"racks":["r1"]}]}]}}',
  'key: {"type":"5","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"c1","clientHost":"/127.0.0.1","subscribedTopicNames":["orders"],"subscribedTopicRegex":null,"rebalanceTimeoutMs":300000,"serverAssignor":"uniform"}}',
  'key: {"type":"5","data":{"groupId":"g","memberId":"m2"}} payload: {"version":"0","data":{"instanceId":"i2","rackId":"r1","clientId":"c2","clientHost":"/127.0.0.1","subscribedTopicNames":[],"subscribedTopicRegex":"ord.*","rebalanceTimeoutMs":-1,"serverAssignor":null,"classicMemberMetadata":{"sessionTimeoutMs":45000,"supportedProtocols":[{"name":"range","metadata":"AQI="}]}}}',
  'key: {"type":"6","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":4}}',
  'key: {"type":"7","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"topicPartitions":[{"topicId":"Dx4tPEtaaXiHlqW0w9Lh8A","partitions":[0,1]}]}}',
  'key: {"type":"8","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"memberEpoch":4,"previousMemberEpoch":3,"state":1,"assignedPartitions":[{"topicId":"Dx4tPEtaaXiHlqW0w9Lh8A","partitions":[0]}],"partitionsPendingRevocation":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitions":[2]}]}}',
  'key: {"type":"16","data":{"groupId":"g","regularExpression":"ord.*"}} payload: {"version":"0","data":{"topics":["orders"],"version":17,"timestamp":1700000000000}}',
  'key: {"type":"8","data":{"groupId":"g","memberId":"m1"}} payload: <DELETE>',
  'key: {"type":"7","data":{"groupId":"g","memberId":"m1"}} payload: <DELETE>',
  'key: {"type":"6","data":{"groupId":"g"}} payload: <DELETE>',
  'key: {"type":"5","data":{"groupId":"g","memberId":"m1"}} payload: <DELETE>',
  'key: {"type":"16","data":{"groupId":"g","regularExpression":"ord.*"}} payload: <DELETE>',
  'key: {"type":"4","data":{"groupId":"g"}} payload: <DELETE>',
  'key: {"type":"3","data":{"groupId":"g"}} payload: <DELETE>',
];

describe('klog dump-log --offsets-decoder: the consumer group records of KIP-848', () => {
  it('prints types 3-8 and 16, values and tombstones, as Kafka 4.1 prints them', () => {
    const p = Partition.open(scratch, '__consumer_offsets', 7);
    for (const r of records) appendRecords(p, [r], 1_700_000_000_000);
    p.close();
    const run = klog(['dump-log', join(scratch, '__consumer_offsets-7'), '--offsets-decoder']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const decoded = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('| offset: '))
      .map((l) => l.replace(/^.* headerKeys: \[\] /, ''));
    expect(decoded).toEqual(EXPECTED);
  });
});
