// librdkafka's own integration suite against `klog serve`: `pnpm test:librdkafka` (see README.md here).
// Gets and builds the suite (suite.mjs: librdkafka 2.15.1 from npm, or 2.0.2 from Debian), then, in a
// network namespace that has only loopback, runs each applicable test number alone against a fresh
// `klog serve` (4 partitions; auto-create on, or off for the suite's `noautocreate` scenario), with the
// suite's own timeouts, once under each consumer group protocol (classic, and Kafka 4's `consumer` for the
// tests that make a consumer), and writes a report card. Exit 1 when a test of an allow-list did not pass.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  foreignAddresses,
  KAFKA_VERSION,
  makesConsumer,
  notApplicable,
  PROTOCOLS,
  parseRunnerOutput,
  parseTestList,
  scenarioOf,
} from './catalogue.mjs';
import {
  classify,
  MAX_RETRIED_UNITS,
  parseAllowList,
  renderFindings,
  renderReport,
  shouldRetry,
  sourceFeatures,
  testSummary,
  updateAllowList,
} from './findings.mjs';
import { DEFAULT_SUITE, prepareSuite, SUITES, SuiteError, treeDir } from './suite.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
/** Each suite's allow-lists (one per consumer group protocol) and findings live in a folder of its name. */
const allowListFile = (suite, protocol) => join(here, suite.name, `allow-list.${protocol}.txt`);
const findingsFile = (suite) => join(here, suite.name, 'FINDINGS.md');
const CLI = join(root, 'packages/cli/dist/bin.js');
/** Past the suite's own per-test timeouts (30 s × its multiplier, tests raise theirs): only for a hang. */
const OUTER_TIMEOUT_S = Number(process.env.KLOG_LIBRDKAFKA_OUTER_TIMEOUT_S ?? 900);

const USAGE = `Usage: pnpm test:librdkafka [options]

Runs librdkafka's own integration tests against \`klog serve\` (the built CLI): librdkafka
${SUITES.npm.version} from ${SUITES.npm.npmPackage}'s npm tarball (the default), or
${SUITES.debian.version} from Debian's source package (--suite debian); under each consumer group protocol
the suite has (classic; consumer, Kafka 4's, for the tests that make a consumer).

  (no option)           CI mode: the test numbers of scripts/librdkafka/<suite>/allow-list.<protocol>.txt;
                        fails when one of them does not pass
  --suite npm|debian    which librdkafka (default npm: ${SUITES.npm.version}; debian: ${SUITES.debian.version})
  --protocol classic|consumer
                        only this consumer group protocol (default: every one the suite has)
  --full                every test that applies to one broker (not the broker-less ones), in the scenarios
                        default and noautocreate (the latter against klog serve --no-auto-create-topics)
  --tests 0001,0012     just these test numbers
  --include-local       also run the broker-less tests that share a number with those (what \`TESTS=<n>\`
                        without -L runs)
  --subtests <text>     only the subtests whose name holds <text> (librdkafka's SUBTESTS: test.c's
                        test_sub_start skips the others), e.g. --tests 0081 --subtests Configs runs 0081's
                        config subtests without its ACL and SCRAM ones (which need authorization klog lacks)
  --update-allow-list   add the tests that passed to the allow-lists and rewrite FINDINGS.md (with --full)
  --out <dir>           where the report card goes (default: artifacts/librdkafka)
  --prepare-only        get and build the suite, run nothing
  --from-report         run nothing: judge <out>/report.json again (allow-list, features, --update-allow-list)
  -h, --help            this text

Environment: KLOG_CACHE_DIR (default ~/.cache/klog) holds the built suite; KLOG_LIBRDKAFKA_NO_NETNS=1 runs
without the loopback-only network namespace; TEST_DEBUG (librdkafka's debug property, e.g. cgrp) reaches the tests, whose
clients then log at debug level into the run's logs/.`;

/**
 * The subtests CI runs of a test number whose other subtests need what klog does not have (test.c's
 * SUBTESTS, a part of the subtest's name): 0081_admin's ACL and SCRAM subtests need an authorizer and SASL;
 * its config subtests (AlterConfigs, IncrementalAlterConfigs, DescribeConfigs, DescribeConfigs_groups) take
 * seconds. CI and `--full` run only these (the allow-lists' line says so); `--tests` runs every subtest unless
 * `--subtests` says otherwise.
 */
const CI_SUBTESTS = { '0081': 'Configs' };

function fail(message, code = 2) {
  console.error(`librdkafka: ${message}`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { mode: 'ci', tests: undefined, includeLocal: false, update: false, prepareOnly: false };
  opts.suite = SUITES[DEFAULT_SUITE];
  opts.out = join(root, 'artifacts/librdkafka');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a === '--full') opts.mode = 'full';
    else if (a === '--suite') {
      const name = argv[++i] ?? '';
      if (!SUITES[name]) fail(`--suite wants ${Object.keys(SUITES).join(' or ')}, not '${name}'`);
      opts.suite = SUITES[name];
    } else if (a === '--protocol') {
      const name = argv[++i] ?? '';
      if (!PROTOCOLS.includes(name)) fail(`--protocol wants ${PROTOCOLS.join(' or ')}, not '${name}'`);
      opts.protocol = name;
    } else if (a === '--tests') {
      const list = argv[++i] ?? '';
      if (!/^\d{4}(,\d{4})*$/.test(list)) fail(`--tests wants test numbers like 0001,0012, not '${list}'`);
      opts.mode = 'tests';
      opts.tests = list.split(',');
    } else if (a === '--include-local') opts.includeLocal = true;
    else if (a === '--subtests')
      opts.subtests = argv[++i] || fail('--subtests wants a part of a subtest name');
    else if (a === '--update-allow-list') opts.update = true;
    else if (a === '--out') opts.out = resolve(argv[++i] ?? fail('--out wants a directory'));
    else if (a === '--prepare-only') opts.prepareOnly = true;
    else if (a === '--from-report') opts.fromReport = true;
    else if (a === '--inside-netns') opts.insideNetns = true;
    else fail(`unknown option ${a} (see --help)`);
  }
  if (opts.subtests !== undefined && opts.mode !== 'tests')
    fail('--subtests wants --tests (the numbers to run)');
  if (opts.update && opts.mode !== 'full' && !opts.fromReport) {
    fail('--update-allow-list wants --full (it reads a whole run)');
  }
  if (opts.protocol && !opts.suite.protocols.includes(opts.protocol)) {
    fail(
      `librdkafka ${opts.suite.version} (--suite ${opts.suite.name}) has no ${opts.protocol} group protocol ` +
        `(it has ${opts.suite.protocols.join(', ')})`,
    );
  }
  opts.protocols = opts.protocol ? [opts.protocol] : opts.suite.protocols;
  return opts;
}

/**
 * Re-runs this script inside a new network namespace whose only interface is loopback, when it can: as
 * root with `unshare --net`, else in a user namespace (`--map-root-user`) where the kernel allows one.
 */
function reexecInNetns() {
  if (process.env.KLOG_LIBRDKAFKA_NO_NETNS === '1') return false;
  const tried = [];
  for (const flags of [['--net'], ['--map-root-user', '--net']]) {
    const probe = spawnSync('unshare', [...flags, 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      tried.push(`unshare ${flags.join(' ')}: ${(probe.stderr || probe.error?.message || '').trim()}`);
      continue;
    }
    const args = [
      ...flags,
      'sh',
      '-c',
      'ip link set lo up && exec "$@"',
      'sh',
      process.execPath,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
      '--inside-netns',
    ];
    const r = spawnSync('unshare', args, { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  console.log(
    `librdkafka: no network namespace here (${tried.join('; ')}); the suite is still pointed only at ` +
      '127.0.0.1 (test.conf, the advertised host) and its logs are checked for other addresses',
  );
  return false;
}

function onlyLoopback() {
  const ifaces = readFileSync('/proc/net/dev', 'utf8')
    .split('\n')
    .slice(2)
    .map((l) => l.split(':')[0].trim())
    .filter(Boolean);
  return ifaces.every((i) => i === 'lo');
}

/**
 * `klog serve`'s flags for what a scenario of the suite expects (tests/scenarios/<name>.json): 4
 * partitions a topic created without a count; auto-create on in `default` (`--auto-create-topics`, or
 * nothing where the broker creates by default and has only `--no-auto-create-topics`), off in
 * `noautocreate` (its `auto.create.topics.enable=false`).
 */
function serveFlags(scenario) {
  const help = spawnSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8' }).stdout ?? '';
  if (scenario === 'noautocreate') {
    if (!/(^|\s)--no-auto-create-topics\b/m.test(help)) fail('klog serve has no --no-auto-create-topics', 1);
    return ['--no-auto-create-topics', '--num-partitions', '4'];
  }
  const autoCreate = /(^|\s)--auto-create-topics\b/m.test(help) ? ['--auto-create-topics'] : [];
  return [...autoCreate, '--num-partitions', '4'];
}

/**
 * What one run is called in logs/: the test number, its scenario when not the default, its consumer
 * group protocol when not classic (0045.noautocreate.log, 0030.consumer.log).
 */
function unitName({ number, scenario, protocol = 'classic' }) {
  return [
    number,
    ...(scenario === 'default' ? [] : [scenario]),
    ...(protocol === 'classic' ? [] : [protocol]),
  ].join('.');
}

/** `klog serve` on a free loopback port with what the suite expects; resolves with its port. */
function startBroker(dataDir, logFile, flags) {
  return new Promise((resolvePort, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0', ...flags],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    let found = false;
    const onData = (chunk) => {
      log += chunk;
      writeFileSync(logFile, log);
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(log);
      if (m && !found) {
        found = true;
        resolvePort({ child, port: Number(m[1]), log: () => log });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      if (!found) reject(new Error(`klog serve exited ${code} before listening:\n${log}`));
    });
  });
}

function stopBroker(broker) {
  return new Promise((done) => {
    if (broker.child.exitCode !== null) return done(broker.child.exitCode);
    const timer = setTimeout(() => broker.child.kill('SIGKILL'), 20_000);
    broker.child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done(code ?? signal);
    });
    broker.child.kill('SIGTERM');
  });
}

/** test-runner for one test number, alone (-p1), stdout line-buffered so its summary survives an abort. */
function runTestNumber(suite, testsDir, unit, confFile, reportFile, includeLocal, brokers, subtests) {
  const { number, scenario, protocol } = unit;
  return new Promise((done) => {
    // A clean environment: nothing of the caller's (KAFKA_PATH, BROKERS, SSL_*, …) reaches the suite.
    // KAFKA_PATH and BROKERS are klog's own: the tests that shell out to $KAFKA_PATH/bin/kafka-topics.sh
    // (0045, 0052, 0077) run @klog/cli's kafka/bin against this broker.
    const env = {
      KAFKA_PATH: join(root, 'packages/cli/kafka'),
      BROKERS: brokers,
      PATH: process.env.PATH,
      HOME: process.env.HOME ?? tmpdir(),
      LANG: 'C.UTF-8',
      LD_LIBRARY_PATH: `${join(testsDir, '../src')}:${join(testsDir, '../src-cpp')}`,
      RDKAFKA_TEST_CONF: confFile,
      TEST_KAFKA_VERSION: KAFKA_VERSION,
      TESTS: number,
      TEST_REPORT: reportFile,
      TEST_MODE: 'bare',
      TEST_SCENARIO: scenario,
      RDKAFKA_GITVER: `${suite.version}@${suite.name}`,
      // Unset means classic, as in librdkafka's own CI; test.c sets group.protocol on consumers from it.
      ...(protocol === 'classic' ? {} : { TEST_CONSUMER_GROUP_PROTOCOL: protocol }),
      // test.c's SUBTESTS: a subtest whose name does not hold it is skipped (test_sub_start returns 0).
      ...(subtests === undefined ? {} : { SUBTESTS: subtests }),
    };
    // librdkafka's own CI allowance (its timeouts ×3) applies when this runs in CI, as in its own CI.
    if (process.env.CI) env.CI = process.env.CI;
    // test.c's TEST_DEBUG sets `debug` on every client the tests make (e.g. cgrp), for a by-hand look at a failure.
    if (process.env.TEST_DEBUG) env.TEST_DEBUG = process.env.TEST_DEBUG;
    const args = ['-oL', '-eL', './test-runner', '-p1', ...(includeLocal ? [] : ['-L'])];
    const child = spawn('stdbuf', args, { cwd: testsDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => {
      output += c;
    });
    child.stderr.on('data', (c) => {
      output += c;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, OUTER_TIMEOUT_S * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ output, exit: { code, signal, timedOut, timeoutS: OUTER_TIMEOUT_S } });
    });
  });
}

/** The source files of one test number (tests/0012-produce_consume.c, …), for what they use. */
/** Each test number's source, read once a run (the consumer selection, the findings and the allow-list read it). */
const sources = new Map();
function testSource(testsDir, number) {
  const key = `${testsDir}/${number}`;
  if (!sources.has(key)) sources.set(key, readSource(testsDir, number));
  return sources.get(key);
}

function readSource(testsDir, number) {
  return readdirSync(testsDir)
    .filter((f) => f.startsWith(`${number}-`) && /\.(c|cpp)$/.test(f))
    .map((f) => readFileSync(join(testsDir, f), 'utf8'))
    .join('\n');
}

function formatDuration(seconds) {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** One test number in one scenario against a fresh broker: the runner's output, parsed, and the broker's log. */
async function runUnit(opts, testsDir, work, unit, tests, flags, foreign) {
  const { number } = unit;
  const dir = join(work, unitName(unit));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const brokerLog = join(opts.out, 'logs', `${unitName(unit)}.broker.log`);
  const broker = await startBroker(join(dir, 'data'), brokerLog, flags);
  const conf = join(dir, 'test.conf');
  writeFileSync(
    conf,
    `# written by scripts/librdkafka/run.mjs\nmetadata.broker.list=127.0.0.1:${broker.port}\n`,
  );
  const t0 = Date.now();
  const { output, exit } = await runTestNumber(
    opts.suite,
    testsDir,
    unit,
    conf,
    join(dir, 'report.json'),
    opts.includeLocal,
    `127.0.0.1:${broker.port}`,
    unit.subtests ?? opts.subtests,
  );
  const seconds = (Date.now() - t0) / 1000;
  const brokerExit = await stopBroker(broker);
  writeFileSync(join(opts.out, 'logs', `${unitName(unit)}.log`), output);
  for (const host of foreignAddresses(output)) foreign.add(`${host} (test ${number})`);
  const { results: parsed, notes } = parseRunnerOutput(
    output,
    tests.map((t) => t.name),
    exit,
  );
  rmSync(dir, { recursive: true, force: true });
  const states = tests.map((t) => `${t.name} ${parsed.get(t.name).state}`).join(', ');
  return { output, exit, seconds, brokerExit, brokerLog: broker.log(), parsed, notes, states };
}

/**
 * Each test number (in each of its scenarios, under each protocol) alone against its own fresh broker;
 * results in the suite's order, classic first. `allows` holds each protocol's allow-list; the seconds each
 * protocol took go into `protocolSeconds`.
 */
async function runAll(opts, testsDir, units, byUnit, allows, foreign, protocolSeconds) {
  mkdirSync(join(opts.out, 'logs'), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'klog-librdkafka-'));
  const flagsOf = Object.fromEntries(['default', 'noautocreate'].map((s) => [s, serveFlags(s)]));
  const others = [...new Set(units.map((u) => u.scenario))].filter((s) => s !== 'default');
  const per = opts.protocols
    .map((p) => `${units.filter((u) => u.protocol === p).length} under group.protocol=${p}`)
    .join(', ');
  console.log(
    `librdkafka ${opts.suite.version}: ${opts.mode} mode: ${per}, one test number at a time, against ` +
      `klog serve ${flagsOf.default.join(' ')}` +
      others.map((s) => ` (scenario ${s}: ${flagsOf[s].join(' ')})`).join('') +
      ` (TEST_KAFKA_VERSION=${KAFKA_VERSION})` +
      (opts.insideNetns ? ', in a loopback-only network namespace' : ''),
  );
  const results = [];
  let retriesUsed = 0;
  let phase;
  let phaseStarted = Date.now();
  for (const [i, unit] of units.entries()) {
    const { number, scenario, protocol } = unit;
    if (protocol !== phase) {
      if (phase !== undefined) protocolSeconds[phase] = (Date.now() - phaseStarted) / 1000;
      phase = protocol;
      phaseStarted = Date.now();
      console.log(`librdkafka: group.protocol=${protocol}`);
    }
    const allow = allows[protocol];
    const tests = byUnit(unit);
    const where =
      (scenario === 'default' ? '' : ` [scenario ${scenario}]`) +
      (protocol === 'classic' ? '' : ` [group.protocol=${protocol}]`);
    let run = await runUnit(opts, testsDir, work, unit, tests, flagsOf[scenario], foreign);
    let firstRun;
    if (
      shouldRetry(
        tests.map((t) => t.name),
        run.parsed,
        allow.names,
        retriesUsed,
      )
    ) {
      retriesUsed++;
      firstRun = run;
      console.log(
        `[${i + 1}/${units.length}] ${run.states}${where} (${formatDuration(run.seconds)}): an allow-listed ` +
          `test did not pass; running ${unitName(unit)} once more (${retriesUsed} of at most ` +
          `${MAX_RETRIED_UNITS} reruns), its first run kept in logs/${unitName(unit)}.first.log and .first.broker.log`,
      );
      writeFileSync(join(opts.out, 'logs', `${unitName(unit)}.first.log`), run.output);
      writeFileSync(join(opts.out, 'logs', `${unitName(unit)}.first.broker.log`), run.brokerLog);
      run = await runUnit(opts, testsDir, work, unit, tests, flagsOf[scenario], foreign);
    }
    const features = sourceFeatures(testSource(testsDir, number));
    for (const t of tests) {
      const r = run.parsed.get(t.name);
      const first = firstRun?.parsed.get(t.name);
      const local = notApplicable(t) === 'local (no broker)';
      results.push({
        name: t.name,
        number,
        scenario,
        protocol,
        local,
        ...r,
        ...(first !== undefined && first.state !== 'passed'
          ? { retriedAfter: `${first.state}${first.reason ? `: ${first.reason}` : ''}` }
          : {}),
        feature: classify(r, run.brokerLog, features, protocol),
        allowed: allow.names.has(t.name),
        exit: run.exit,
      });
    }
    const brokerNote =
      run.brokerExit === 0
        ? ''
        : `; klog serve exited ${run.brokerExit} (see logs/${unitName(unit)}.broker.log)`;
    const again = firstRun === undefined ? '' : ' (run again)';
    console.log(
      `[${i + 1}/${units.length}] ${run.states}${where}${again} (${formatDuration(run.seconds)})${brokerNote}`,
    );
    for (const note of run.notes) console.log(`        ${note}`);
  }
  if (phase !== undefined) protocolSeconds[phase] = (Date.now() - phaseStarted) / 1000;
  rmSync(work, { recursive: true, force: true });
  return results;
}

/**
 * A report.json read back and judged again: each number's output parsed anew from logs/ (as this version
 * of the parser reads it), features from its broker log and source, the allow-list as it is now.
 */
function rejudge(out, testsDir, allows) {
  const file = join(out, 'report.json');
  if (!existsSync(file)) fail(`--from-report: no ${file} (run the suite first)`);
  const { results, ...run } = JSON.parse(readFileSync(file, 'utf8'));
  const judged = results.map((r) => {
    const read = (name) =>
      existsSync(join(out, 'logs', name)) ? readFileSync(join(out, 'logs', name), 'utf8') : '';
    // A report from before scenarios (or protocols) were run holds default-scenario classic results only.
    const scenario = r.scenario ?? 'default';
    const protocol = r.protocol ?? 'classic';
    const unit = unitName({ number: r.number, scenario, protocol });
    const output = read(`${unit}.log`);
    const names = results
      .filter(
        (o) =>
          o.number === r.number &&
          (o.scenario ?? 'default') === scenario &&
          (o.protocol ?? 'classic') === protocol,
      )
      .map((o) => o.name);
    const exit = r.exit ?? { code: 1, signal: null, timedOut: false };
    const again = output === '' ? r : { ...r, ...parseRunnerOutput(output, names, exit).results.get(r.name) };
    const features = sourceFeatures(testSource(testsDir, r.number));
    return {
      ...again,
      scenario,
      protocol,
      feature: classify(again, read(`${unit}.broker.log`), features, protocol),
      allowed: (allows[protocol]?.names ?? new Set()).has(r.name),
    };
  });
  return { results: judged, run };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { suite } = opts;
  const started = Date.now();
  if (!existsSync(CLI)) fail(`no built CLI at ${CLI}: run \`pnpm build --filter=@klog/cli\` first`);

  let testsDir;
  if (!opts.insideNetns) {
    try {
      testsDir = prepareSuite(suite);
    } catch (e) {
      if (e instanceof SuiteError) fail(`could not get or build the suite: ${e.message}`, 1);
      throw e;
    }
    if (opts.prepareOnly) return;
    if (!opts.fromReport) reexecInNetns(); // exits when it could; otherwise carries on here
  } else {
    if (!onlyLoopback()) fail('inside the namespace but interfaces other than lo are present', 1);
    testsDir = join(treeDir(suite), 'tests');
  }

  const catalogue = parseTestList(readFileSync(join(testsDir, 'test.c'), 'utf8'));
  const known = new Set(catalogue.map((t) => t.name));
  const allows = {};
  for (const protocol of suite.protocols) {
    const file = allowListFile(suite, protocol);
    allows[protocol] = parseAllowList(existsSync(file) ? readFileSync(file, 'utf8') : '');
    for (const name of allows[protocol].names)
      if (!known.has(name)) fail(`${file} names ${name}, not in librdkafka ${suite.version}'s suite`);
  }

  const applicable = catalogue.filter((t) => !notApplicable(t));
  // Under the consumer protocol only the tests that make a consumer run: the rest run the same bytes.
  const consumerNumbers = new Set(
    applicable.filter((t) => makesConsumer(testSource(testsDir, t.number))).map((t) => t.number),
  );
  const underProtocol = (protocol) => (t) => protocol === 'classic' || consumerNumbers.has(t.number);
  // What is run: a test number in one scenario under one protocol (0045 runs twice under classic: its
  // default test, its two noautocreate ones).
  const unitsOf = (tests, protocol) => {
    const seen = new Map();
    for (const t of tests) {
      const unit = { number: t.number, scenario: scenarioOf(t), protocol };
      seen.set(unitName(unit), unit);
    }
    return [...seen.values()];
  };
  const units = [];
  for (const protocol of opts.protocols) {
    const fits = underProtocol(protocol);
    if (opts.mode === 'full') units.push(...unitsOf(applicable.filter(fits), protocol));
    else if (opts.mode === 'tests') {
      const local = (t) => opts.includeLocal && notApplicable(t) === 'local (no broker)';
      const chosen = unitsOf(
        catalogue.filter((t) => opts.tests.includes(t.number) && fits(t) && (!notApplicable(t) || local(t))),
        protocol,
      );
      for (const n of opts.tests) {
        if (!catalogue.some((t) => t.number === n && (!notApplicable(t) || local(t))))
          fail(`test ${n} does not apply to one broker (or is not in librdkafka ${suite.version}'s suite)`);
      }
      units.push(...chosen);
    } else {
      units.push(
        ...unitsOf(
          applicable.filter((t) => fits(t) && allows[protocol].names.has(t.name)),
          protocol,
        ),
      );
    }
  }
  // CI and --full run only the subtests of CI_SUBTESTS where a number has some; --tests runs them all.
  if (opts.mode !== 'tests') {
    for (const [i, u] of units.entries())
      if (CI_SUBTESTS[u.number]) units[i] = { ...u, subtests: CI_SUBTESTS[u.number] };
  }
  // Broker-less tests (--include-local) run with the default scenario's number, as `TESTS=<n>` runs them.
  const byUnit = ({ number, scenario, protocol }) =>
    catalogue.filter(
      (t) =>
        t.number === number &&
        ((!notApplicable(t) && scenarioOf(t) === scenario) ||
          (opts.includeLocal &&
            protocol === 'classic' &&
            scenario === 'default' &&
            notApplicable(t) === 'local (no broker)')),
    );

  const foreign = new Set();
  const protocolSeconds = {};
  const earlier = opts.fromReport ? rejudge(opts.out, testsDir, allows) : undefined;
  const results =
    earlier?.results ?? (await runAll(opts, testsDir, units, byUnit, allows, foreign, protocolSeconds));

  const elapsed = (Date.now() - started) / 1000;
  const run = earlier?.run ?? {
    suite: suite.name,
    librdkafka: suite.version,
    origin: suite.origin,
    mode: opts.mode,
    includeLocal: opts.includeLocal,
    kafkaVersion: KAFKA_VERSION,
    seconds: elapsed,
    protocolSeconds,
  };
  const report = renderReport(results, run);
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'report.md'), report.markdown);
  writeFileSync(join(opts.out, 'report.json'), `${JSON.stringify({ ...run, results }, null, 2)}\n`);
  console.log(`\n${report.table}`);
  console.log(`librdkafka: report card in ${join(opts.out, 'report.md')} (and report.json, logs/)`);

  if (foreign.size > 0) {
    fail(`the suite reached for addresses other than loopback: ${[...foreign].join(', ')}`, 1);
  }
  const protocolsRun = [...new Set(results.map((r) => r.protocol ?? 'classic'))];
  const newlyPassing = results.filter((r) => r.state === 'passed' && !r.allowed && !r.local);
  const broken = results.filter((r) => r.allowed && r.state !== 'passed');
  if (opts.update) {
    for (const protocol of protocolsRun) {
      const file = allowListFile(suite, protocol);
      const passing = newlyPassing
        .filter((r) => (r.protocol ?? 'classic') === protocol)
        .map((r) => ({ ...r, summary: testSummary(testSource(testsDir, r.number)) }));
      mkdirSync(dirname(file), { recursive: true });
      const text = existsSync(file) ? readFileSync(file, 'utf8') : allowListHeader(suite, protocol);
      writeFileSync(file, updateAllowList(text, passing));
      console.log(`librdkafka: ${file}: +${passing.length}`);
    }
    // The findings are klog's: the broker-less tests (--include-local) say nothing about it.
    writeFileSync(
      findingsFile(suite),
      renderFindings(
        results.filter((r) => !r.local),
        run,
      ),
    );
    console.log(`librdkafka: ${findingsFile(suite)} rewritten`);
  } else if (newlyPassing.length > 0) {
    console.log(
      `librdkafka: newly passing, add to the allow-list: ${newlyPassing
        .map((r) => `${r.name}${(r.protocol ?? 'classic') === 'classic' ? '' : ` (${r.protocol})`}`)
        .join(', ')}\n` +
        '            (pnpm test:librdkafka --full --update-allow-list adds every test that passes)',
    );
  }
  if (broken.length > 0) {
    console.error(`librdkafka: FAILED: ${broken.length} allow-listed test(s) did not pass:`);
    for (const r of broken)
      console.error(
        `  ${r.name} (group.protocol=${r.protocol ?? 'classic'}): ${r.state}${r.reason ? `: ${r.reason}` : ''}`,
      );
    console.error(`  logs: ${join(opts.out, 'logs')}/<number>[.consumer].log`);
    process.exit(1);
  }
  console.log(`librdkafka: ok in ${formatDuration(elapsed)} (${report.summary.join('; ')})`);
}

/** The head of a new allow-list, for a suite and protocol that have none yet. */
function allowListHeader(suite, protocol) {
  return [
    `# librdkafka ${suite.version}'s tests that pass against \`klog serve\` under group.protocol=${protocol}`,
    '# (scripts/librdkafka/README.md). CI (`pnpm test:librdkafka`) runs these test numbers and fails when one',
    '# of these tests does not pass. `--full --update-allow-list` adds every test that passed in a full run.',
    '# One test name a line (as test.c names it), a comment after `#`.',
    '',
  ].join('\n');
}

main().catch((e) => {
  console.error(`librdkafka: ${e.stack ?? e}`);
  process.exit(1);
});
