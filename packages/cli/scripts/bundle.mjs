// Builds dist/klog.js, the one file bin/klog.js runs: the CLI and the @klog packages it uses (broker,
// storage, protocol, model, core) bundled with esbuild. Loading ~390 module files cost most of klog's
// start (issue 44: compiling, opening and stat-ing each one); one file costs one. The tsc output next to it
// stays: worker threads and `klog serve` children of the demos start from dist/lab, dist/bin.js.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, sep } from 'node:path';
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
      const requireFrom = createRequire(import.meta.resolve(`@klog/${owner}`));
      const names = Object.keys(requireFrom(name));
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
const ownUrl = {
  name: 'klog-own-url',
  setup(b) {
    b.onLoad({ filter: /\.[jt]s$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
      let url;
      if (args.path.startsWith(cliSource)) {
        url = `new URL(${JSON.stringify(`./${relative(cliSource, args.path).slice(0, -3).split(sep).join('/')}.js`)}, import.meta.url).href`;
      } else {
        const owner = klogPackage.exec(args.path)?.[1];
        if (owner === undefined) throw new Error(`import.meta.url in ${args.path}`);
        const inDist = relative(
          `${args.path.slice(0, args.path.search(klogPackage))}${sep}packages${sep}${owner}${sep}dist`,
          args.path,
        );
        url = `new URL(${JSON.stringify(`./${inDist.split(sep).join('/')}`)}, import.meta.resolve(${JSON.stringify(`@klog/${owner}`)})).href`;
      }
      return { contents: text.replaceAll('import.meta.url', url), loader };
    });
  },
};

mkdirSync(`${root}dist`, { recursive: true });
await build({
  entryPoints: [`${root}src/bin.ts`],
  outfile: `${root}dist/klog.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
  banner: {
    js: [
      "import { createRequire as __klogCreateRequire } from 'node:module';",
      // For the bundled CommonJS packages (commander): their require('events') of Node's own modules.
      'const require = __klogCreateRequire(import.meta.url);',
      // A require that resolves from where another @klog package is installed (see klog-externals).
      'const __klogRequireFrom = (name) => __klogCreateRequire(import.meta.resolve(name));',
    ].join('\n'),
  },
  plugins: [externals, ownUrl],
});
