import { createRequire } from 'node:module';
import type * as NodeZstd from '@toondepauw/node-zstd';
// The native and pure-JS codec libraries, each loaded the first time a batch needs it: most runs of klog
// (a demo, `klog --version`, a broker whose clients send uncompressed batches) never touch one, and loading
// all four cost about 45 ms of every start (issue 44). `import type` keeps their types without the load.
import type * as Fzstd from 'fzstd';
import type * as Lz4 from 'lz4-napi';
import type * as Snappy from 'snappy';

const require = createRequire(import.meta.url);

/** A getter that loads `name` the first time it is called and keeps it. */
function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}

/** `fzstd`: zstd decompression (pure JS). */
export const fzstdLib = onFirstUse<typeof Fzstd>('fzstd');
/** `lz4-napi`: LZ4 frames, both ways. */
export const lz4Lib = onFirstUse<typeof Lz4>('lz4-napi');
/** `snappy`: raw snappy blocks, both ways. */
export const snappyLib = onFirstUse<typeof Snappy>('snappy');
/** `@toondepauw/node-zstd`: zstd compression at a level. */
export const nodeZstdLib = onFirstUse<typeof NodeZstd>('@toondepauw/node-zstd');
