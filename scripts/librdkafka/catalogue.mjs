// What librdkafka's suite holds and what one run of its test-runner said: pure parsing, no I/O.
// The suite's own list is `struct test tests[]` in tests/test.c (each `_TEST(name, flags, minver, maxver,
// .scenario = …)`); test-runner prints a summary table (`| name | STATE | 1.234s | reason`) and, for each
// failure, `### Test "name (subtest)" failed at file:line:func() at date: ###` followed by the reason.

/** Broker version the suite is told (TEST_KAFKA_VERSION): klog answers as Kafka 4.1.0 does. */
export const KAFKA_VERSION = '4.1.0';

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is stripped
const ANSI = /\x1b\[[0-9;]*[A-Za-z]|\x1b\([A-Z]/g;

export function stripAnsi(text) {
  return text.replace(ANSI, '');
}

/** TEST_BRKVER(a,b,c,d) as test.h packs it, so versions compare as numbers. */
export function brokerVersion(text) {
  const parts = text.split('.').map(Number);
  while (parts.length < 4) parts.push(0);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

function versionArg(arg) {
  const m = /^TEST_BRKVER\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(arg);
  if (m) return brokerVersion(m.slice(1, 5).join('.'));
  if (arg === 'TEST_BRKVER_TOPIC_ADMINAPI') return brokerVersion('0.10.2.0');
  if (arg === '0') return 0;
  return undefined;
}

function splitArgs(body) {
  const args = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') args.push(current.trim());
  return args;
}

/**
 * The tests of test.c's `tests[]`, in the suite's order: name, number (what TESTS= matches), flags,
 * minimum and maximum broker version, scenario.
 */
export function parseTestList(testC) {
  const start = testC.indexOf('struct test tests[] = {');
  if (start < 0) throw new Error('test.c: no `struct test tests[]`');
  const text = testC.slice(start).replace(/\/\*[\s\S]*?\*\//g, '');
  const tests = [];
  let at = 0;
  for (;;) {
    at = text.indexOf('_TEST(', at);
    if (at < 0) break;
    let depth = 0;
    let end = at + '_TEST'.length;
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++;
      if (text[end] === ')' && --depth === 0) break;
    }
    const args = splitArgs(text.slice(at + '_TEST('.length, end));
    at = end;
    const [name, flagsText, ...rest] = args;
    const flags = flagsText === '0' ? [] : flagsText.split('|').map((f) => f.trim());
    const versions = [];
    let scenario = 'default';
    for (const arg of rest) {
      const scen = /^\.scenario\s*=\s*"([^"]*)"$/.exec(arg);
      if (scen) scenario = scen[1];
      else if (!arg.startsWith('_THRES') && !arg.startsWith('.')) versions.push(versionArg(arg));
    }
    tests.push({
      name,
      number: name.slice(0, 4),
      flags,
      minVersion: versions[0] ?? 0,
      maxVersion: versions[1] ?? 0,
      scenario,
    });
  }
  if (tests.length === 0) throw new Error('test.c: no _TEST entries in tests[]');
  return tests;
}

/**
 * The suite's scenarios (tests/scenarios/*.json) this runner sets a broker up for: `default`
 * (auto-create on) and `noautocreate` (`auto.create.topics.enable=false`: klog serve
 * --no-auto-create-topics). `ak23` wants a Kafka 2.3 broker and is left out.
 */
export const SCENARIOS = ['default', 'noautocreate'];

/** The scenario a test runs in here: the first of its own that the runner sets up, or undefined. */
export function scenarioOf(test) {
  const own = test.scenario.split(',').map((s) => s.trim());
  return SCENARIOS.find((s) => own.includes(s));
}

/**
 * Why a test does not apply to one klog broker in a scenario the runner sets up, or undefined when it
 * does: broker-less tests (TEST_F_LOCAL, the suite's `-L`), manual ones, other scenarios, other versions.
 */
export function notApplicable(test, version = brokerVersion(KAFKA_VERSION)) {
  if (test.flags.includes('TEST_F_LOCAL')) return 'local (no broker)';
  if (test.flags.includes('TEST_F_MANUAL')) return 'manual';
  if (scenarioOf(test) === undefined) return `scenario ${test.scenario}`;
  if (test.minVersion > version || (test.maxVersion && test.maxVersion < version)) return 'broker version';
  return undefined;
}

const STATES = { PASSED: 'passed', FAILED: 'failed', SKIPPED: 'skipped', RUNNING: 'failed' };

/**
 * One test-runner invocation's outcome per test name, from its summary table, its failure banners and
 * its exit. `expected` are the names it was asked to run (one test number's applicable tests).
 * Returns { results: Map(name → { state, reason, cause, seconds }), notes: string[] }: `reason` is the
 * first failure line as shown (with its subtest), `cause` the same without the subtest's name (a subtest
 * called "without transactions" says nothing about what failed).
 */
export function parseRunnerOutput(rawOutput, expected, exit) {
  const output = stripAnsi(rawOutput);
  const lines = output.split('\n');
  const results = new Map();
  const notes = [];
  const firstFailure = new Map();
  for (let i = 0; i < lines.length; i++) {
    // Subtest names hold parentheses of their own: "… (test_producer_latency:185: transactions (35ms))".
    const m = /^### Test "(\S+?)(?: \((.*)\))?" failed at (\S+) at .*: ###$/.exec(lines[i]);
    if (!m) continue;
    const [, name, subtest, where] = m;
    const line = (lines[i + 1] ?? '').trim();
    if (name === '<MAIN>') {
      notes.push(`<MAIN>: ${line}`);
      continue;
    }
    if (!firstFailure.has(name)) {
      const cause = `${subtest ? line.replace(` (${subtest})`, '') : line} (${where})`;
      firstFailure.set(name, { reason: `${subtest ? `${subtest}: ` : ''}${line} (${where})`, cause });
    }
  }
  let stoppedAt;
  for (const line of lines) {
    const m = /^\|\s*(\S+)\s+\|\s*(PASSED|FAILED|SKIPPED|RUNNING|DNS)\s*\|\s*([\d.]+)s\s*\|\s?(.*)$/.exec(
      line,
    );
    if (!m || !expected.includes(m[1])) continue;
    const [, name, state, seconds, rest] = m;
    if (state === 'FAILED' || state === 'RUNNING') stoppedAt = name;
    if (state === 'DNS') {
      // Did not start: test-runner stops after a test times out (it prints the table and exits).
      const reason = `did not start: test-runner stopped after ${stoppedAt ?? 'an earlier test'} failed`;
      results.set(name, { state: 'failed', reason, cause: reason, seconds: 0 });
      continue;
    }
    const said = rest.replace(/<-- known issue.*$/, '').trim();
    const failure = firstFailure.get(name) ?? { reason: said, cause: said };
    const { reason, cause } = state === 'FAILED' || state === 'SKIPPED' ? failure : { reason: '', cause: '' };
    // The table is printed again when a test times out: the last one is the run's verdict.
    results.set(name, { state: STATES[state], reason, cause, seconds: Number(seconds) });
  }
  for (const name of expected) {
    if (results.has(name)) continue;
    // No summary (a crash, or killed by our outer timeout): a test that printed a failure failed with
    // it; one that never finished failed with how the process ended.
    const how = exit.timedOut
      ? `killed after ${exit.timeoutS} s (the runner's outer timeout)`
      : exit.signal
        ? `test-runner died of ${exit.signal}`
        : `test-runner exited ${exit.code} without a summary`;
    const passedBanner = lines.some((l) => l.includes(`Test ${name} PASSED`));
    if (passedBanner && !firstFailure.has(name)) {
      results.set(name, { state: 'passed', reason: '', cause: '', seconds: 0 });
    } else {
      const { reason, cause } = firstFailure.get(name) ?? { reason: how, cause: how };
      results.set(name, { state: 'failed', reason, cause, seconds: 0 });
    }
  }
  return { results, notes };
}

/** The consumer group protocols a run can tell the suite to use (TEST_CONSUMER_GROUP_PROTOCOL). */
export const PROTOCOLS = ['classic', 'consumer'];

/**
 * Whether a test's source (tests/<number>-*.c, .cpp) makes a consumer: only those behave differently under
 * TEST_CONSUMER_GROUP_PROTOCOL, which test.c applies to consumer handles (`test_create_handle` with
 * RD_KAFKA_CONSUMER, the C++ tests' consumer configurations) and to the consumer settings the consumer
 * protocol forbids. A test that makes none runs the same bytes in both, so the consumer run leaves it out.
 */
export function makesConsumer(source) {
  return /RD_KAFKA_CONSUMER|test_create_consumer\(|KafkaConsumer::create|Consumer::create|test_consumer_group_protocol/.test(
    source,
  );
}

/** Addresses librdkafka says it connected to or tried, other than this host's: the sanitiser's evidence. */
export function foreignAddresses(rawOutput) {
  const found = new Set();
  for (const m of stripAnsi(rawOutput).matchAll(/ipv([46])#(\[[^\]]+\]|[^\s:]+):\d+/g)) {
    const host = m[2].replace(/^\[|\]$/g, '');
    // 0.0.0.0 and :: are this host too (Linux connects them to loopback): broker-less tests use them.
    if (!(host.startsWith('127.') || ['::1', 'localhost', '0.0.0.0', '::'].includes(host))) found.add(host);
  }
  return [...found];
}
