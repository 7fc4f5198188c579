import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, RawClient, rawFrame } from '../../support/raw-client.js';

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b.stop());

/** What klog advertises, API key → [min, max] (see src/api/advertised.ts for why each range). */
const ADVERTISED = {
  0: [0, 8], // Produce: v0 advertised as Kafka 4 does (KAFKA-18659); v0–v2 refused
  1: [4, 18], // Fetch: Kafka 4.1.0's, by topic id from 13
  2: [0, 10], // ListOffsets
  3: [0, 13], // Metadata: Kafka 4.1.0's, topic ids from 10
  8: [1, 9], // OffsetCommit: Sarama 1.22 sends 1 (Kafka 4 removed it), librdkafka 1 or 2, platformatic 8, KIP-848 9
  9: [1, 9], // OffsetFetch: librdkafka needs 1, platformatic 8, KIP-848 9
  10: [0, 4], // FindCoordinator: librdkafka needs 0, platformatic 4
  11: [0, 6], // JoinGroup: librdkafka needs 0 (Kafka 4 removed it), platformatic 6
  12: [0, 4], // Heartbeat
  13: [0, 4], // LeaveGroup
  14: [0, 4], // SyncGroup
  15: [0, 5], // DescribeGroups
  16: [0, 5], // ListGroups
  18: [0, 3], // ApiVersions
  19: [0, 7], // CreateTopics
  20: [0, 6], // DeleteTopics
  21: [0, 2], // DeleteRecords
  22: [0, 4], // InitProducerId
  32: [0, 4], // DescribeConfigs: librdkafka 2.0.2 sends 0–1
  33: [0, 2], // AlterConfigs
  35: [1, 4], // DescribeLogDirs: from 1, as Kafka 4.1.0
  37: [0, 3], // CreatePartitions
  44: [0, 1], // IncrementalAlterConfigs
  60: [0, 1], // DescribeCluster
  61: [0, 0], // DescribeProducers
  75: [0, 0], // DescribeTopicPartitions
  42: [0, 2], // DeleteGroups
  47: [0, 0], // OffsetDelete
  68: [0, 1], // ConsumerGroupHeartbeat (KIP-848)
  69: [0, 1], // ConsumerGroupDescribe (KIP-848)
};

describe('ApiVersions', () => {
  it('v0–v2 (KafkaJS): every API klog serves, in the versions it serves', async () => {
    const c = await RawClient.connect(b.port);
    for (const version of [0, 1, 2]) {
      const req = await kafkajs('apiVersions', version, {}, 40 + version);
      c.send(req.frame);
      const { correlation, data } = await req.decode(await c.next());
      expect(correlation).toBe(40 + version);
      expect(data.errorCode).toBe(0);
      const got = Object.fromEntries(
        (data.apiVersions as { apiKey: number; minVersion: number; maxVersion: number }[]).map((a) => [
          a.apiKey,
          [a.minVersion, a.maxVersion],
        ]),
      );
      expect(got).toEqual(ADVERTISED);
    }
    c.close();
  });

  it('a version too new: UNSUPPORTED_VERSION in a v0 body and v0 header, with the ranges, and the connection stays open', async () => {
    const c = await RawClient.connect(b.port);
    // ApiVersions v4 (flexible): header v2 with its tag buffer, then a body klog does not read.
    c.send(rawFrame(18, 4, 77, new Uint8Array([0, 3, 0x61, 0x62, 3, 0x31, 0x30, 0]), true));
    const reply = Buffer.from(await c.next());
    expect(reply.readInt32BE(0)).toBe(77);
    expect(reply.readInt16BE(4)).toBe(35); // v0 body right after a v0 header
    const count = reply.readInt32BE(6);
    const ranges: Record<number, number[]> = {};
    for (let i = 0; i < count; i++) {
      const at = 10 + i * 6;
      ranges[reply.readInt16BE(at)] = [reply.readInt16BE(at + 2), reply.readInt16BE(at + 4)];
    }
    expect(ranges).toEqual(ADVERTISED);
    expect(reply.length).toBe(10 + count * 6);
    const again = await kafkajs('apiVersions', 2, {}, 78);
    c.send(again.frame);
    expect((await again.decode(await c.next())).correlation).toBe(78);
    c.close();
  });

  it('v3 with a client software name Kafka would refuse: INVALID_REQUEST (KIP-511)', async () => {
    const c = await RawClient.connect(b.port);
    const name = Buffer.from('@bad/name');
    const body = Buffer.concat([
      Buffer.from([name.length + 1]),
      name,
      Buffer.from([4]),
      Buffer.from('1.0'),
      Buffer.from([0]),
    ]);
    c.send(rawFrame(18, 3, 5, body, true));
    const reply = Buffer.from(await c.next());
    expect(reply.readInt16BE(4)).toBe(42);
    c.close();
  });
});
