// klog's ApiVersions answer beside Kafka 4.1.0's: every difference printed with its reason, none silent.
// Kafka's side is fixtures/kafka-4.1.0-api-versions.json (the facts of Kafka 4.1.0's message definitions:
// each broker-listener API's validVersions less an unstable latest version, as ApiVersionsResponse lists
// them by default). A difference with no reason below fails the test, and so does a reason whose difference
// is gone: the table is always the whole story. The printed table is the golden file
// fixtures/api-versions-vs-kafka-4.1.0.txt (KLOG_BLESS=1 rewrites it, on purpose).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

interface KafkaApi {
  key: number;
  name: string;
  min: number;
  max: number;
  note?: string;
}

const FIXTURES = join(import.meta.dirname, 'fixtures');
const KAFKA: { source: string; apis: KafkaApi[] } = JSON.parse(
  readFileSync(join(FIXTURES, 'kafka-4.1.0-api-versions.json'), 'utf8'),
);
const GOLDEN = join(FIXTURES, 'api-versions-vs-kafka-4.1.0.txt');

// Reasons shared by a family of APIs.
const NO_TXN =
  'klog has no transactions (the course stops at the idempotent producer); InitProducerId with a transactional id is answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED';
const NO_AUTH = 'klog has no authentication: one PLAINTEXT listener on loopback';
const NO_AUTHORIZER =
  'klog has no authorizer; clients take the missing API as Kafka without one (kafka-acls.sh: SECURITY_DISABLED)';
const ONE_BROKER = 'one broker, one replica per partition: nothing to move, elect or unregister';
const NO_KRAFT = 'klog is not a KRaft quorum: no controller, voters or finalized features to change';
const NO_SHARE = 'share groups (KIP-932, queues) are not in klog: no share-group coordinator or share state';
const SARAMA =
  "Sarama 1.22 (Debian's golang-github-shopify-sarama-dev, the broker's Sarama test) sends v0 when its Version is left unset (Kafka 4 removed it, KIP-896)";

/**
 * Why klog's answer differs from Kafka 4.1.0's, one line each: `<Api>` for an API klog does not list,
 * `<Api> max` for versions it does not serve yet, `<Api> min` for versions below Kafka 4.1.0's that it still
 * serves (Kafka 4.0 removed them, KIP-896) and who needs them.
 */
const REASONS: Record<string, string> = {
  'Produce max':
    'v9–v13 not served yet: v9 is the first flexible version, v12 adds partitions to a transaction implicitly (KIP-890), v13 names topics by id (KIP-516)',
  'ListOffsets min':
    "v0: Sarama 1.22's GetOffset sends v0 with its Version left unset (the broker's Sarama test); Kafka 4 removed it (KIP-896)",
  'OffsetCommit min':
    "v1: Sarama 1.22's consumer group commits with v1 (the broker's Sarama test); Kafka 4 removed it (KIP-896)",
  'FindCoordinator max':
    'v5–v6 not served yet: v5 adds TRANSACTION_ABORTABLE (KIP-890), v6 share-group coordinators (KIP-932)',
  'JoinGroup max':
    'v7–v9 not served yet: v7 echoes the protocol type (KIP-559), v8 carries a reason (KIP-800), v9 SkipAssignment (KIP-814)',
  'LeaveGroup max': 'v5 not served yet: a reason per leaving member (KIP-800)',
  'SyncGroup max': 'v5 not served yet: protocol type and name in the request and response (KIP-559)',
  'DescribeGroups max': 'v6 not served yet: a per-group error message (KIP-1043)',
  SaslHandshake: NO_AUTH,
  'ApiVersions max':
    'v4 not served yet: it only lets SupportedFeatures carry a minimum of 0 (KAFKA-17011); klog lists no features',
  'CreateTopics min': `v0–v1: ${SARAMA}`,
  'DeleteTopics min': `v0: ${SARAMA}`,
  'InitProducerId max':
    'v5 not served yet: transactions version 2 (KIP-890), which only transactional producers use',
  OffsetForLeaderEpoch:
    'a one-broker klog never changes a partition’s leader epoch, so clients never need to check for truncation',
  AddPartitionsToTxn: NO_TXN,
  AddOffsetsToTxn: NO_TXN,
  EndTxn: NO_TXN,
  WriteTxnMarkers: NO_TXN,
  TxnOffsetCommit: NO_TXN,
  DescribeAcls: NO_AUTHORIZER,
  CreateAcls: NO_AUTHORIZER,
  DeleteAcls: NO_AUTHORIZER,
  'DescribeConfigs min': `v0: ${SARAMA}`,
  AlterReplicaLogDirs: 'klog keeps one log directory: no other directory to move a replica to',
  SaslAuthenticate: NO_AUTH,
  CreateDelegationToken: NO_AUTH,
  RenewDelegationToken: NO_AUTH,
  ExpireDelegationToken: NO_AUTH,
  DescribeDelegationToken: NO_AUTH,
  ElectLeaders: ONE_BROKER,
  AlterPartitionReassignments: ONE_BROKER,
  ListPartitionReassignments: ONE_BROKER,
  DescribeClientQuotas: 'klog enforces no client quotas',
  AlterClientQuotas: 'klog enforces no client quotas',
  DescribeUserScramCredentials: NO_AUTH,
  AlterUserScramCredentials: NO_AUTH,
  DescribeQuorum: NO_KRAFT,
  UpdateFeatures: NO_KRAFT,
  'DescribeCluster max':
    'v2 not served yet: IncludeFencedBrokers and a fenced flag per broker (KIP-1073); one broker is never fenced',
  UnregisterBroker: ONE_BROKER,
  DescribeTransactions: NO_TXN,
  ListTransactions: NO_TXN,
  ListConfigResources:
    'not served yet: it lists client-metrics and group config resources, neither of which klog has',
  ShareGroupHeartbeat: NO_SHARE,
  ShareGroupDescribe: NO_SHARE,
  ShareFetch: NO_SHARE,
  ShareAcknowledge: NO_SHARE,
  AddRaftVoter: NO_KRAFT,
  RemoveRaftVoter: NO_KRAFT,
  InitializeShareGroupState: NO_SHARE,
  ReadShareGroupState: NO_SHARE,
  WriteShareGroupState: NO_SHARE,
  DeleteShareGroupState: NO_SHARE,
  ReadShareGroupStateSummary: NO_SHARE,
  DescribeShareGroupOffsets: NO_SHARE,
  AlterShareGroupOffsets: NO_SHARE,
  DeleteShareGroupOffsets: NO_SHARE,
};

interface Difference {
  /** The key into REASONS. */
  readonly id: string;
  readonly key: number;
  readonly name: string;
  readonly klog: string;
  readonly kafka: string;
  readonly what: string;
}

const range = (min: number, max: number) => (min === max ? `${min}` : `${min}–${max}`);

/** Every way klog's ranges (API key → [min, max]) differ from Kafka 4.1.0's. */
export function differences(klog: Map<number, [number, number]>, kafka: readonly KafkaApi[]): Difference[] {
  const out: Difference[] = [];
  const names = new Map(kafka.map((a) => [a.key, a.name]));
  for (const a of kafka) {
    const ours = klog.get(a.key);
    const k = range(a.min, a.max);
    if (ours === undefined) {
      out.push({ id: a.name, key: a.key, name: a.name, klog: '—', kafka: k, what: 'not listed by klog' });
      continue;
    }
    const [min, max] = ours;
    const base = { key: a.key, name: a.name, klog: range(min, max), kafka: k };
    if (min < a.min)
      out.push({ ...base, id: `${a.name} min`, what: `klog still serves v${range(min, a.min - 1)}` });
    if (min > a.min)
      out.push({ ...base, id: `${a.name} min`, what: `klog refuses v${range(a.min, min - 1)}` });
    if (max < a.max) out.push({ ...base, id: `${a.name} max`, what: `v${range(max + 1, a.max)} not served` });
    if (max > a.max) out.push({ ...base, id: `${a.name} max`, what: `klog lists v${range(a.max + 1, max)}` });
  }
  for (const [key, [min, max]] of klog) {
    if (names.has(key)) continue;
    const id = `API key ${key}`;
    out.push({ id, key, name: id, klog: range(min, max), kafka: '—', what: 'not listed by Kafka 4.1.0' });
  }
  return out.sort((a, b) => a.key - b.key || a.id.localeCompare(b.id));
}

/** The printed table: one line a difference, its reason last. */
export function renderTable(diffs: readonly Difference[], reasons: Record<string, string>): string {
  const rows = diffs.map((d) => [
    String(d.key),
    d.name,
    d.klog,
    d.kafka,
    d.what,
    reasons[d.id] ?? '(no reason)',
  ]);
  const head = ['key', 'API', 'klog', 'Kafka 4.1.0', 'difference', 'why'];
  const widths = head.slice(0, 5).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 5 ? c.padEnd(widths[i] ?? 0) : c))
      .join('  ')
      .trimEnd();
  return [
    `klog's ApiVersions beside Kafka 4.1.0's (${KAFKA.source.split(',')[0]}): ${diffs.length} differences`,
    '',
    line(head),
    ...rows.map(line),
    '',
  ].join('\n');
}

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
});
afterAll(() => b.stop());

/** klog's answer on the wire: ApiVersions v2, API key → [min, max]. */
async function klogAnswer(): Promise<Map<number, [number, number]>> {
  const c = await RawClient.connect(b.port);
  const req = await kafkajs('apiVersions', 2, {}, 7);
  c.send(req.frame);
  const { data } = await req.decode(await c.next());
  c.close();
  expect(data.errorCode).toBe(0);
  const list = data.apiVersions as { apiKey: number; minVersion: number; maxVersion: number }[];
  return new Map(list.map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
}

describe('ApiVersions beside Kafka 4.1.0', () => {
  it('every difference has its reason, every reason its difference; the table is the golden file', async () => {
    const diffs = differences(await klogAnswer(), KAFKA.apis);
    const table = renderTable(diffs, REASONS);
    console.log(table);
    const unexplained = diffs.filter((d) => REASONS[d.id] === undefined).map((d) => `${d.id}: ${d.what}`);
    const stale = Object.keys(REASONS).filter((id) => !diffs.some((d) => d.id === id));
    expect(unexplained, 'differences from Kafka 4.1.0 with no reason in REASONS').toEqual([]);
    expect(stale, 'reasons for differences that are gone: remove them').toEqual([]);
    if (process.env.KLOG_BLESS === '1') writeFileSync(GOLDEN, table);
    expect(table).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('differences() sees each kind of difference, and an API only klog lists', () => {
    const kafka: KafkaApi[] = [
      { key: 0, name: 'Produce', min: 0, max: 13 },
      { key: 2, name: 'ListOffsets', min: 1, max: 10 },
      { key: 17, name: 'SaslHandshake', min: 0, max: 1 },
      { key: 18, name: 'ApiVersions', min: 0, max: 4 },
    ];
    const klog = new Map<number, [number, number]>([
      [0, [0, 8]],
      [2, [0, 5]],
      [18, [1, 5]],
      [99, [0, 0]],
    ]);
    expect(differences(klog, kafka).map((d) => `${d.id}: ${d.what}`)).toEqual([
      'Produce max: v9–13 not served',
      'ListOffsets max: v6–10 not served',
      'ListOffsets min: klog still serves v0',
      'SaslHandshake: not listed by klog',
      'ApiVersions max: klog lists v5',
      'ApiVersions min: klog refuses v0',
      'API key 99: not listed by Kafka 4.1.0',
    ]);
  });
});
