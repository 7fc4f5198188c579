import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The codec libraries are loaded on first use (src/format/codecs.ts): importing storage loads none of them,
// and a batch in a codec loads that codec's library alone. Checked in a fresh process over the built
// package, as a program importing @klog/storage meets it.
const LIBRARIES =
  /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(snappy|lz4-napi|fzstd|@toondepauw\/node-zstd)\//;

function loadedAfter(script: string): string[] {
  const program = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const storage = await import(${JSON.stringify(new URL('../../dist/internals.js', import.meta.url).href)});
    ${script}
    const seen = new Set();
    for (const path of Object.keys(require.cache)) {
      const m = ${LIBRARIES}.exec(path);
      if (m !== null) seen.add(m[1]);
    }
    console.log(JSON.stringify([...seen].sort()));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as string[];
}

describe('codec libraries load on first use', () => {
  it('importing storage loads no codec library', () => {
    expect(loadedAfter('')).toEqual([]);
  }, 60_000);

  it('an lz4 round trip loads lz4-napi alone; zstd loads its two libraries', () => {
    const plain = 'new Uint8Array(4096).fill(7)';
    expect(
      loadedAfter(`storage.decompressRecords('lz4', storage.compressRecords('lz4', ${plain}), 1 << 20);`),
    ).toEqual(['lz4-napi']);
    expect(
      loadedAfter(`storage.decompressRecords('zstd', storage.compressRecords('zstd', ${plain}), 1 << 20);`),
    ).toEqual(['@toondepauw/node-zstd', 'fzstd']);
  }, 60_000);
});
