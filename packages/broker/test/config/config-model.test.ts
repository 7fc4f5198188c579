import { DescribeCluster, DescribeTopicPartitions, decodeResponse, encodeRequest } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { checkTopicConfig, effectiveTopicConfig } from '../../src/config/topic-config.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

describe('topic configs: what is accepted, and how it is written back', () => {
  it("values are checked and normalised; Kafka's configs klog only stores are checked as Kafka checks them", () => {
    expect(checkTopicConfig('cleanup.policy', ' compact , delete,compact')).toEqual({
      ok: true,
      value: 'compact,delete',
    });
    expect(checkTopicConfig('retention.ms', '-1')).toEqual({ ok: true, value: '-1' });
    expect(checkTopicConfig('min.cleanable.dirty.ratio', '0.25')).toEqual({ ok: true, value: '0.25' });
    const refused = (name: string, value: string | null) => {
      const r = checkTopicConfig(name, value);
      return r.ok ? undefined : r.reason;
    };
    expect(refused('cleanup.policy', '')).toBe(
      'Invalid value  for configuration cleanup.policy: needs delete, compact, or both',
    );
    expect(refused('retention.ms', '-2')).toBe(
      'Invalid value -2 for configuration retention.ms: must be from -1 to 9007199254740991, got -2',
    );
    expect(refused('retention.ms', '1e3')).toMatch(/expected a whole number/);
    expect(refused('segment.bytes', '60')).toMatch(/must be from 61 to 2147483647/);
    expect(refused('max.message.bytes', String(64 * 1024 * 1024 + 1))).toMatch(/must be from 61 to 67108864/);
    expect(refused('min.cleanable.dirty.ratio', '1.5')).toMatch(/must be from 0 to 1/);
    expect(refused('message.timestamp.type', 'logappendtime')).toMatch(
      /must be one of CreateTime, LogAppendTime/,
    );
    // Kafka's configs klog only stores: Kafka's types and bounds, Long.MAX_VALUE exactly.
    expect(checkTopicConfig('compression.zstd.level', '9')).toEqual({ ok: true, value: '9' });
    expect(refused('compression.zstd.level', '23')).toMatch(/must be from -131072 to 22/);
    expect(checkTopicConfig('compression.gzip.level', '-1')).toEqual({ ok: true, value: '-1' });
    expect(refused('compression.gzip.level', '0')).toMatch(/must be -1 or from 1 to 9, got 0/);
    expect(checkTopicConfig('flush.ms', '9223372036854775807')).toEqual({
      ok: true,
      value: '9223372036854775807',
    });
    expect(refused('flush.ms', '9223372036854775808')).toMatch(/must be from 0 to 9223372036854775807/);
    expect(refused('max.compaction.lag.ms', '0')).toMatch(/must be from 1 to/);
    expect(checkTopicConfig('preallocate', 'TRUE')).toEqual({ ok: true, value: 'true' });
    expect(checkTopicConfig('leader.replication.throttled.replicas', '0:1, 1:1')).toEqual({
      ok: true,
      value: '0:1,1:1',
    });
    expect(refused('leader.replication.throttled.replicas', '0-1')).toMatch(/partition:broker/);
    expect(refused('remote.storage.enable', 'true')).toMatch(/^Tiered Storage functionality is disabled/);
    expect(refused('compression.type', 'GZIP')).toBe(
      'Invalid value GZIP for configuration compression.type: must be one of producer, uncompressed, gzip, snappy, lz4, zstd, got "GZIP"',
    );
    expect(checkTopicConfig('compression.type', ' zstd ')).toEqual({ ok: true, value: 'zstd' });
    expect(refused('no.such.thing', '1')).toBe('Unknown topic config name: no.such.thing');
    // Kafka 4 removed message.format.version (KIP-724): its LogConfig no longer defines it, so 4.1.0's
    // validateNames answers what klog answers (librdkafka's 0092_mixed_msgver sets it and expects an older Kafka).
    expect(refused('message.format.version', '0.10.0.0')).toBe(
      'Unknown topic config name: message.format.version',
    );
    expect(refused('retention.ms', null)).toBe('Null value not supported for topic config retention.ms');
  });

  it("a topic's own value over the broker's default over Kafka's", () => {
    const c = effectiveTopicConfig(
      new Map([['retention.ms', '1000']]),
      new Map([
        ['log.retention.ms', '2000'],
        ['log.retention.bytes', '5'],
      ]),
    );
    expect(c).toMatchObject({
      retentionMs: 1000,
      retentionBytes: 5,
      segmentMs: 604_800_000,
      delete: true,
      compact: false,
      logAppendTime: false,
    });
  });

  it('broker settings by Kafka names: hours and minutes in ms, ms winning; a bad or unknown one refused', () => {
    const c = resolveConfig({
      dataDir: '/x',
      logSettings: { 'log.retention.hours': '2', 'log.roll.hours': '1' },
    });
    expect(c.logSettings.get('log.retention.ms')).toBe('7200000');
    expect(c.logSettings.get('log.roll.ms')).toBe('3600000');
    expect(c.explicit.has('log.retention.ms')).toBe(true);
    const both = resolveConfig({
      dataDir: '/x',
      logSettings: { 'log.retention.ms': '5', 'log.retention.hours': '2', 'log.retention.minutes': '3' },
    });
    expect(both.logSettings.get('log.retention.ms')).toBe('5');
    expect(
      resolveConfig({
        dataDir: '/x',
        logSettings: { 'log.retention.hours': '2', 'log.retention.minutes': '3' },
      }).logSettings.get('log.retention.ms'),
    ).toBe('180000');
    expect(() => resolveConfig({ dataDir: '/x', logSettings: { 'log.cleanup.policy': 'squash' } })).toThrow(
      ConfigError,
    );
    expect(() => resolveConfig({ dataDir: '/x', logSettings: { 'log.flush.interval.ms': '1' } })).toThrow(
      'log.flush.interval.ms is not a broker log setting klog knows',
    );
    // message.max.bytes from its own option is also the broker default of max.message.bytes.
    expect(
      resolveConfig({ dataDir: '/x', messageMaxBytes: 2_097_152 }).logSettings.get('message.max.bytes'),
    ).toBe('2097152');
  });
});

describe('DescribeTopicPartitions and DescribeCluster', () => {
  let b: TestBroker;
  beforeAll(async () => {
    b = await startBroker({});
    const c = await RawClient.connect(b.port);
    const create = await kafkajs('createTopics', 0, {
      topics: [
        { topic: 'alpha', numPartitions: 3, replicationFactor: 1 },
        { topic: 'beta', numPartitions: 2, replicationFactor: 1 },
      ],
      timeout: 1000,
    });
    c.send(create.frame);
    await c.next();
    c.close();
  });
  afterAll(() => b.stop());

  it('pages by ResponsePartitionLimit with a cursor, as kafka-topics.sh --describe reads them', async () => {
    const c = await RawClient.connect(b.port);
    const ask = async (cursor: { topicName: string; partitionIndex: number } | null, correlation: number) => {
      c.send(
        encodeRequest(DescribeTopicPartitions, 0, correlation, 'test', {
          topics: [],
          responsePartitionLimit: 2,
          cursor,
        }),
      );
      return decodeResponse(DescribeTopicPartitions, 0, await c.next()).body;
    };
    const seen: string[] = [];
    let cursor: { topicName: string; partitionIndex: number } | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await ask(cursor, i + 1);
      for (const t of page.topics)
        for (const p of t.partitions)
          seen.push(`${t.name}-${p.partitionIndex} leader ${p.leaderId} isr ${p.isrNodes}`);
      expect(page.topics.reduce((n, t) => n + t.partitions.length, 0)).toBeLessThanOrEqual(2);
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual([
      'alpha-0 leader 0 isr 0',
      'alpha-1 leader 0 isr 0',
      'alpha-2 leader 0 isr 0',
      'beta-0 leader 0 isr 0',
      'beta-1 leader 0 isr 0',
    ]);
    c.send(
      encodeRequest(DescribeTopicPartitions, 0, 20, 'test', {
        topics: [{ name: 'nope' }],
        responsePartitionLimit: 10,
        cursor: null,
      }),
    );
    expect(decodeResponse(DescribeTopicPartitions, 0, await c.next()).body.topics).toMatchObject([
      { name: 'nope', errorCode: 3, partitions: [] },
    ]);
    c.close();
  });

  it('DescribeCluster: this broker at its advertised address, the controller, the cluster id', async () => {
    const c = await RawClient.connect(b.port);
    c.send(
      encodeRequest(DescribeCluster, 1, 3, 'test', {
        includeClusterAuthorizedOperations: false,
        endpointType: 1,
      }),
    );
    const body = decodeResponse(DescribeCluster, 1, await c.next()).body;
    c.close();
    expect(body).toMatchObject({
      errorCode: 0,
      controllerId: 0,
      brokers: [{ brokerId: 0, host: '127.0.0.1', port: b.port, rack: null }],
    });
    expect(body.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("DescribeCluster's authorized operations: the cluster's seven, as Kafka without an authorizer lists them", async () => {
    const c = await RawClient.connect(b.port);
    c.send(
      encodeRequest(DescribeCluster, 1, 4, 'test', {
        includeClusterAuthorizedOperations: true,
        endpointType: 1,
      }),
    );
    const body = decodeResponse(DescribeCluster, 1, await c.next()).body;
    c.close();
    const operations = [...Array(32).keys()].filter(
      (bit) => (body.clusterAuthorizedOperations & (1 << bit)) !== 0,
    );
    // Kafka's AclEntry.supportedOperations(CLUSTER): CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9,
    // DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12 — WRITE (4) is not a cluster operation
    // (librdkafka's 0081 checks the list).
    expect(operations).toEqual([5, 7, 8, 9, 10, 11, 12]);
  });
});
