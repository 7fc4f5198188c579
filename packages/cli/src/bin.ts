#!/usr/bin/env node
import { main } from './program.js';

// `pnpm klog …` runs this in the workspace root, whatever folder it was typed in; pnpm (like npm) says which
// folder that was in INIT_CWD. Paths on the command line (`pnpm klog lab check` in a lab folder) are the
// user's, so they are read from there.
if (process.env['npm_lifecycle_event'] === 'klog' && process.env['INIT_CWD']) {
  process.chdir(process.env['INIT_CWD']);
}

// No top-level await: this is also the entry of the CommonJS bundle (scripts/bundle.mjs).
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
