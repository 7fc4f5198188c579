// The parsers of catalogue.mjs on test.c's shape and on what test-runner 2.0.2 prints (lines copied from
// real runs against klog serve, colours included).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  brokerVersion,
  foreignAddresses,
  makesConsumer,
  notApplicable,
  parseRunnerOutput,
  parseTestList,
  scenarioOf,
} from '../catalogue.mjs';

const TEST_C = `
#define _TEST(NAME, FLAGS, ...) { .name = #NAME }
struct test tests[] = {
    /* Special MAIN test to hold over-all timings, etc. */
    {.name = "<MAIN>", .flags = TEST_F_LOCAL},
    _TEST(0000_unittests,
          TEST_F_LOCAL,
          /* heavy, (with a comma) */
          _THRES(.ucpu = 100.0, .scpu = 20.0, .rss = 900.0)),
    _TEST(0001_multiobj, 0),
    _TEST(0022_consume_batch_local, TEST_F_LOCAL),
    _TEST(0028_long_topicnames,
          TEST_F_KNOWN_ISSUE,
          TEST_BRKVER(0, 9, 0, 0),
          .scenario = "noautocreate"),
    _TEST(0101_fetch_from_follower, 0, TEST_BRKVER(2, 4, 0, 0)),
    _TEST(0103_transactions, 0, TEST_BRKVER(0, 11, 0, 0), .scenario = "default,ak23"),
    _TEST(0200_ak23_only, 0, .scenario = "ak23"),
    _TEST(0999_old_only, 0, TEST_BRKVER(0, 9, 0, 0), TEST_BRKVER(0, 10, 0, 0)),
    _TEST(8000_idle, TEST_F_MANUAL),
    {NULL}};
`;

test('parseTestList reads every _TEST of tests[] with flags, versions and scenario', () => {
  const tests = parseTestList(TEST_C);
  assert.deepEqual(
    tests.map((t) => t.name),
    [
      '0000_unittests',
      '0001_multiobj',
      '0022_consume_batch_local',
      '0028_long_topicnames',
      '0101_fetch_from_follower',
      '0103_transactions',
      '0200_ak23_only',
      '0999_old_only',
      '8000_idle',
    ],
  );
  const long = tests.find((t) => t.name === '0028_long_topicnames');
  assert.deepEqual(long.flags, ['TEST_F_KNOWN_ISSUE']);
  assert.equal(long.minVersion, brokerVersion('0.9.0.0'));
  assert.equal(long.scenario, 'noautocreate');
  assert.equal(tests.find((t) => t.name === '0999_old_only').maxVersion, brokerVersion('0.10.0.0'));
  assert.equal(tests[0].number, '0000');
});

test('notApplicable keeps broker tests of the scenarios the runner sets up (default, noautocreate) for a 4.1.0 broker', () => {
  const tests = parseTestList(TEST_C);
  const why = Object.fromEntries(tests.map((t) => [t.name, notApplicable(t) ?? 'runs']));
  assert.deepEqual(why, {
    '0000_unittests': 'local (no broker)',
    '0001_multiobj': 'runs',
    '0022_consume_batch_local': 'local (no broker)',
    '0028_long_topicnames': 'runs',
    '0101_fetch_from_follower': 'runs',
    '0103_transactions': 'runs',
    '0200_ak23_only': 'scenario ak23',
    '0999_old_only': 'broker version',
    '8000_idle': 'manual',
  });
  const scenario = Object.fromEntries(tests.map((t) => [t.name, scenarioOf(t) ?? 'none']));
  assert.equal(scenario['0001_multiobj'], 'default');
  assert.equal(scenario['0028_long_topicnames'], 'noautocreate');
  // "default,ak23": run in the default scenario.
  assert.equal(scenario['0103_transactions'], 'default');
  assert.equal(scenario['0200_ak23_only'], 'none');
});

test('brokerVersion orders versions as TEST_BRKVER does', () => {
  assert.ok(brokerVersion('4.1.0') > brokerVersion('3.9.9.9'));
  assert.ok(brokerVersion('0.10.2.0') > brokerVersion('0.9.0.1'));
  assert.equal(brokerVersion('2.4.0'), brokerVersion('2.4.0.0'));
});

const E = '\x1b';
const FAILED_RUN = [
  `${E}[0m${E}[31m### Test "0045_subscribe_update (do_test_regex:224)" failed at 0045-subscribe_update.c:64:await_assignment() at Thu Dec  3 11:57:52 2026: ###`,
  'timed out waiting for assignment',
  'TEST 20261203115753 (bare, scenario default) SUMMARY',
  '#==================================================================#',
  `|${E}[32m <MAIN>                                   |     PASSED |  32.104s ${E}[0m|`,
  `|${E}[31m 0045_subscribe_update                    |     FAILED |  32.104s ${E}[0m|${E}[31m do_test_regex:224: await_assignment():64: timed out waiting for assignment${E}[0m`,
  `|${E}[36m 0045_subscribe_update_mock               |    SKIPPED |   0.000s ${E}[0m|${E}[36m Filtered due to negative test flags${E}[0m`,
  `|${E}[36m 0097_ssl_verify                          |    SKIPPED |   0.002s ${E}[0m|${E}[36m Test requires SSL to be configured${E}[0m`,
  '#==================================================================#',
  `${E}[0m${E}[31m### Test "<MAIN>" failed at test.c:1596:test_wait_exit() at Thu Dec  3 11:57:54 2026: ###`,
  '4 thread(s) still active in librdkafka',
  "test-runner: test.c:6716: test_fail0: Assertion `0' failed.",
].join('\n');

test('parseRunnerOutput: states from the summary, the first failure banner as the reason', () => {
  const exit = { code: null, signal: 'SIGABRT', timedOut: false, timeoutS: 900 };
  const { results, notes } = parseRunnerOutput(
    FAILED_RUN,
    ['0045_subscribe_update', '0097_ssl_verify'],
    exit,
  );
  assert.deepEqual(results.get('0045_subscribe_update'), {
    state: 'failed',
    reason:
      'do_test_regex:224: timed out waiting for assignment (0045-subscribe_update.c:64:await_assignment())',
    cause: 'timed out waiting for assignment (0045-subscribe_update.c:64:await_assignment())',
    seconds: 32.104,
  });
  assert.deepEqual(results.get('0097_ssl_verify'), {
    state: 'skipped',
    reason: 'Test requires SSL to be configured',
    cause: 'Test requires SSL to be configured',
    seconds: 0.002,
  });
  assert.deepEqual(notes, ['<MAIN>: 4 thread(s) still active in librdkafka']);
  assert.equal(results.has('0045_subscribe_update_mock'), false);
});

test('parseRunnerOutput: no summary (crash or outer timeout) fails what did not pass, saying how', () => {
  const output = [
    `${E}[36m[0001_multiobj / 0.182s] ${E}[32m================= Test 0001_multiobj PASSED =================${E}[0m`,
    '### Test "0002_unkpart" failed at 0002-unkpart.c:80:do_test() at Thu Dec  3 2026: ###',
    'Produce failed: Local: Unknown partition',
  ].join('\n');
  const names = ['0001_multiobj', '0002_unkpart', '0003_msgmaxsize'];
  const killed = parseRunnerOutput(output, names, {
    code: null,
    signal: 'SIGKILL',
    timedOut: true,
    timeoutS: 900,
  });
  assert.equal(killed.results.get('0001_multiobj').state, 'passed');
  assert.equal(
    killed.results.get('0002_unkpart').reason,
    'Produce failed: Local: Unknown partition (0002-unkpart.c:80:do_test())',
  );
  assert.deepEqual(killed.results.get('0003_msgmaxsize'), {
    state: 'failed',
    reason: "killed after 900 s (the runner's outer timeout)",
    cause: "killed after 900 s (the runner's outer timeout)",
    seconds: 0,
  });
  const crashed = parseRunnerOutput('', ['0003_msgmaxsize'], {
    code: null,
    signal: 'SIGSEGV',
    timedOut: false,
  });
  assert.equal(crashed.results.get('0003_msgmaxsize').reason, 'test-runner died of SIGSEGV');
});

test('parseRunnerOutput: a table printed twice (a timeout) ends with the last verdict', () => {
  const twice = [
    '| 0012_produce_consume | RUNNING | 30.000s |',
    '| 0012_produce_consume | FAILED | 31.000s | Test 0012_produce_consume timed out (timeout set to 30 seconds)',
  ].join('\n');
  const { results } = parseRunnerOutput(twice, ['0012_produce_consume'], { code: 1 });
  assert.deepEqual(results.get('0012_produce_consume'), {
    state: 'failed',
    reason: 'Test 0012_produce_consume timed out (timeout set to 30 seconds)',
    cause: 'Test 0012_produce_consume timed out (timeout set to 30 seconds)',
    seconds: 31,
  });
});

test('parseRunnerOutput: a subtest with parentheses; its name is kept out of the cause', () => {
  const output = [
    '### Test "0055_producer_latency (test_producer_latency:185: transactions (35ms) (linger.ms=1))" failed at 0055-producer_latency.c:209:test_producer_latency() at Thu Dec  3 12:07:40 2026: ###',
    'rd_kafka_init_transactions(rk, 10 * 1000) failed: Local: Required feature not supported by broker',
    '### Test "0061_consumer_lag (do_test_consumer_lag:176: Test consumer lag without transactions)" failed at test.c:1216:check_test_timeouts() at Thu Dec  3 12:09:04 2026: ###',
    'Test 0061_consumer_lag (do_test_consumer_lag:176: Test consumer lag without transactions) timed out (timeout set to 40 seconds)',
  ].join('\n');
  const { results } = parseRunnerOutput(output, ['0055_producer_latency', '0061_consumer_lag'], { code: 1 });
  const latency = results.get('0055_producer_latency');
  assert.equal(
    latency.reason,
    'test_producer_latency:185: transactions (35ms) (linger.ms=1): rd_kafka_init_transactions(rk, 10 * 1000) failed: ' +
      'Local: Required feature not supported by broker (0055-producer_latency.c:209:test_producer_latency())',
  );
  assert.equal(
    results.get('0061_consumer_lag').cause,
    'Test 0061_consumer_lag timed out (timeout set to 40 seconds) (test.c:1216:check_test_timeouts())',
  );
});

test('parseRunnerOutput: tests left not started (DNS) after a timeout failed, naming the one it stopped at', () => {
  const output = [
    '| 0033_regex_subscribe                     |     FAILED |  18.168s | ',
    '| 0033_regex_subscribe_local               |        DNS |   0.000s |',
  ].join('\n');
  const names = ['0033_regex_subscribe', '0033_regex_subscribe_local'];
  const { results } = parseRunnerOutput(output, names, { code: 1 });
  assert.deepEqual(results.get('0033_regex_subscribe_local'), {
    state: 'failed',
    reason: 'did not start: test-runner stopped after 0033_regex_subscribe failed',
    cause: 'did not start: test-runner stopped after 0033_regex_subscribe failed',
    seconds: 0,
  });
});

test('foreignAddresses reports what librdkafka reached for other than loopback', () => {
  const log = [
    '%3|1796298752.123|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:0/bootstrap]: Connect to ipv4#127.0.0.1:0 failed',
    'Connect to ipv6#[::1]:9092 failed',
    'Connect to ipv4#10.0.0.7:9092 failed: Network is unreachable',
  ].join('\n');
  assert.deepEqual(foreignAddresses(log), ['10.0.0.7']);
  assert.deepEqual(foreignAddresses('Connect to ipv4#127.0.0.1:39247 ok'), []);
  assert.deepEqual(foreignAddresses('0039_event_log: Connect to ipv4#0.0.0.0:65534 failed'), []);
});

test('makesConsumer: the tests TEST_CONSUMER_GROUP_PROTOCOL changes are the ones that make a consumer', () => {
  // C tests: a consumer handle, directly or through test.c's helpers.
  assert.equal(makesConsumer('rk = test_create_consumer(topic, NULL, conf, NULL);'), true);
  assert.equal(makesConsumer('c = test_create_handle(RD_KAFKA_CONSUMER, conf);'), true);
  assert.equal(makesConsumer('if (!test_consumer_group_protocol_classic()) { TEST_SKIP("…"); }'), true);
  // C++ tests.
  assert.equal(
    makesConsumer('RdKafka::KafkaConsumer *c = RdKafka::KafkaConsumer::create(conf, errstr);'),
    true,
  );
  assert.equal(makesConsumer('RdKafka::Consumer *c = RdKafka::Consumer::create(conf, errstr);'), true);
  // A producer-only test runs the same bytes under both protocols.
  assert.equal(
    makesConsumer('rk = test_create_producer(); test_produce_msgs(rk, rkt, 0, 0, 0, 10, NULL, 0);'),
    false,
  );
});
