// Gets and builds librdkafka's test suite, cached outside the repository by version: nothing of it is
// committed. Two sources, each a librdkafka that people run today:
// - `npm` (the default, what CI gates on): librdkafka 2.15.1, the whole source with tests/ under
//   deps/librdkafka of @confluentinc/kafka-javascript@1.10.1's npm tarball (`npm pack` runs no install
//   script): the librdkafka of the Node, Go, Python and .NET clients installed today, which speaks Kafka 4's
//   consumer group protocol (`group.protocol=consumer`);
// - `debian`: librdkafka 2.0.2 from Debian's source package, the one under Debian's kcat and
//   python3-confluent-kafka (on demand: `--suite debian`).
// Each step checks first and skips what is present, so a second run only verifies.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The suites this runner can get: librdkafka's version, where its source comes from, and the consumer
 * group protocols its test-runner can be told to use (TEST_CONSUMER_GROUP_PROTOCOL, read by tests/test.c
 * from 2.4 on; 2.0.2 has only the classic protocol).
 */
export const SUITES = {
  npm: {
    name: 'npm',
    version: '2.15.1',
    /** The npm package whose tarball carries this librdkafka's whole source, tests/ included. */
    npmPackage: '@confluentinc/kafka-javascript@1.10.1',
    /** RD_KAFKA_VERSION in src/rdkafka.h for this version: the tarball is checked against it. */
    versionHex: '0x020f01ff',
    protocols: ['classic', 'consumer'],
    origin: '@confluentinc/kafka-javascript@1.10.1 from npm',
  },
  debian: {
    name: 'debian',
    version: '2.0.2',
    /** Debian's revision of it (bookworm); `apt-get source` is pinned to it. */
    debianVersion: '2.0.2-1',
    protocols: ['classic'],
    origin: "Debian's source package librdkafka 2.0.2-1",
  },
};
export const DEFAULT_SUITE = 'npm';

/** What building librdkafka and its tests needs from Debian (librdkafka's Build-Depends without debhelper,
 * which only the .deb packaging uses; dpkg-dev unpacks a Debian source package; iproute2 brings loopback up
 * in the network namespace the suite runs in). */
export function buildPackages(suite) {
  return [
    'build-essential',
    ...(suite.name === 'debian' ? ['dpkg-dev'] : []),
    'python3',
    'liblz4-dev',
    'libsasl2-dev',
    'libssl-dev',
    'libzstd-dev',
    'rapidjson-dev',
    'zlib1g-dev',
    'iproute2',
  ];
}
const SOURCES_FILE = '/etc/apt/sources.list.d/klog-debian-src.sources';

function say(message) {
  console.log(`librdkafka: ${message}`);
}

export class SuiteError extends Error {}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: options.quiet ? 'pipe' : 'inherit', encoding: 'utf8', ...options });
  if (r.error) throw new SuiteError(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = options.quiet
      ? `\n${(r.stdout ?? '') + (r.stderr ?? '')}`.trimEnd().split('\n').slice(-20)
      : [];
    throw new SuiteError(`\`${cmd} ${args.join(' ')}\` exited ${r.status}${tail.join('\n')}`);
  }
  return r.stdout ?? '';
}

function capture(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : undefined;
}

const asRoot = (cmd, args) => (process.getuid?.() === 0 ? [cmd, args] : ['sudo', [cmd, ...args]]);

function aptGet(args) {
  const [cmd, full] = asRoot('apt-get', args);
  run(cmd, full, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

export function cacheDir(suite) {
  const base =
    process.env.KLOG_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'klog');
  return join(base, `librdkafka-${suite.version}`);
}

/** The unpacked source tree of a suite (its tests/ under it). */
export function treeDir(suite) {
  return join(cacheDir(suite), `librdkafka-${suite.version}`);
}

/** This machine's Debian release and mirror, from /etc/os-release and its apt sources. */
function debianRelease() {
  const osRelease = readFileSync('/etc/os-release', 'utf8');
  const codename = /^VERSION_CODENAME=(.*)$/m.exec(osRelease)?.[1]?.replace(/"/g, '');
  if (!/^ID=debian$/m.test(osRelease) || !codename) {
    throw new SuiteError(
      'not a Debian machine (/etc/os-release): the suite is built from Debian’s source package',
    );
  }
  let mirror = 'http://deb.debian.org/debian';
  const files = ['/etc/apt/sources.list'];
  if (existsSync('/etc/apt/sources.list.d')) {
    for (const f of readdirSync('/etc/apt/sources.list.d')) files.push(join('/etc/apt/sources.list.d', f));
  }
  for (const file of files.filter((f) => /\.(list|sources)$/.test(f) && existsSync(f))) {
    const text = readFileSync(file, 'utf8');
    const deb822 = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text);
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+\S+/m.exec(text);
    const found = deb822?.[1] ?? oneLine?.[1];
    if (found && !file.endsWith('klog-debian-src.sources')) {
      mirror = found;
      break;
    }
  }
  return { codename, mirror };
}

function sourceAvailable(debianVersion) {
  return (capture('apt-cache', ['showsrc', 'librdkafka']) ?? '').includes(`Version: ${debianVersion}`);
}

/** A deb-src entry for Debian's own repository, matching the machine's release and mirror. */
export function ensureDebSrc(debianVersion) {
  if (sourceAvailable(debianVersion)) return say(`deb-src present (librdkafka ${debianVersion})`);
  const { codename, mirror } = debianRelease();
  if (!existsSync(SOURCES_FILE)) {
    say(`adding ${SOURCES_FILE} (deb-src ${mirror} ${codename})`);
    const entry = [
      '# Added by klog (scripts/librdkafka): Debian source packages, for librdkafka’s test suite.',
      'Types: deb-src',
      `URIs: ${mirror}`,
      `Suites: ${codename} ${codename}-updates`,
      'Components: main',
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
      '',
    ].join('\n');
    if (process.getuid?.() === 0) writeFileSync(SOURCES_FILE, entry);
    else run('sudo', ['tee', SOURCES_FILE], { input: entry, stdio: ['pipe', 'ignore', 'inherit'] });
  }
  aptGet(['update', '-qq']);
  if (!sourceAvailable(debianVersion)) {
    throw new SuiteError(
      `apt has no source of librdkafka ${debianVersion} (Debian ${codename}): the suite is pinned to it`,
    );
  }
}

export function ensureBuildPackages(suite) {
  const missing = buildPackages(suite).filter(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
    (p) => capture('dpkg-query', ['-W', '-f=${Status}', p]) !== 'install ok installed',
  );
  if (missing.length === 0) return say('build packages present');
  say(`installing ${missing.join(' ')} (apt)`);
  aptGet(['update', '-qq']);
  aptGet(['install', '-y', '-qq', ...missing]);
}

/** Debian's source package, fetched with `apt-get source` into the cache. */
function fetchDebianSource(suite, dir, tree) {
  ensureDebSrc(suite.debianVersion);
  say(`apt-get source librdkafka=${suite.debianVersion} (into ${dir})`);
  run('apt-get', ['source', '-qq', `librdkafka=${suite.debianVersion}`], { cwd: dir, quiet: true });
  if (!existsSync(join(tree, 'tests', 'test.c')))
    throw new SuiteError(`apt-get source left no ${tree}/tests`);
}

/**
 * librdkafka's source from an npm tarball (`npm pack`: the registry's tarball, no install script run),
 * its deps/librdkafka moved to `tree` once it is checked to be the version the suite names.
 */
function fetchNpmSource(suite, dir, tree) {
  const work = join(dir, 'npm-pack');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  say(`npm pack ${suite.npmPackage} (into ${work})`);
  const packed = run('npm', ['pack', '--silent', '--pack-destination', work, suite.npmPackage], {
    quiet: true,
  })
    .trim()
    .split('\n')
    .pop();
  run('tar', ['-xzf', join(work, packed), '-C', work], { quiet: true });
  const source = join(work, 'package', 'deps', 'librdkafka');
  const header = join(source, 'src', 'rdkafka.h');
  if (!existsSync(join(source, 'tests', 'test.c')) || !existsSync(header)) {
    throw new SuiteError(`${suite.npmPackage} carries no deps/librdkafka with tests/ (looked in ${source})`);
  }
  const hex = /#define RD_KAFKA_VERSION\s+(0x[0-9a-fA-F]+)/.exec(readFileSync(header, 'utf8'))?.[1];
  if (hex?.toLowerCase() !== suite.versionHex) {
    throw new SuiteError(
      `${suite.npmPackage} carries librdkafka ${hex ?? '(no RD_KAFKA_VERSION)'}, not ${suite.version} (${suite.versionHex})`,
    );
  }
  rmSync(tree, { recursive: true, force: true });
  renameSync(source, tree);
  rmSync(work, { recursive: true, force: true });
}

/** The unpacked source tree, fetched into the cache when missing. */
export function ensureSource(suite) {
  const dir = cacheDir(suite);
  const tree = treeDir(suite);
  if (existsSync(join(tree, 'tests', 'test.c'))) return tree;
  mkdirSync(dir, { recursive: true });
  if (suite.name === 'debian') fetchDebianSource(suite, dir, tree);
  else fetchNpmSource(suite, dir, tree);
  return tree;
}

/** librdkafka and tests/test-runner, built once per cache (rebuilt when the binary is missing). */
export function ensureBuilt(suite, tree) {
  const runner = join(tree, 'tests', 'test-runner');
  const stamp = join(tree, '.klog-built');
  if (existsSync(runner) && existsSync(stamp)) {
    say(`test-runner cached (${runner})`);
    return runner;
  }
  ensureBuildPackages(suite);
  const started = Date.now();
  say(`building librdkafka ${suite.version} and its test-runner (a few minutes; log in ${tree}/build.log)`);
  rmSync(stamp, { force: true });
  const log = join(tree, 'build.log');
  const steps = [
    // libcurl (OIDC token fetching) is left out: no test here reaches an HTTP server.
    ['./configure', ['--disable-valgrind', ...(suite.name === 'npm' ? ['--disable-curl'] : [])]],
    ['make', ['-j2', 'libs']],
    ['make', ['-j2', '-C', 'tests', 'test-runner']],
  ];
  let output = '';
  for (const [cmd, args] of steps) {
    const r = spawnSync('nice', [cmd, ...args], {
      cwd: tree,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    output += `$ ${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`;
    writeFileSync(log, output);
    if (r.status !== 0) {
      const tail = `${r.stdout}${r.stderr}`.trimEnd().split('\n').slice(-15).join('\n');
      throw new SuiteError(`build step \`${cmd} ${args.join(' ')}\` failed (full log: ${log}):\n${tail}`);
    }
  }
  if (!existsSync(runner)) throw new SuiteError(`the build left no ${runner}`);
  writeFileSync(stamp, `${new Date().toISOString()} ${Math.round((Date.now() - started) / 1000)} s\n`);
  say(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return runner;
}

/**
 * `ensureBuilt(suite, ensureSource(suite))` for tests that run side by side (vitest's workers, turbo's
 * packages): the first takes the cache's lock and builds (apt, npm pack, make), the others wait on the lock and
 * then find the build. Without it two fresh runs would unpack and make into the same tree at once.
 */
export function ensureBuiltShared(suite) {
  const dir = cacheDir(suite);
  mkdirSync(dir, { recursive: true });
  // Exit 3 marks the suite's own refusal (SuiteError: no source, no build packages), anything else a bug.
  const code = `import(${JSON.stringify(import.meta.url)}).then((m) => {
    const s = m.SUITES[${JSON.stringify(suite.name)}];
    try { m.ensureBuilt(s, m.ensureSource(s)); }
    catch (e) { if (!(e instanceof m.SuiteError)) throw e; process.stderr.write(e.message); process.exit(3); }
  })`;
  const r = spawnSync(
    'flock',
    [join(dir, '.build.lock'), process.execPath, '--input-type=module', '-e', code],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'inherit', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.error !== undefined) throw new SuiteError(`flock cannot be run: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = (r.stderr ?? '').trimEnd().split('\n').slice(-15).join('\n');
    const message = `librdkafka ${suite.version} was not built (exit ${r.status}):\n${tail}`;
    throw r.status === 3 ? new SuiteError(message) : new Error(message);
  }
  return join(treeDir(suite), 'tests', 'test-runner');
}

/**
 * The built librdkafka's `src/` (librdkafka.so and rdkafka.h), under the cache's lock like ensureBuiltShared:
 * what `LD_LIBRARY_PATH` names for Debian's kcat and confluent-kafka, and what a program compiles against.
 */
export function librdkafkaLibDir(suite) {
  return join(dirname(ensureBuiltShared(suite)), '..', 'src');
}

/** Everything: the source, the build packages, the build. Returns the tests directory. */
export function prepareSuite(suite) {
  const tree = ensureSource(suite);
  ensureBuilt(suite, tree);
  return join(tree, 'tests');
}
