import { createRequire } from 'node:module';
import type * as NodeZstd from '@toondepauw/node-zstd';
// The native and pure-JS codec libraries, each loaded the first time a batch needs it: most runs of klog
// (a demo, `klog --version`, a broker whose clients send uncompressed batches) never touch one, and loading
// all four cost about 45 ms of every start (issue 44). `import type` keeps their types without the load.
import type * as Fzstd from 'fzstd';
import type * as Lz4 from 'lz4-napi';
import type * as Snappy from 'snappy';

const require = createRequire(import.meta.url);

let fzstd: typeof Fzstd | undefined;
let lz4: typeof Lz4 | undefined;
let snappy: typeof Snappy | undefined;
let nodeZstd: typeof NodeZstd | undefined;

/** `fzstd`: zstd decompression (pure JS). */
export function fzstdLib(): typeof Fzstd {
  fzstd ??= require('fzstd') as typeof Fzstd;
  return fzstd;
}

/** `lz4-napi`: LZ4 frames, both ways. */
export function lz4Lib(): typeof Lz4 {
  lz4 ??= require('lz4-napi') as typeof Lz4;
  return lz4;
}

/** `snappy`: raw snappy blocks, both ways. */
export function snappyLib(): typeof Snappy {
  snappy ??= require('snappy') as typeof Snappy;
  return snappy;
}

/** `@toondepauw/node-zstd`: zstd compression at a level. */
export function nodeZstdLib(): typeof NodeZstd {
  nodeZstd ??= require('@toondepauw/node-zstd') as typeof NodeZstd;
  return nodeZstd;
}
