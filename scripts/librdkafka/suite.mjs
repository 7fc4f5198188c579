// Gets and builds librdkafka's test suite from Debian's source package (the librdkafka under Debian's
// kcat and python3-confluent-kafka), cached outside the repository by version: nothing of it is committed.
// Each step checks first and skips what is present, so a second run only verifies.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const LIBRDKAFKA_VERSION = '2.0.2';
/** Debian's revision of it (bookworm); `apt-get source` is pinned to it. */
export const DEBIAN_VERSION = `${LIBRDKAFKA_VERSION}-1`;
/** What building librdkafka and its tests needs from Debian (its Build-Depends without debhelper, which
 * only the .deb packaging uses; dpkg-dev unpacks the source; iproute2 brings loopback up in the
 * network namespace the suite runs in). */
export const BUILD_PACKAGES = [
  'build-essential',
  'dpkg-dev',
  'python3',
  'liblz4-dev',
  'libsasl2-dev',
  'libssl-dev',
  'libzstd-dev',
  'rapidjson-dev',
  'zlib1g-dev',
  'iproute2',
];
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

export function cacheDir() {
  const base =
    process.env.KLOG_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'klog');
  return join(base, `librdkafka-${LIBRDKAFKA_VERSION}`);
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

function sourceAvailable() {
  return (capture('apt-cache', ['showsrc', 'librdkafka']) ?? '').includes(`Version: ${DEBIAN_VERSION}`);
}

/** A deb-src entry for Debian's own repository, matching the machine's release and mirror. */
export function ensureDebSrc() {
  if (sourceAvailable()) return say(`deb-src present (librdkafka ${DEBIAN_VERSION})`);
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
  if (!sourceAvailable()) {
    throw new SuiteError(
      `apt has no source of librdkafka ${DEBIAN_VERSION} (Debian ${codename}): the suite is pinned to it`,
    );
  }
}

export function ensureBuildPackages() {
  const missing = BUILD_PACKAGES.filter(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
    (p) => capture('dpkg-query', ['-W', '-f=${Status}', p]) !== 'install ok installed',
  );
  if (missing.length === 0) return say('build packages present');
  say(`installing ${missing.join(' ')} (apt)`);
  aptGet(['update', '-qq']);
  aptGet(['install', '-y', '-qq', ...missing]);
}

/** The unpacked source tree, fetched with `apt-get source` into the cache when missing. */
export function ensureSource(dir = cacheDir()) {
  const tree = join(dir, `librdkafka-${LIBRDKAFKA_VERSION}`);
  if (existsSync(join(tree, 'tests', 'test.c'))) return tree;
  ensureDebSrc();
  mkdirSync(dir, { recursive: true });
  say(`apt-get source librdkafka=${DEBIAN_VERSION} (into ${dir})`);
  run('apt-get', ['source', '-qq', `librdkafka=${DEBIAN_VERSION}`], { cwd: dir, quiet: true });
  if (!existsSync(join(tree, 'tests', 'test.c')))
    throw new SuiteError(`apt-get source left no ${tree}/tests`);
  return tree;
}

/** librdkafka and tests/test-runner, built once per cache (rebuilt when the binary is missing). */
export function ensureBuilt(tree) {
  const runner = join(tree, 'tests', 'test-runner');
  const stamp = join(tree, '.klog-built');
  if (existsSync(runner) && existsSync(stamp)) {
    say(`test-runner cached (${runner})`);
    return runner;
  }
  ensureBuildPackages();
  const started = Date.now();
  say(
    `building librdkafka ${LIBRDKAFKA_VERSION} and its test-runner (a few minutes; log in ${tree}/build.log)`,
  );
  rmSync(stamp, { force: true });
  const log = join(tree, 'build.log');
  const steps = [
    ['./configure', ['--disable-valgrind']],
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

/** Everything: deb-src, build packages, source, build. Returns the tests directory. */
export function prepareSuite() {
  const tree = ensureSource();
  ensureBuilt(tree);
  return join(tree, 'tests');
}
