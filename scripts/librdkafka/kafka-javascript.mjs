// @confluentinc/kafka-javascript 1.10.1, Confluent's Node client on librdkafka, for the broker's embedded
// example (packages/broker/examples/node-test-confluent.mjs). Its install script downloads a prebuilt binary
// from GitHub, which nothing here may reach, and its fallback builds its own librdkafka (about ten minutes).
// So: unpacked from npm, its dependencies installed from npm without scripts, and its binding alone compiled
// by npm's node-gyp (about 20 s) against the librdkafka 2.15.1 the suite builds (its BUILD_LIBRDKAFKA=0
// path), with that library's folders as the binding's rpath and Node's own headers (no header download).
// Cached beside the suite in ~/.cache/klog/kafka-javascript-1.10.1/package.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir, ensureBuiltShared, SUITES, SuiteError, treeDir } from './suite.mjs';

export const KAFKA_JAVASCRIPT = '@confluentinc/kafka-javascript@1.10.1';

/** The built package, ready to be linked into a project's node_modules. */
export function kafkaJavascriptDir() {
  return join(dirname(cacheDir(SUITES.npm)), 'kafka-javascript-1.10.1', 'package');
}

function say(message) {
  console.log(`kafka-javascript: ${message}`);
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) throw new SuiteError(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trimEnd().split('\n').slice(-15).join('\n');
    throw new SuiteError(`\`${cmd} ${args.join(' ')}\` exited ${r.status}\n${tail}`);
  }
  return r.stdout ?? '';
}

/** Node's headers where this Node is installed: node-gyp would otherwise download them. */
function nodeHeadersDir() {
  const prefix = dirname(dirname(process.execPath));
  if (!['node.h', 'common.gypi'].every((f) => existsSync(join(prefix, 'include', 'node', f))))
    throw new SuiteError(
      `Node's headers are not in ${prefix}/include/node, and node-gyp may not download them here: ` +
        "use a Node installed with its headers (Debian's nodejs, NodeSource's, or nodejs.org's tarball)",
    );
  return prefix;
}

/**
 * npm's own node-gyp (npm carries it to build addons), so nothing else is installed for it: where
 * `npm_config_node_gyp` says, else beside the npm that runs (found through its real path, whatever its prefix).
 */
function nodeGyp() {
  const candidates = [];
  if (process.env.npm_config_node_gyp) candidates.push(process.env.npm_config_node_gyp);
  const npmPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (npmPath !== '') {
    // …/node_modules/npm/bin/npm-cli.js → …/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js
    const npmRoot = dirname(dirname(realpathSync(npmPath)));
    candidates.push(join(npmRoot, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined)
    throw new SuiteError(`npm's node-gyp was not found (looked at ${candidates.join(', ')})`);
  return found;
}

/** The built binding loads and says which librdkafka it runs on (its rpath points into the suite's cache). */
function loadedVersion(pkg) {
  const r = spawnSync(process.execPath, ['-p', "require('.').librdkafkaVersion"], {
    cwd: pkg,
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The package with its binding built, once; returns its folder. */
export function ensureKafkaJavascript() {
  const dir = kafkaJavascriptDir();
  const stamp = join(dir, '.klog-built');
  // A stamp alone is not enough: the librdkafka its binding links to may have been removed since.
  if (existsSync(stamp) && loadedVersion(dir) === SUITES.npm.version) {
    say(`cached (${dir})`);
    return dir;
  }
  ensureBuiltShared(SUITES.npm);
  const librdkafka = treeDir(SUITES.npm);
  const headers = nodeHeadersDir();
  const gyp = nodeGyp();
  const started = Date.now();
  const work = join(dirname(dir), 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  say(`npm pack ${KAFKA_JAVASCRIPT}, its dependencies (no scripts), its binding against librdkafka 2.15.1`);
  const packed = run('npm', ['pack', '--silent', '--pack-destination', work, KAFKA_JAVASCRIPT])
    .trim()
    .split('\n')
    .pop();
  run('tar', ['-xzf', join(work, packed), '-C', work]);
  const pkg = join(work, 'package');
  run('npm', ['install', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: pkg,
  });
  const lib = [join(librdkafka, 'src'), join(librdkafka, 'src-cpp')];
  run('nice', [process.execPath, gyp, 'rebuild', `--nodedir=${headers}`, '-j', '2'], {
    cwd: pkg,
    env: {
      ...process.env,
      BUILD_LIBRDKAFKA: '0',
      CPPFLAGS: lib.map((d) => `-I${d}`).join(' '),
      LDFLAGS: lib.map((d) => `-L${d} -Wl,-rpath,${d}`).join(' '),
    },
  });
  const version = loadedVersion(pkg);
  if (version !== SUITES.npm.version)
    throw new SuiteError(`the binding loads librdkafka ${version}, not ${SUITES.npm.version}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(pkg, dir);
  rmSync(work, { recursive: true, force: true });
  writeFileSync(stamp, `${new Date().toISOString()} ${Math.round((Date.now() - started) / 1000)} s\n`);
  say(`built in ${Math.round((Date.now() - started) / 1000)} s (${dir})`);
  return dir;
}
