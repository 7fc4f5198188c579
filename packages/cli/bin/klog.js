#!/usr/bin/env node
// The `klog` command as package managers link it. A fixed file rather than the bundle itself, so that
// the link exists before the TypeScript is compiled: in the repository `pnpm install` runs before
// `pnpm build`, and a bin that points at a missing file makes pnpm warn on every install.
// dist/klog.cjs is the whole CLI in one CommonJS file (scripts/bundle.mjs): start-up is mostly loading and
// compiling it (issue 44), so it is compiled here with V8's code cache (dist/klog.cjs.cache) when that fits.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const bundle = fileURLToPath(new URL('../dist/klog.cjs', import.meta.url));
let source;
try {
  source = readFileSync(bundle, 'utf8');
} catch {
  process.stderr.write('klog: the CLI is not built yet; run `pnpm build` in the repository first\n');
  process.exit(1);
}
let cachedData;
try {
  cachedData = readFileSync(`${bundle}.cache`);
} catch {
  // No cache (a build that did not write one): compiled as usual.
}
// The bundle keeps bin.ts's #! line, which is only valid as a file's first characters (the wrapper's are not).
// CommonJS's wrapper, and a sixth parameter: this module's import(), for the bundle's import() of kafkajs and
// @platformatic/kafka (a vm.Script has none without --experimental-vm-modules). bin/ and dist/ are in the same
// package, so a package name resolves from here as from the bundle.
const wrapped = `(function (exports, require, module, __filename, __dirname, __klogImportFromBin) { ${source.replace(/^#!/, '//')}\n});`;
const script = new Script(wrapped, { filename: bundle, cachedData });
const cacheOut = process.env.KLOG_WRITE_CODE_CACHE;
if (cacheOut !== undefined) {
  // The build's cache run (scripts/bundle.mjs): everything compiled by the time klog exits.
  process.once('exit', () => writeFileSync(cacheOut, script.createCachedData()));
}
const module = { exports: {} };
script.runInThisContext()(
  module.exports,
  createRequire(bundle),
  module,
  bundle,
  dirname(bundle),
  (specifier) => import(specifier),
);
