// The report card, the allow-list and the findings: what a run of librdkafka's suite says about klog,
// grouped by the feature a failing test needs. Pure: text in, text out.

/** Features a test can be missing, in the order the findings list them. */
export const FEATURES = [
  'consumer groups',
  'consumer group protocol (KIP-848)',
  'admin APIs',
  'transactions',
  'SASL/SSL',
  'needs a Kafka installation',
  'needs several brokers',
  'other',
];

// Kafka's API names (as klog's broker names them when it refuses one) → the feature that serves them.
const API_FEATURE = {
  OffsetCommit: 'consumer groups',
  OffsetFetch: 'consumer groups',
  FindCoordinator: 'consumer groups',
  JoinGroup: 'consumer groups',
  Heartbeat: 'consumer groups',
  LeaveGroup: 'consumer groups',
  SyncGroup: 'consumer groups',
  DescribeGroups: 'consumer groups',
  ListGroups: 'consumer groups',
  DeleteGroups: 'consumer groups',
  OffsetDelete: 'consumer groups',
  ConsumerGroupHeartbeat: 'consumer groups',
  ConsumerGroupDescribe: 'consumer groups',
  DeleteTopics: 'admin APIs',
  DeleteRecords: 'admin APIs',
  CreatePartitions: 'admin APIs',
  DescribeConfigs: 'admin APIs',
  AlterConfigs: 'admin APIs',
  IncrementalAlterConfigs: 'admin APIs',
  DescribeAcls: 'admin APIs',
  CreateAcls: 'admin APIs',
  DeleteAcls: 'admin APIs',
  DescribeLogDirs: 'admin APIs',
  DescribeCluster: 'admin APIs',
  DescribeProducers: 'admin APIs',
  DescribeTopicPartitions: 'admin APIs',
  ElectLeaders: 'admin APIs',
  AlterPartitionReassignments: 'admin APIs',
  ListPartitionReassignments: 'admin APIs',
  DescribeUserScramCredentials: 'admin APIs',
  AlterUserScramCredentials: 'admin APIs',
  AddPartitionsToTxn: 'transactions',
  AddOffsetsToTxn: 'transactions',
  EndTxn: 'transactions',
  TxnOffsetCommit: 'transactions',
  DescribeTransactions: 'transactions',
  ListTransactions: 'transactions',
  SaslHandshake: 'SASL/SSL',
  SaslAuthenticate: 'SASL/SSL',
};

/** The APIs klog's broker log says it refused, in the order it refused them. */
export function refusedApis(brokerLog) {
  const apis = [];
  for (const m of brokerLog.matchAll(/(\w+) (?:\(API key \d+\)|v\d+) is not served by klog/g)) {
    if (!apis.includes(m[1])) apis.push(m[1]);
  }
  if (
    /InitProducerId for transactional id/.test(brokerLog) &&
    !apis.includes('InitProducerId (transactional)')
  ) {
    apis.push('InitProducerId (transactional)');
  }
  return apis;
}

// The first failure line's words (its file:line:function() included) → the feature it names.
const REASON_FEATURE = [
  [
    /KAFKA_PATH|ZK_ADDRESS|test_kafka_topics|test_kafka_cmd|BROKERS must be set/,
    'needs a Kafka installation',
  ],
  // A replication factor of 3 (librdkafka's own CI runs a three-broker cluster): Kafka 4.1's one broker
  // answers INVALID_REPLICATION_FACTOR with these words too.
  [/replication factor of \d+ cannot be reached|only 1 broker\(s\) are registered/, 'needs several brokers'],
  [/\b(SSL|SASL)(\b|_)|ssl\.|sasl\.|OIDC|oauthbearer|security\.protocol/i, 'SASL/SSL'],
  [/transaction|\btxn\b|transactional/i, 'transactions'],
  [
    /Topic Admin API|ACLs Admin API|CreateAcls|DescribeAcls|DeleteAcls|test_admin_|_result_|CreateTopics|CreatePartitions|DeleteTopics|DescribeConfigs|AlterConfigs|DeleteRecords|create_partitions|delete_topic/,
    'admin APIs',
  ],
  [/group|coordinator|assign|rebalance|commit|subscri|consumer_poll|consumer_close/i, 'consumer groups'],
];

// What a test's source uses (tests/<number>-*.c, .cpp) → the features it needs, for a failure whose line
// names none (a timeout). Consumer groups first: librdkafka waits for a coordinator in silence until a
// test times out, while a transaction or an admin call fails at once with a line that names it.
// Group-level admin calls (ListGroups, DeleteGroups) are the coordinator's.
const SOURCE_FEATURE = [
  [
    /rd_kafka_(subscribe|commit|committed|list_groups|consumer_poll|DeleteGroups|ListConsumerGroups|DescribeConsumerGroups|DeleteConsumerGroupOffsets|AlterConsumerGroupOffsets|ListConsumerGroupOffsets)\b|test_consumer_subscribe|test_create_consumer\(\s*(?!NULL)|->subscribe\(|commitSync|commitAsync|"group\.id"|offset\.store\.method/,
    'consumer groups',
  ],
  [/init_transactions|begin_transaction|transactional\.id|InitTransactions/, 'transactions'],
  [
    /rd_kafka_(CreatePartitions|DeleteTopics|DescribeConfigs|AlterConfigs|IncrementalAlterConfigs|DeleteRecords|CreateAcls|DescribeAcls|DeleteAcls)\b|test_(admin_create_partitions|delete_topic|DeleteTopics|CreatePartitions|AlterConfigs|DescribeConfigs|DeleteRecords)\b/,
    'admin APIs',
  ],
  [/test_kafka_topics\(|test_kafka_cmd\(|KAFKA_PATH/, 'needs a Kafka installation'],
];

/** The features a test's source uses, in the order a failure without a telling line is filed by. */
export function sourceFeatures(source) {
  return SOURCE_FEATURE.filter(([re]) => re.test(source)).map(([, feature]) => feature);
}

/**
 * The feature a test that did not pass is missing: what its first failure line names (a Kafka installation,
 * SASL/SSL, a transaction, an admin call), else the first API klog's broker refused while it ran, else a
 * consumer's words in the line (a poll that timed out, an assignment), else what its source uses
 * (`features`, from sourceFeatures). Under the consumer group protocol (`protocol` 'consumer') a consumer
 * group's failure is that protocol's: its consumers wait for ConsumerGroupHeartbeat, which librdkafka does
 * not send to a broker that does not list it, so the broker's log says nothing.
 */
export function classify(result, brokerLog = '', features = [], protocol = 'classic') {
  const feature = classifyFeature(result, brokerLog, features);
  return protocol === 'consumer' && feature === 'consumer groups'
    ? 'consumer group protocol (KIP-848)'
    : feature;
}

function classifyFeature(result, brokerLog, features) {
  if (result.state === 'passed') return undefined;
  const reason = result.cause ?? result.reason ?? '';
  const named = REASON_FEATURE.filter(([re]) => re.test(reason)).map(([, feature]) => feature);
  if (named.length > 0 && named[0] !== 'consumer groups') return named[0];
  for (const api of refusedApis(brokerLog)) {
    if (api === 'InitProducerId (transactional)') return 'transactions';
    if (API_FEATURE[api]) return API_FEATURE[api];
  }
  // A skip says why in its line (SSL not configured, a known issue librdkafka skips by default). One that
  // names a group ("FIXME: fix the test with subscribe/unsubscribe PR", "meaningful only with classic
  // librdkafka assignors": 0084 and 0132 under group.protocol=consumer) is the suite's own choice, not a
  // feature klog lacks.
  if (result.state === 'skipped') return named.find((f) => f !== 'consumer groups') ?? 'other';
  return named[0] ?? features[0] ?? 'other';
}

/** An allow-list (allow-list.<protocol>.txt): one test name a line, `#` starts a comment. */
export function parseAllowList(text) {
  const names = new Set();
  for (const line of text.split('\n')) {
    const name = line.replace(/#.*$/, '').trim();
    if (name !== '') names.add(name);
  }
  return { names };
}

/** The first line of a test source's first doc comment (`/** Tests that … *\/`), for the allow-list. */
export function testSummary(source) {
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  const first = doc
    .split('\n')
    .map((l) => l.replace(/^\s*\*?\s?/, '').trim())
    .find((l) => l !== '' && !l.startsWith('@'));
  if (!first) return undefined;
  return first.length > 70 ? `${first.slice(0, 69).trimEnd()}…` : first;
}

/**
 * The allow-list with `passing` added, each with a comment (its summary, when it was added), entries kept
 * in test order.
 */
export function updateAllowList(text, passing, date = new Date().toISOString().slice(0, 10)) {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const header = [];
  let i = 0;
  for (; i < lines.length && !/^\d{4}_/.test(lines[i]); i++) header.push(lines[i]);
  const entries = lines.slice(i).filter((l) => l.trim() !== '');
  const have = parseAllowList(text).names;
  for (const r of passing) {
    const what = r.summary ? `${r.summary} ` : '';
    if (!have.has(r.name)) entries.push(`${r.name.padEnd(44)} # ${what}(passing since ${date})`);
  }
  entries.sort((a, b) => a.localeCompare(b));
  return `${[...header, ...entries].join('\n')}\n`;
}

/**
 * How many allow-listed tests that fail may be run a second time in one run, as Apache Kafka's own build
 * retries a failed test once (`maxTestRetries=1`) up to a number of failures (`maxTestRetryFailures`):
 * past that, failures are a broken broker, not timing, and a rerun would only double the suite's time.
 */
export const MAX_RETRIED_UNITS = 3;

/**
 * Whether a test number's run is run once more: one of its tests is on the allow-list and did not pass,
 * and the run has retries left. What passes only the second time is reported as such (`retriedAfter`).
 */
export function shouldRetry(tests, parsed, allowed, retriesUsed) {
  if (retriesUsed >= MAX_RETRIED_UNITS) return false;
  return tests.some((name) => allowed.has(name) && parsed.get(name)?.state !== 'passed');
}

function totals(results) {
  const count = (state) => results.filter((r) => r.state === state).length;
  return { ran: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

function minutes(seconds) {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** What a test that passed the second time failed with the first. */
const retriedNote = (r) =>
  r.retriedAfter === undefined ? undefined : `passed when run again; the first run ${r.retriedAfter}`;

const cell = (text) => (text ?? '').replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 200);

function groups(results) {
  const byFeature = new Map(FEATURES.map((f) => [f, []]));
  for (const r of results) if (r.state !== 'passed') byFeature.get(r.feature ?? 'other').push(r);
  return byFeature;
}

/** A result's consumer group protocol: reports written before there were two are all classic. */
const protocolOf = (r) => r.protocol ?? 'classic';

/** The protocols a run's results hold, classic first, each with its results and its seconds. */
function byProtocol(results, run) {
  const names = [...new Set(results.map(protocolOf))].sort((a, b) =>
    a === b ? 0 : a === 'classic' ? -1 : b === 'classic' ? 1 : a.localeCompare(b),
  );
  return names.map((name) => ({
    name,
    results: results.filter((r) => protocolOf(r) === name),
    seconds: run.protocolSeconds?.[name] ?? (names.length === 1 ? run.seconds : undefined),
  }));
}

/** One protocol's count line: "N tests ran: …" and, when known, its minutes. */
function countLine(results, seconds) {
  const t = totals(results);
  const retried = results.filter((r) => r.retriedAfter !== undefined && r.state === 'passed').length;
  return (
    `${t.ran} tests ran: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped` +
    (retried > 0 ? ` (${retried} passed only when run again)` : '') +
    (seconds === undefined ? '' : `, in ${minutes(seconds)}`)
  );
}

/** The heading of one protocol's section, as the suite is told it. */
export const protocolTitle = (name) =>
  `group.protocol=${name}${name === 'consumer' ? ' (TEST_CONSUMER_GROUP_PROTOCOL=consumer, Kafka 4’s consumer group protocol)' : ''}`;

/** The report card: a Markdown file and the table printed at the end of a run, a section per protocol. */
export function renderReport(results, run) {
  const sections = byProtocol(results, run);
  const md = [
    `# librdkafka ${run.librdkafka ?? '2.0.2'} suite against klog serve (${run.mode} mode)`,
    '',
    `${run.origin ? `From ${run.origin}; ` : ''}in ${minutes(run.seconds)} in all ` +
      `(TEST_KAFKA_VERSION=${run.kafkaVersion}, one test number at a time` +
      `${run.includeLocal ? ', broker-less tests of the same numbers included' : ''}).`,
    '',
  ];
  const printed = [];
  const width = Math.max(...results.map((r) => r.name.length), 4);
  for (const { name, results: rs, seconds } of sections) {
    const line = countLine(rs, seconds);
    md.push(
      `## ${protocolTitle(name)}`,
      '',
      `${line}.`,
      '',
      '| test | result | s | allow-list | missing feature | first line of its failure / skip |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rs.map(
        (r) =>
          `| ${r.name}${r.local ? ' (local)' : ''} | ${r.state} | ${r.seconds?.toFixed(1) ?? ''} | ` +
          `${r.allowed ? 'yes' : ''} | ${r.feature ?? ''} | ${cell(retriedNote(r) ?? r.reason)} |`,
      ),
      '',
      '### Not passing, by missing feature',
      '',
    );
    for (const [feature, failing] of groups(rs)) {
      if (failing.length === 0) continue;
      const numbers = [...new Set(failing.map((r) => r.number))];
      md.push(`- **${feature}** (${failing.length}): ${numbers.join(', ')}`);
    }
    md.push('');
    printed.push(
      `group.protocol=${name}`,
      `${'test'.padEnd(width)}  result   first line`,
      ...rs.map(
        (r) =>
          `${r.name.padEnd(width)}  ${r.state.padEnd(7)}  ${cell(r.state === 'passed' ? retriedNote(r) : r.reason).slice(0, 110)}`,
      ),
      '',
    );
  }
  const summary = sections.map(({ name, results: rs, seconds }) => `${name}: ${countLine(rs, seconds)}`);
  printed.push(...summary, `in all: ${minutes(run.seconds)}`);
  return { markdown: `${md.join('\n').trimEnd()}\n`, table: printed.join('\n'), summary };
}

/**
 * FINDINGS.md: the failures of a full run, a section per consumer group protocol, grouped by the feature
 * they need, with their first lines.
 */
export function renderFindings(results, run, date = new Date().toISOString().slice(0, 10)) {
  const md = [
    `# librdkafka ${run.librdkafka ?? '2.0.2'}’s suite against klog: findings`,
    '',
    `Written by \`pnpm test:librdkafka${run.suite && run.suite !== 'npm' ? ` --suite ${run.suite}` : ''} ` +
      `--full --update-allow-list\` on ${date}${run.origin ? ` (librdkafka from ${run.origin})` : ''}, ` +
      `in ${minutes(run.seconds)}. ` +
      'Each test that did not pass is filed under the feature it is missing: what its first failure line ' +
      'names, else the first API klog refused while it ran, else what the test’s source uses (a consumer ' +
      'that waits for a coordinator in silence until the test times out is a consumer group’s; under ' +
      '`group.protocol=consumer`, Kafka 4’s consumer group protocol’s). ' +
      'Rerun to refresh; edit nothing here by hand.',
    '',
  ];
  for (const { name, results: rs, seconds } of byProtocol(results, run)) {
    md.push(`## ${protocolTitle(name)}`, '', `${countLine(rs, seconds)}.`, '');
    for (const [feature, failing] of groups(rs)) {
      if (failing.length === 0) continue;
      md.push(
        `### ${feature} (${failing.length})`,
        '',
        '| test | result | first line |',
        '| --- | --- | --- |',
      );
      for (const r of failing) md.push(`| ${r.name} | ${r.state} | ${cell(r.reason)} |`);
      md.push('');
    }
  }
  return `${md.join('\n').trimEnd()}\n`;
}
