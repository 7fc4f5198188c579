// Builds dist/klog.cjs, the one file bin/klog.js runs: the CLI and the @klog packages it uses (broker,
// storage, protocol, model, core) bundled with esbuild. Loading ~390 module files cost most of klog's
// start (issue 44: compiling, opening and stat-ing each one); one file costs one. The tsc output next to it
// stays: worker threads and `klog serve` children of the demos start from dist/lab, dist/bin.js.
//
// CommonJS, not ESM (issue 44, profiled): an ES module's `import ... from 'node:fs'` builds a facade that
// reads every export of the builtin (fs's lazy streams included), and Node 20 keeps no compiled code for an
// ES module. A CommonJS body can be compiled through vm.Script with V8's code cache, which this script
// writes (dist/klog.cjs.cache) from a `klog serve` start, so bin/klog.js skips most of compiling ~1 MB.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const klogPackage = /[/\\]packages[/\\](broker|storage|protocol|model|core)[/\\]/;
const cliSource = `${root}src${sep}`;

/**
 * Other packages are not bundled (kafkajs, jiti, the native codecs): the CLI's own resolve from its folder;
 * those of another @klog package are not the CLI's dependencies, so they are required from where that
 * package is installed, as its own code would (pnpm gives each package only its declared dependencies).
 */
/** The CLI's pure-JS dependencies that every run loads: bundled too. */
const bundled = new Set(['commander', 'picocolors']);

const requireFromOwner = (owner) => createRequire(import.meta.resolve(`@klog/${owner}`));

/**
 * fs-native-extensions finds its prebuilt addon through a resolver written for two runtimes (which-runtime,
 * require-addon, bare-addon-resolve, bare-module-resolve, bare-semver: 14 module files), which cost a
 * `klog serve` about 5 MiB of RSS and 20 ms before it could take its data directory's lock (profiled,
 * issue 44). The lock needs two calls of the addon, so the bundle loads the addon from the package's
 * prebuilds/ folder itself and makes those two calls as the package's index.js documents them
 * (binding.tryLock(fd, offset, length, exclusive) throws EAGAIN when refused; binding.unlock(fd, offset,
 * length)). A platform with no prebuild, and any other export, load the package as it is.
 */
function directLock(owner, requireFrom) {
  const names = Object.keys(requireFrom('fs-native-extensions')).filter(
    (n) => n !== 'tryLock' && n !== 'unlock',
  );
  return `
let binding;
let whole;
const from = __klogRequireFrom(${JSON.stringify(`@klog/${owner}`)});
const full = () => (whole ??= from('fs-native-extensions'));
const addon = () => {
  if (binding === undefined) {
    try {
      binding = from(\`fs-native-extensions/prebuilds/\${process.platform}-\${process.arch}/fs-native-extensions.node\`);
    } catch {
      binding = null;
    }
  }
  return binding;
};
module.exports = {
  tryLock(fd, options) {
    const b = addon();
    if (b === null) return full().tryLock(fd, options);
    try {
      b.tryLock(fd, 0, 0, options?.shared !== true);
    } catch (error) {
      if (error.code === 'EAGAIN') return false;
      throw error;
    }
    return true;
  },
  unlock(fd) {
    const b = addon();
    if (b === null) return full().unlock(fd);
    b.unlock(fd, 0, 0);
  },
  ${names.map((n) => `get ${JSON.stringify(n)}() { return full()[${JSON.stringify(n)}]; },`).join('\n  ')}
};`;
}

const externals = {
  name: 'klog-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.path.startsWith('@klog/')) return undefined;
      const owner = klogPackage.exec(args.importer)?.[1];
      if (owner === undefined)
        return bundled.has(args.path) ? undefined : { path: args.path, external: true };
      return { path: `${owner}|${args.path}`, namespace: 'klog-dep' };
    });
    // Loaded on first use, not when the bundle starts: fs-native-extensions alone is 15 module files, and
    // most runs (`klog --version`, a broker before its first batch) need none of these. The names are known
    // here, so each becomes a getter that loads the package when one is first read.
    b.onLoad({ filter: /.*/, namespace: 'klog-dep' }, (args) => {
      const [owner, name] = args.path.split('|');
      if (name === 'fs-native-extensions')
        return { contents: directLock(owner, requireFromOwner(owner)), loader: 'js' };
      const names = Object.keys(requireFromOwner(owner)(name));
      const getters = names.map(
        (key) => `get ${JSON.stringify(key)}() { return load()[${JSON.stringify(key)}]; },`,
      );
      return {
        contents: [
          'let loaded;',
          `const load = () => (loaded ??= __klogRequireFrom(${JSON.stringify(`@klog/${owner}`)})(${JSON.stringify(name)}));`,
          `module.exports = { ${getters.join(' ')} };`,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * `import.meta.url` in a bundled module would be the bundle's URL; each module that uses it (the lab's
 * worker and template paths, the demos' child processes, the codecs' require) gets the URL its own file
 * has in the tsc output instead, so the paths it makes from it stay right.
 */
const dynamicImport = /(?<!typeof )\bimport\(/g;
const hasDynamicImport = (text) => /(?<!typeof )\bimport\(/.test(text);

const ownUrl = {
  name: 'klog-own-url',
  setup(b) {
    b.onLoad({ filter: /\.[jt]s$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      let text = await readFile(args.path, 'utf8');
      const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
      // A script compiled by vm.Script has no import() of its own (Node 20 asks for
      // --experimental-vm-modules); bin/klog.js hands the bundle one (__klogImport). Types keep theirs.
      if (hasDynamicImport(text)) text = text.replace(dynamicImport, '__klogImport(');
      if (!text.includes('import.meta.url')) return { contents: text, loader };
      let url;
      if (args.path.startsWith(cliSource)) {
        url = `new URL(${JSON.stringify(`./${relative(cliSource, args.path).slice(0, -3).split(sep).join('/')}.js`)}, __klogBundleUrl).href`;
      } else {
        const owner = klogPackage.exec(args.path)?.[1];
        if (owner === undefined) throw new Error(`import.meta.url in ${args.path}`);
        const inDist = relative(
          `${args.path.slice(0, args.path.search(klogPackage))}${sep}packages${sep}${owner}${sep}dist`,
          args.path,
        );
        url = `new URL(${JSON.stringify(`./${inDist.split(sep).join('/')}`)}, __klogResolve(${JSON.stringify(`@klog/${owner}`)})).href`;
      }
      return { contents: text.replaceAll('import.meta.url', url), loader };
    });
  },
};

mkdirSync(`${root}dist`, { recursive: true });
const bundle = `${root}dist/klog.cjs`;
await build({
  entryPoints: [`${root}src/bin.ts`],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
  banner: {
    js: [
      // The URL the bundle's modules are resolved against (klog-own-url), and another @klog package's
      // entry as a URL and as a require (klog-externals). Named apart: bundled modules declare their own
      // \`require\`.
      "const __klogUrl = require('node:url');",
      'const __klogBundleUrl = __klogUrl.pathToFileURL(__filename).href;',
      'const __klogResolve = (name) => __klogUrl.pathToFileURL(require.resolve(name)).href;',
      "const __klogRequireFrom = (name) => require('node:module').createRequire(require.resolve(name));",
      // bin/klog.js passes its import() as the wrapper's sixth parameter (the bundle is run through it).
      "const __klogImport = typeof __klogImportFromBin === 'function' ? __klogImportFromBin : (s) => Promise.reject(new Error(s + ': run klog as bin/klog.js'));",
    ].join('\n'),
  },
  plugins: [externals, ownUrl],
});

/**
 * V8's code cache for the bundle, taken from a real `klog serve` start (bin/klog.js writes it on exit when
 * KLOG_WRITE_CODE_CACHE names a file): it then holds the functions a start compiles, not only the top level.
 * V8 checks it against the source and its own version and flags; a cache that does not fit is ignored and
 * the bundle compiled as usual, so a Node other than the one that built it only starts slower.
 */
async function writeCodeCache() {
  const dataDir = mkdtempSync(join(tmpdir(), 'klog-code-cache-'));
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [`${root}bin/klog.js`, 'serve', '--port', '0', '--data-dir', dataDir],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, KLOG_WRITE_CODE_CACHE: `${bundle}.cache` },
        },
      );
      let seen = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        seen += chunk;
        if (seen.includes('listening on')) child.kill('SIGTERM');
      });
      child.once('error', reject);
      // Whatever its exit code: the cache is written on exit, or is missing and said so below.
      child.once('exit', () => resolve());
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (hasDynamicImport(readFileSync(bundle, 'utf8'))) {
  throw new Error(`${bundle} has an import() that bin/klog.js's vm.Script cannot run`);
}
rmSync(`${bundle}.cache`, { force: true });
await writeCodeCache();
if (!existsSync(`${bundle}.cache`)) {
  process.stderr.write('bundle: no code cache was written; klog will compile its bundle on every start\n');
}
