// findings.mjs: which feature a failure is missing, the allow-list's format, the report card's totals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  classify,
  MAX_RETRIED_UNITS,
  parseAllowList,
  refusedApis,
  renderFindings,
  renderReport,
  shouldRetry,
  sourceFeatures,
  testSummary,
  updateAllowList,
} from '../findings.mjs';

const BROKER_LOG = [
  '2026-12-03T11:57:20.970Z INFO  klog serve: listening on 127.0.0.1:39247',
  '2026-12-03T11:57:21.300Z WARN  closing 127.0.0.1:51000: DeleteTopics (API key 20) is not served by klog',
  '2026-12-03T11:57:21.400Z WARN  closing 127.0.0.1:51002: FindCoordinator (API key 10) is not served by klog: consumer groups are not built yet',
  '2026-12-03T11:57:21.500Z WARN  closing 127.0.0.1:51004: DeleteTopics (API key 20) is not served by klog',
].join('\n');

test('refusedApis lists the APIs the broker refused, first first, once each', () => {
  assert.deepEqual(refusedApis(BROKER_LOG), ['DeleteTopics', 'FindCoordinator']);
  assert.deepEqual(refusedApis('Metadata v13 is not served by klog (it serves v0–v9)'), ['Metadata']);
  assert.deepEqual(
    refusedApis('InitProducerId for transactional id "t1" refused: klog does not build transactions'),
    ['InitProducerId (transactional)'],
  );
});

test("classify: what the failure line names, then the refused API, then a consumer's words, then the source", () => {
  const failed = (reason) => ({ state: 'failed', reason });
  assert.equal(classify({ state: 'passed', reason: '' }, BROKER_LOG), undefined);
  assert.equal(classify({ state: 'skipped', reason: 'Test requires SSL to be configured' }), 'SASL/SSL');
  assert.equal(
    classify({ state: 'skipped', reason: 'Test requires SSL_* env-vars set up by trivup' }),
    'SASL/SSL',
  );
  assert.equal(
    classify(failed('CreateTopics with temp queue: Expected NO_ERROR, not 40: Invalid config'), '', [
      'consumer groups',
    ]),
    'admin APIs',
  );
  assert.equal(
    classify(
      failed('test_kafka_topics: KAFKA_PATH and BROKERS must be set (test.c:4573:test_kafka_topics())'),
    ),
    'needs a Kafka installation',
  );
  assert.equal(
    classify(failed('Test assertion failed: "terr": CreatePartitions_result_topics returned NULL'), '', [
      'consumer groups',
    ]),
    'admin APIs',
  );
  assert.equal(
    classify(
      failed(
        'Test assertion failed: "!rd_kafka_topic_result_error(terr[0])": Topic t result error: Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered. (test.c:4682:test_admin_create_topic())',
      ),
    ),
    'needs several brokers',
  );
  assert.equal(
    classify(
      failed(
        'Test assertion failed: "!err": Expected success, not _UNSUPPORTED_FEATURE: ACLs Admin API (KIP-140) not supported by broker (0081-admin.c:1180:do_test_CreateAcls())',
      ),
      '',
      ['consumer groups'],
    ),
    'admin APIs',
  );
  // A refused API is more telling than a poll that timed out…
  assert.equal(
    classify(failed('consume: consumer_poll() timeout (0/-1 eof, 0/999 msgs)'), BROKER_LOG),
    'admin APIs',
  );
  // … which is a consumer's, when the broker refused nothing.
  assert.equal(classify(failed('timed out waiting for assignment'), '', ['admin APIs']), 'consumer groups');
  assert.equal(classify(failed('init_transactions() failed'), ''), 'transactions');
  assert.equal(
    classify(failed('Delivery failed'), 'InitProducerId for transactional id "x" refused'),
    'transactions',
  );
  // A plain timeout: what the test's source uses.
  assert.equal(
    classify(failed('Test 0040_io_event timed out'), '', ['consumer groups', 'admin APIs']),
    'consumer groups',
  );
  assert.equal(classify(failed('expected 10 messages, got 9'), '', []), 'other');
  // The cause, not the subtest's name, is what is read.
  const lag = {
    state: 'failed',
    reason:
      'do_test_consumer_lag:176: Test consumer lag without transactions: Test 0061_consumer_lag timed out',
    cause: 'Test 0061_consumer_lag timed out (test.c:1216:check_test_timeouts())',
  };
  assert.equal(classify(lag, '', ['consumer groups']), 'consumer groups');
  // A skip is what its line says, never what the source uses.
  assert.equal(
    classify({ state: 'skipped', reason: 'Filtered due to negative test flags' }, '', ['consumer groups']),
    'other',
  );
});

test('sourceFeatures names what a test source uses, consumer groups first', () => {
  assert.deepEqual(
    sourceFeatures('rk = test_create_consumer(topic, NULL, conf, NULL);\ntest_consumer_subscribe(rk, t);'),
    ['consumer groups'],
  );
  assert.deepEqual(sourceFeatures('rk_c = test_create_consumer(NULL, NULL, NULL, NULL); consume_start'), []);
  assert.deepEqual(
    sourceFeatures('test_conf_set(conf, "transactional.id", txnid); rd_kafka_DeleteTopics(rk, t, 1, o, q);'),
    ['transactions', 'admin APIs'],
  );
  assert.deepEqual(sourceFeatures('"transactional.id"; rd_kafka_subscribe(c, topics);'), [
    'consumer groups',
    'transactions',
  ]);
  // SASL/SSL is read from a skip's line, not the source: plaintext tests check sasl.mechanisms too.
  assert.deepEqual(sourceFeatures('if (!test_conf_match(NULL, "sasl.mechanisms", "GSSAPI"))'), []);
  assert.deepEqual(sourceFeatures('test_kafka_topics("--alter --topic %s", topic);'), [
    'needs a Kafka installation',
  ]);
});

const ALLOW = [
  '# header line',
  '# another',
  '0002_unkpart                                 # unknown partitions',
  '0001_multiobj # many clients',
  '',
].join('\n');

test('parseAllowList reads names and ignores comments and blank lines', () => {
  assert.deepEqual([...parseAllowList(ALLOW).names], ['0002_unkpart', '0001_multiobj']);
  assert.equal(parseAllowList('# only a comment\n\n').names.size, 0);
});

test('updateAllowList adds what passed with a dated comment, keeps the header and sorts the entries', () => {
  const passing = [
    { name: '0005_order', summary: 'Tests messages are produced in order.' },
    { name: '0003_msgmaxsize' },
    { name: '0001_multiobj' },
  ];
  const updated = updateAllowList(ALLOW, passing, '2026-12-03');
  assert.equal(
    updated,
    [
      '# header line',
      '# another',
      '0001_multiobj # many clients',
      '0002_unkpart                                 # unknown partitions',
      '0003_msgmaxsize                              # (passing since 2026-12-03)',
      '0005_order                                   # Tests messages are produced in order. (passing since 2026-12-03)',
      '',
    ].join('\n'),
  );
  assert.deepEqual([...parseAllowList(updated).names].sort(), [
    '0001_multiobj',
    '0002_unkpart',
    '0003_msgmaxsize',
    '0005_order',
  ]);
});

const RESULTS = [
  { name: '0001_multiobj', number: '0001', state: 'passed', reason: '', seconds: 1, allowed: true },
  {
    name: '0018_cgrp_term',
    number: '0018',
    state: 'failed',
    reason: 'no assignment | x',
    feature: 'consumer groups',
  },
  {
    name: '0097_ssl_verify',
    number: '0097',
    state: 'skipped',
    reason: 'SSL not configured',
    feature: 'SASL/SSL',
  },
  {
    name: '0030_offset_commit',
    number: '0030',
    state: 'failed',
    reason: 'commit failed',
    feature: 'consumer groups',
  },
];

test('testSummary takes the first line of the first doc comment, past the licence', () => {
  const source = [
    '/*',
    ' * librdkafka - Apache Kafka C library',
    ' */',
    '',
    '/**',
    ' * Tests multiple rd_kafka_t object creations and destructions.',
    ' * Issue #20',
    ' */',
  ].join('\n');
  assert.equal(testSummary(source), 'Tests multiple rd_kafka_t object creations and destructions.');
  assert.equal(testSummary('#include "test.h"\nint main_0099(void) {}'), undefined);
  assert.equal(testSummary(`/**\n * ${'x'.repeat(80)}\n */`), `${'x'.repeat(69)}…`);
});

test('renderReport counts and groups by feature; the table ends with the totals', () => {
  const { markdown, table } = renderReport(RESULTS, { mode: 'full', kafkaVersion: '4.1.0', seconds: 125 });
  assert.match(
    markdown,
    /## group\.protocol=classic\n\n4 tests ran: 1 passed, 2 failed, 1 skipped, in 2 min 5 s/,
  );
  assert.match(markdown, /- \*\*consumer groups\*\* \(2\): 0018, 0030/);
  assert.match(markdown, /- \*\*SASL\/SSL\*\* \(1\): 0097/);
  assert.match(markdown, /\| 0018_cgrp_term \| failed \|.*\| no assignment \\\| x \|/);
  assert.deepEqual(table.split('\n').slice(-2), [
    'classic: 4 tests ran: 1 passed, 2 failed, 1 skipped, in 2 min 5 s',
    'in all: 2 min 5 s',
  ]);
});

test('renderReport gives each group protocol its section, count and minutes, classic first', () => {
  const consumer = [
    {
      name: '0030_offset_commit',
      number: '0030',
      protocol: 'consumer',
      state: 'failed',
      reason: 'timed out',
      feature: 'consumer group protocol (KIP-848)',
    },
    {
      name: '0012_produce_consume',
      number: '0012',
      protocol: 'consumer',
      state: 'passed',
      seconds: 2,
      allowed: true,
    },
  ];
  const results = [...consumer, ...RESULTS.map((r) => ({ ...r, protocol: 'classic' }))];
  const run = {
    mode: 'ci',
    librdkafka: '2.15.1',
    origin: '@confluentinc/kafka-javascript@1.10.1 from npm',
    kafkaVersion: '4.1.0',
    seconds: 400,
    protocolSeconds: { classic: 300, consumer: 95 },
  };
  const { markdown, table, summary } = renderReport(results, run);
  assert.match(markdown, /^# librdkafka 2\.15\.1 suite against klog serve \(ci mode\)/);
  assert.match(markdown, /From @confluentinc\/kafka-javascript@1\.10\.1 from npm; in 6 min 40 s in all/);
  const classicAt = markdown.indexOf('## group.protocol=classic');
  const consumerAt = markdown.indexOf('## group.protocol=consumer (TEST_CONSUMER_GROUP_PROTOCOL=consumer');
  assert.ok(classicAt > 0 && consumerAt > classicAt, 'classic first, then consumer');
  assert.match(markdown.slice(consumerAt), /2 tests ran: 1 passed, 1 failed, 0 skipped, in 1 min 35 s/);
  assert.match(markdown.slice(consumerAt), /- \*\*consumer group protocol \(KIP-848\)\*\* \(1\): 0030/);
  assert.deepEqual(summary, [
    'classic: 4 tests ran: 1 passed, 2 failed, 1 skipped, in 5 min 0 s',
    'consumer: 2 tests ran: 1 passed, 1 failed, 0 skipped, in 1 min 35 s',
  ]);
  assert.match(table, /^group\.protocol=consumer$/m);
});

test('shouldRetry: an allow-listed test that did not pass, while reruns are left; nothing else', () => {
  const allowed = new Set(['0086_purge_remote', '0045_subscribe_update']);
  const parsed = (state) => new Map([['0086_purge_remote', { state, reason: 'x' }]]);
  assert.equal(shouldRetry(['0086_purge_remote'], parsed('failed'), allowed, 0), true);
  assert.equal(shouldRetry(['0086_purge_remote'], parsed('skipped'), allowed, 0), true);
  assert.equal(shouldRetry(['0086_purge_remote'], parsed('passed'), allowed, 0), false);
  // Not on the allow-list: its failure is expected, not retried.
  assert.equal(shouldRetry(['0086_purge_remote'], parsed('failed'), new Set(), 0), false);
  // A failure past the last rerun stands.
  assert.equal(shouldRetry(['0086_purge_remote'], parsed('failed'), allowed, MAX_RETRIED_UNITS), false);
  // One failing test of a number with several reruns the number.
  const two = new Map([
    ['0045_subscribe_update', { state: 'passed' }],
    ['0045_subscribe_update_topic_remove', { state: 'failed' }],
  ]);
  const both = new Set([...allowed, '0045_subscribe_update_topic_remove']);
  assert.equal(shouldRetry([...two.keys()], two, both, 1), true);
});

test('renderReport says what passed only when run again, and what its first run failed with', () => {
  const results = [
    { name: '0001_multiobj', number: '0001', state: 'passed', seconds: 3, allowed: true },
    {
      name: '0086_purge_remote',
      number: '0086',
      state: 'passed',
      seconds: 9,
      allowed: true,
      retriedAfter: 'failed: Expected message #1 to fail with Local: Purged in flight',
    },
  ];
  const { markdown, table } = renderReport(results, { mode: 'ci', kafkaVersion: '4.1.0', seconds: 20 });
  assert.match(
    markdown,
    /2 tests ran: 2 passed, 0 failed, 0 skipped \(1 passed only when run again\), in 20 s/,
  );
  assert.match(
    markdown,
    /\| 0086_purge_remote \| passed \|.*\| passed when run again; the first run failed: Expected message #1/,
  );
  assert.match(table, /^0086_purge_remote +passed +passed when run again; the first run failed/m);
  assert.match(table, /^0001_multiobj +passed +$/m);
});

test('renderFindings lists each feature with its failing tests and their first lines', () => {
  const md = renderFindings(RESULTS, { seconds: 59 }, '2026-12-03');
  assert.match(md, /on 2026-12-03, in 59 s/);
  assert.match(md, /## group\.protocol=classic\n\n4 tests ran: 1 passed, 2 failed, 1 skipped, in 59 s\./);
  assert.match(
    md,
    /### consumer groups \(2\)\n\n\| test \| result \| first line \|\n\| --- \| --- \| --- \|\n\| 0018_cgrp_term \| failed \|/,
  );
  assert.doesNotMatch(md, /admin APIs/);
  assert.doesNotMatch(md, /0001_multiobj/);
});

test('renderFindings: a section per group protocol, each with its own failures', () => {
  const results = [
    ...RESULTS.map((r) => ({ ...r, protocol: 'classic' })),
    {
      name: '0018_cgrp_term',
      number: '0018',
      protocol: 'consumer',
      state: 'failed',
      reason: 'timed out',
      feature: 'consumer group protocol (KIP-848)',
    },
  ];
  const md = renderFindings(
    results,
    { seconds: 70, suite: 'npm', librdkafka: '2.15.1', protocolSeconds: { classic: 50, consumer: 20 } },
    '2026-12-06',
  );
  assert.match(md, /^# librdkafka 2\.15\.1’s suite against klog: findings/);
  assert.match(md, /`pnpm test:librdkafka --full --update-allow-list`/);
  const consumer = md.slice(md.indexOf('## group.protocol=consumer'));
  assert.match(consumer, /1 tests ran: 0 passed, 1 failed, 0 skipped, in 20 s\./);
  assert.match(
    consumer,
    /### consumer group protocol \(KIP-848\) \(1\)\n\n[^#]*\| 0018_cgrp_term \| failed \| timed out \|/,
  );
  assert.doesNotMatch(consumer, /0030_offset_commit/);
  assert.match(
    renderFindings(RESULTS, { seconds: 5, suite: 'debian' }),
    /--suite debian --full --update-allow-list/,
  );
});

test('classify: under the consumer protocol a consumer group failure is that protocol’s; nothing else moves', () => {
  const timedOut = { state: 'failed', reason: 'Timed out waiting for assignment' };
  assert.equal(classify(timedOut, '', [], 'classic'), 'consumer groups');
  assert.equal(classify(timedOut, '', [], 'consumer'), 'consumer group protocol (KIP-848)');
  const admin = { state: 'failed', reason: 'DeleteRecords failed' };
  assert.equal(classify(admin, '', [], 'consumer'), 'admin APIs');
  assert.equal(classify({ state: 'passed' }, '', [], 'consumer'), undefined);
  // The suite's own skips under this protocol are not klog's missing feature.
  for (const reason of [
    'FIXME: fix the test with subscribe/unsubscribe PR',
    'Test meaningful only with classic librdkafka assignors',
  ])
    assert.equal(classify({ state: 'skipped', reason }, '', ['consumer groups'], 'consumer'), 'other');
});
