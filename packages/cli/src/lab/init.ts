import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

/** The starter `klog lab init` copies: the learner's file and its README, shipped in the package's lab/. */
const STARTER = [
  { from: 'starter.ts', to: 'lab.ts' },
  { from: 'README.md', to: 'README.md' },
] as const;

/** Write the starter into `dir` (made if missing); refuses, writing nothing, if either file is there. */
export function initLab(dir: string): string[] {
  const targets = STARTER.map(({ from, to }) => ({
    from: new URL(`../../lab/${from}`, import.meta.url),
    to: join(dir, to),
  }));
  const there = targets.find((t) => existsSync(t.to));
  if (there !== undefined) {
    throw new UsageError(`lab init: ${there.to} มีอยู่แล้ว จึงไม่ได้เขียนอะไรเลย (เลือก folder อื่น)`);
  }
  mkdirSync(dir, { recursive: true });
  for (const { from, to } of targets) copyFileSync(from, to);
  return targets.map((t) => t.to);
}
