// What the tests need from the machine beyond Node and npm, in one table: the Debian packages of the real
// clients and the browser they drive, and the name a user opts out of each with (KLOG_SKIP). Run first by
// `pnpm test` (and so by `.ci/run`): a missing package is installed with apt where that can be done (as
// root), otherwise the exact command is printed and the run stops at once. The tests read the same table
// (`requireTool`): a test whose tool is missing fails, unless the user opted out of it by name.
//
//   node scripts/test-machine.mjs            check, install what is missing (as root), or say how
//   KLOG_SKIP=sarama,chromium pnpm test      run without those (their tests are skipped, and say so)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureKafkaJavascript } from './librdkafka/kafka-javascript.mjs';
import { buildPackages, ensureBuiltShared, SUITES, SuiteError } from './librdkafka/suite.mjs';

/** Each tool the tests drive: its opt-out name, the Debian packages that bring it, and who uses it. */
export const TOOLS = [
  {
    name: 'chromium',
    packages: ['chromium', 'fonts-thai-tlwg'],
    what: "the site's browser tests and its diagrams (Thai needs the fonts)",
  },
  {
    name: 'script',
    packages: ['bsdutils'],
    what: "`script`, a real terminal for the CLI's colour tests",
  },
  // The broker's and the CLI's tests are built on these two: they cannot be opted out of.
  {
    name: 'kcat',
    packages: ['kcat'],
    what: 'kcat (librdkafka 2.0.2), in the broker and CLI tests',
    required: true,
  },
  {
    name: 'confluent-kafka',
    packages: ['python3-confluent-kafka'],
    what: 'confluent-kafka for Python (librdkafka 2.0.2), in the broker and CLI tests',
    required: true,
  },
  {
    name: 'kafka-python',
    packages: ['python3-kafka'],
    what: "kafka-python 2.0.2, a client with its own protocol code, in the broker's idle-connection test",
  },
  {
    name: 'sarama',
    packages: ['golang-go', 'golang-github-shopify-sarama-dev', 'gcc', 'libc6-dev'],
    what: "Go and Sarama 1.22.1 (built offline in GOPATH mode), in the broker's Sarama test",
  },
  // Debian's librdkafka (2.0.2) predates Kafka 4's consumer group protocol: kcat runs on this one through
  // LD_LIBRARY_PATH. Built here, before the tests, so no test spends its time budget on a build.
  {
    name: 'librdkafka-2.15',
    packages: buildPackages(SUITES.npm),
    what:
      'librdkafka 2.15.1 (built once from the npm tarball of @confluentinc/kafka-javascript 1.10.1 into ~/.cache/klog), ' +
      "for kcat under group.protocol=consumer in the broker's group test and the CLI's topic-id test",
    build: () => ensureBuiltShared(SUITES.npm),
  },
  // Its install script downloads a binary from GitHub: its binding is compiled here instead, once, against
  // the librdkafka above (scripts/librdkafka/kafka-javascript.mjs).
  {
    name: 'kafka-javascript',
    packages: buildPackages(SUITES.npm),
    what:
      '@confluentinc/kafka-javascript 1.10.1 (its binding compiled once against librdkafka 2.15.1 into ~/.cache/klog), ' +
      "for the broker's embedded-broker example",
    build: ensureKafkaJavascript,
  },
];

/** The opt-out names in KLOG_SKIP (comma- or space-separated); kafka-javascript is built on librdkafka-2.15, so skipping that skips it. */
export function optedOut(env = process.env) {
  const names = new Set(
    (env.KLOG_SKIP ?? '')
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if (names.has('librdkafka-2.15')) names.add('kafka-javascript');
  return names;
}

function toolNamed(name) {
  const tool = TOOLS.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool named ${name} in scripts/test-machine.mjs`);
  return tool;
}

/** The line a test prints when its tool is missing: what to install, or how to opt out. */
export function missingMessage(name, why) {
  const tool = toolNamed(name);
  return (
    `${tool.what} is missing${why ? ` (${why})` : ''}: install it with ` +
    `\`sudo apt-get install -y ${tool.packages.join(' ')}\` (\`node scripts/test-machine.mjs\` does it as root)` +
    (tool.required ? '' : `, or skip its tests by name with KLOG_SKIP=${name}`)
  );
}

/**
 * Whether a test file's tests for `name` are skipped: false when the tool is there; true when it is missing
 * and the user opted out of it (said once on stderr); a thrown Error naming the package otherwise, so the
 * file fails instead of passing with nothing run.
 */
export function requireTool(name, present, why, env = process.env) {
  if (present) return false;
  const message = missingMessage(name, why);
  if (!toolNamed(name).required && optedOut(env).has(name)) {
    console.warn(`skipped (KLOG_SKIP=${name}): ${message}`);
    return true;
  }
  throw new Error(message);
}

function installed(pkg) {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout === 'install ok installed';
}

/** The packages still to install for the tools not opted out, or undefined where dpkg is not there. */
export function missingPackages(env = process.env) {
  if (spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).status !== 0) return undefined;
  const skip = optedOut(env);
  return TOOLS.filter((t) => t.required || !skip.has(t.name)).flatMap((t) =>
    t.packages.filter((p) => !installed(p)),
  );
}

function main() {
  const skip = optedOut();
  const optional = TOOLS.filter((t) => !t.required).map((t) => t.name);
  for (const name of skip) {
    if (!optional.includes(name)) {
      console.error(
        `test-machine: KLOG_SKIP names ${name}, which is not one of the tools that can be skipped (${optional.join(', ')})`,
      );
      process.exit(2);
    }
  }
  const missing = missingPackages();
  const wanted = TOOLS.filter((t) => t.required || !skip.has(t.name));
  const optOut = `or skip some by name: KLOG_SKIP=${optional.join(',')} (kcat and confluent-kafka cannot be skipped)`;
  if (missing === undefined) {
    console.error(
      'test-machine: not a Debian machine (no dpkg): the tests drive ' +
        wanted.map((t) => `${t.what} [Debian: ${t.packages.join(' ')}]`).join('; ') +
        `. Install them your way, ${optOut}`,
    );
    process.exit(1);
  }
  if (missing.length === 0) {
    const said = skip.size > 0 ? ` (skipping ${[...skip].join(', ')}: KLOG_SKIP)` : '';
    console.log(`test-machine: the Debian packages the tests use are installed${said}`);
    buildTools(wanted);
    return;
  }
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `test-machine: the tests need Debian packages that are not installed: ${missing.join(' ')}\n` +
        `  install them:  sudo apt-get update && sudo ${command}\n  ${optOut}`,
    );
    process.exit(1);
  }
  console.log(`test-machine: installing ${missing.join(' ')} (apt)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...missing],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) {
      console.error(`test-machine: \`apt-get ${args.join(' ')}\` exited ${r.status}`);
      process.exit(1);
    }
  }
  const still = missingPackages() ?? [];
  if (still.length > 0) {
    console.error(`test-machine: still missing after apt-get: ${still.join(' ')}`);
    process.exit(1);
  }
  buildTools(wanted);
}

/** The tools built from source (their build packages now present), each once, cached. */
function buildTools(wanted) {
  for (const tool of wanted) {
    if (tool.build === undefined) continue;
    const started = Date.now();
    console.log(`test-machine: ${tool.what}: checking the build`);
    try {
      tool.build();
    } catch (e) {
      if (!(e instanceof SuiteError)) throw e;
      console.error(`test-machine: ${e.message}\n  or skip its tests by name with KLOG_SKIP=${tool.name}`);
      process.exit(1);
    }
    console.log(`test-machine: ${tool.name} ready (${Math.round((Date.now() - started) / 1000)} s)`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
