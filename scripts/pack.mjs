// The published packages as tarballs, the way npm installs them, for use before the first release
// reaches the registry:
//   pnpm build && node scripts/pack.mjs [dir]      (dir defaults to ./tarballs)
// then, in any project:  npm install <dir>/klog-core-<version>.tgz <dir>/klog-storage-<version>.tgz …
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every package under packages/ that is published (not private), in dependency order: core first. */
export function publishedPackages() {
  const found = readdirSync(join(root, 'packages'))
    .map((dir) => ({ dir: join(root, 'packages', dir) }))
    .filter(({ dir }) => existsSync(join(dir, 'package.json')))
    .map(({ dir }) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true);
  const names = new Set(found.map((p) => p.manifest.name));
  const ordered = [];
  const placed = new Set();
  while (ordered.length < found.length) {
    const next = found.find(
      (p) =>
        !placed.has(p.manifest.name) &&
        Object.keys(p.manifest.dependencies ?? {}).every((d) => !names.has(d) || placed.has(d)),
    );
    if (next === undefined) throw new Error('a dependency cycle between the published packages');
    ordered.push({ name: next.manifest.name, version: next.manifest.version, dir: next.dir });
    placed.add(next.manifest.name);
  }
  return ordered;
}

/** `pnpm pack` each published package into `dest`; returns package name → tarball path. */
export function packAll(dest) {
  mkdirSync(dest, { recursive: true });
  const tarballs = {};
  for (const { name, version, dir } of publishedPackages()) {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${name} is not built: run pnpm build first`);
    const run = spawnSync('pnpm', ['pack', '--pack-destination', dest], { cwd: dir, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`pnpm pack of ${name} failed:\n${run.stdout}${run.stderr}`);
    const file = join(dest, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
    if (!existsSync(file)) throw new Error(`pnpm pack of ${name} did not write ${file}`);
    tarballs[name] = file;
  }
  return tarballs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = resolve(process.argv[2] ?? join(root, 'tarballs'));
  try {
    const tarballs = packAll(dest);
    for (const file of Object.values(tarballs)) console.log(file);
    console.log(`\nInstall them in any project with:\n  npm install ${Object.values(tarballs).join(' ')}`);
  } catch (error) {
    console.error(`pack: ${error.message}`);
    process.exit(1);
  }
}
