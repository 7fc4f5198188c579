/**
 * `pnpm --filter @klog/protocol generate`: writes src/apis/** from definitions/*.def.
 * `--check`: writes nothing, exits 1 naming every file that differs from what the definitions make.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.js';

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

export function readDefinitions(dir = PACKAGE_DIR) {
  return readdirSync(join(dir, 'definitions'))
    .filter((f) => f.endsWith('.def'))
    .sort()
    .map((f) => ({ path: `definitions/${f}`, text: readFileSync(join(dir, 'definitions', f), 'utf8') }));
}

/** Generated files on disk now (every .ts under src/apis but the hand-written api-codec.ts). */
export function generatedOnDisk(dir = PACKAGE_DIR): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && path !== 'src/apis/api-codec.ts') out.push(path);
    }
  };
  if (existsSync(join(dir, 'src/apis'))) walk('src/apis');
  return out.sort();
}

function main(): void {
  const check = process.argv.includes('--check');
  const files = generate(readDefinitions());
  const stale: string[] = [];
  for (const [path, content] of files) {
    const full = join(PACKAGE_DIR, path);
    const current = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
    if (current === content) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
  const extra = generatedOnDisk().filter((p) => !files.has(p));
  for (const path of extra) {
    stale.push(`${path} (no definition makes it)`);
    if (!check) rmSync(join(PACKAGE_DIR, path));
  }
  if (check) {
    if (stale.length > 0) {
      console.error(`protocol: ${stale.length} generated file(s) out of date:\n  ${stale.join('\n  ')}`);
      console.error('run: pnpm --filter @klog/protocol generate');
      process.exit(1);
    }
    console.log(`protocol: ${files.size} generated files up to date`);
  } else {
    console.log(`protocol: ${files.size} files generated, ${stale.length} changed`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
