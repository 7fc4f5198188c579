import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withKafkaAbouts } from '../generator/about-from-kafka.js';
import { compareWithKafka, withCommonStructs } from '../generator/compare-kafka.js';
import { parseDefinition } from '../generator/definition.js';
import { PACKAGE_DIR, readDefinitions } from '../generator/main.js';

const KAFKA = join(PACKAGE_DIR, 'test/fixtures/kafka-messages');

/**
 * Where the definitions (Kafka 4.1.0) and the fixtures (Kafka trunk of 2024-10, see the fixtures' README)
 * part: what Kafka 4.0 and 4.1 changed since, and nothing else.
 */
const KAFKA_4_CHANGES: Record<string, string[]> = {
  'definitions/api-versions.def': [],
  'definitions/delete-groups.def': [],
  // KIP-1043 (4.0): DescribeGroups v6, an error message per group.
  'definitions/describe-groups.def': [
    'DescribeGroupsRequest: kafka=0-6, Kafka validVersions 0-5',
    'DescribeGroupsResponse: kafka=0-6, Kafka validVersions 0-5',
    'DescribeGroupsResponse.Groups.ErrorMessage: here, not in Kafka',
  ],
  'definitions/find-coordinator.def': [],
  'definitions/heartbeat.def': [],
  // KIP-896 (4.0.0) removed JoinGroup v0–v1; KAFKA-19444 (4.0.1, 4.1) put them back: the same as here.
  'definitions/join-group.def': [],
  'definitions/leave-group.def': [],
  'definitions/list-groups.def': [],
  // KIP-896 (4.0): OffsetCommit v0–v1 removed; KIP-848 (4.1): v10 names topics by id.
  'definitions/offset-commit.def': [
    'OffsetCommitRequest: kafka=2-10, Kafka validVersions 0-9',
    'OffsetCommitRequest.Topics.Name: versions 0-9, Kafka 0+',
    'OffsetCommitRequest.Topics.TopicId: here, not in Kafka',
    'OffsetCommitResponse: kafka=2-10, Kafka validVersions 0-9',
    'OffsetCommitResponse.Topics.Name: versions 0-9, Kafka 0+',
    'OffsetCommitResponse.Topics.TopicId: here, not in Kafka',
  ],
  'definitions/offset-delete.def': [],
  // KIP-896 (4.0): OffsetFetch v0 removed; KIP-848 (4.1): v10 names topics by id.
  'definitions/offset-fetch.def': [
    'OffsetFetchRequest: kafka=1-10, Kafka validVersions 0-9',
    'OffsetFetchRequest.Groups.Topics.Name: versions 8-9, Kafka 8+',
    'OffsetFetchRequest.Groups.Topics.TopicId: here, not in Kafka',
    'OffsetFetchResponse: kafka=1-10, Kafka validVersions 0-9',
    'OffsetFetchResponse.Groups.Topics.Name: versions 8-9, Kafka 8+',
    'OffsetFetchResponse.Groups.Topics.TopicId: here, not in Kafka',
  ],
  'definitions/sync-group.def': [],
  // KIP-896 (4.0): CreateTopics v0–v1, Fetch v0–v3, ListOffsets v0 removed; KIP-1166 (4.1): Fetch v18.
  'definitions/create-topics.def': [
    'CreateTopicsRequest: kafka=2-7, Kafka validVersions 0-7',
    'CreateTopicsResponse: kafka=2-7, Kafka validVersions 0-7',
  ],
  'definitions/fetch.def': [
    'FetchRequest: kafka=4-18, Kafka validVersions 0-17',
    'FetchResponse: kafka=4-18, Kafka validVersions 0-17',
  ],
  // KIP-939 (4.1): InitProducerId v6, two-phase commit.
  'definitions/init-producer-id.def': [
    'InitProducerIdRequest: kafka=0-6, Kafka validVersions 0-5',
    'InitProducerIdRequest.Enable2Pc: here, not in Kafka',
    'InitProducerIdRequest.KeepPreparedTxn: here, not in Kafka',
    'InitProducerIdResponse: kafka=0-6, Kafka validVersions 0-5',
    'InitProducerIdResponse.OngoingTxnProducerId: here, not in Kafka',
    'InitProducerIdResponse.OngoingTxnProducerEpoch: here, not in Kafka',
  ],
  'definitions/list-offsets.def': [
    'ListOffsetsRequest: kafka=1-10, Kafka validVersions 0-10',
    'ListOffsetsResponse: kafka=1-10, Kafka validVersions 0-10',
  ],
  // KIP-1102 (4.0): Metadata v13, a top-level error code.
  'definitions/metadata.def': [
    'MetadataRequest: kafka=0-13, Kafka validVersions 0-12',
    'MetadataResponse: kafka=0-13, Kafka validVersions 0-12',
    'MetadataResponse.ErrorCode: here, not in Kafka',
  ],
  // KIP-896 (4.0): Produce v0–v2 removed; KIP-516 (4.1): Produce v13 names topics by id.
  'definitions/produce.def': [
    'ProduceRequest: kafka=3-13, Kafka validVersions 0-11',
    'ProduceRequest.TopicData.Name: versions 0-12, Kafka 0+',
    'ProduceRequest.TopicData.Name: ignorable true, Kafka undefined',
    'ProduceRequest.TopicData.TopicId: here, not in Kafka',
    'ProduceResponse: kafka=3-13, Kafka validVersions 0-11',
    'ProduceResponse.Responses.Name: versions 0-12, Kafka 0+',
    'ProduceResponse.Responses.Name: ignorable true, Kafka undefined',
    'ProduceResponse.Responses.TopicId: here, not in Kafka',
  ],
};

describe("the definitions against Kafka's message JSON (generator/compare-kafka.ts)", () => {
  const fixtures = readdirSync(KAFKA).filter((f) => f.endsWith('.json'));
  const apis = readDefinitions().map((s) => ({ source: s, api: parseDefinition(s.path, s.text) }));
  // A definition is compared once its Kafka JSON is among the fixtures (every one of them is).
  const compared = apis.filter(({ api }) => fixtures.includes(`${api.request.name}.json`));

  it('has the JSON of the APIs defined, request and response, and no other', () => {
    expect(compared.map(({ source }) => source.path)).toEqual(
      expect.arrayContaining(Object.keys(KAFKA_4_CHANGES)),
    );
    const wanted = compared.flatMap(({ api }) => [`${api.request.name}.json`, `${api.response.name}.json`]);
    expect(fixtures.sort()).toEqual(wanted.sort());
  });

  for (const { source, api } of compared) {
    it(`${source.path}: every field as Kafka has it, but for what Kafka 4 changed`, () => {
      expect(compareWithKafka(api, [KAFKA])).toEqual(KAFKA_4_CHANGES[source.path] ?? []);
    });
  }

  it('a field that differs is named, with both sides', () => {
    const source = readDefinitions().find((s) => s.path === 'definitions/api-versions.def')!;
    const changed = source.text.replace(/^( {2}ErrorCode\s+int16\s+)0\+/m, '$11+');
    expect(changed).not.toBe(source.text);
    expect(compareWithKafka(parseDefinition(source.path, changed), [KAFKA])).toEqual([
      'ApiVersionsResponse.ErrorCode: versions 1+, Kafka 0+',
    ]);
  });

  it("a field typed by one of the commonStructs gets that struct's fields, however deep", () => {
    const leaf = { name: 'Id', type: 'int32', versions: '0+' };
    const fields = withCommonStructs({
      apiKey: 99,
      name: 'ToyResponse',
      validVersions: '0',
      flexibleVersions: '0+',
      fields: [
        { name: 'Outer', type: 'Wrap', versions: '0+' },
        { name: 'Own', type: '[]Part', versions: '0+', fields: [leaf] },
      ],
      commonStructs: [
        { name: 'Wrap', fields: [{ name: 'Parts', type: '[]Part', versions: '0+' }] },
        { name: 'Part', fields: [{ name: 'Other', type: 'string', versions: '0+' }] },
      ],
    });
    expect(fields[0]!.fields![0]!.fields).toEqual([{ name: 'Other', type: 'string', versions: '0+' }]);
    // A struct written out in place keeps its own fields.
    expect(fields[1]!.fields).toEqual([leaf]);
  });

  it('generator/about-from-kafka.ts puts back every about text the definitions keep, and nothing twice', () => {
    for (const { source } of compared) {
      const bare = source.text
        .split('\n')
        .filter((l) => !l.trimStart().startsWith('"'))
        .join('\n');
      expect(bare).not.toBe(source.text);
      expect(withKafkaAbouts(source.path, bare, [KAFKA]), source.path).toBe(source.text);
      expect(withKafkaAbouts(source.path, source.text, [KAFKA]), source.path).toBe(source.text);
    }
  });
});
