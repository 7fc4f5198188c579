#!/usr/bin/env node
// The `klog` command as package managers link it. A fixed file rather than dist/klog.js itself, so that
// the link exists before the TypeScript is compiled: in the repository `pnpm install` runs before
// `pnpm build`, and a bin that points at a missing file makes pnpm warn on every install.
// dist/klog.js is the whole CLI in one file (scripts/bundle.mjs): start-up is mostly module loading (issue 44).
import { existsSync } from 'node:fs';

const built = new URL('../dist/klog.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('klog: the CLI is not built yet; run `pnpm build` in the repository first\n');
  process.exit(1);
}
await import(built.href);
