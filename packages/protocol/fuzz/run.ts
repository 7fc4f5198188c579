/**
 * `pnpm fuzz` (with the storage targets) or `pnpm --filter @klog/protocol fuzz`: the request decoders
 * and the frame splitter on random, valid and broken requests (fast-check). Prints progress, then per
 * target: inputs, time, the slowest input and how inputs ended. Exits 1 on the first input that breaks a
 * rule (shrunk, with its seed).
 *
 *   pnpm --filter @klog/protocol fuzz [--runs 100000] [--seed N] [--max-input-ms 2000]
 */
import { type Figures, frameDecoder, fuzz, requestDecoder, type Target } from './targets.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`fuzz: --${name} ${process.argv[i + 1] ?? ''}: expected a whole number`);
    process.exit(2);
  }
  return value;
}

const runs = flag('runs', 100_000);
const seed = flag('seed', Date.now() % 2 ** 31);
const maxInputMs = flag('max-input-ms', 2000);

function report(f: Figures): void {
  console.log(`\n== ${f.target} ==`);
  console.log(
    `inputs            ${f.inputs} in ${(f.ms / 1000).toFixed(1)} s (${Math.round(f.inputs / (f.ms / 1000))}/s), largest ${f.largestInput} B`,
  );
  console.log(`slowest input     ${f.slowestInputMs.toFixed(2)} ms`);
  const outcomes = [...f.outcomes].sort((a, b) => b[1] - a[1]);
  console.log(`outcomes          ${outcomes.length} kinds; the most common:`);
  for (const [what, n] of outcomes.slice(0, 15)) console.log(`  ${String(n).padStart(7)}  ${what}`);
}

console.log(`fuzz @klog/protocol: seed ${seed}, ${runs} inputs per target`);
let failed = false;
for (const target of [requestDecoder, frameDecoder] as Target[]) {
  const step = Math.max(1, Math.floor(runs / 10));
  const started = performance.now();
  const figures = fuzz(target, {
    numRuns: runs,
    seed,
    onProgress: (done) => {
      if (done % step === 0)
        console.log(
          `  ${target.name}: ${done}/${runs} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
        );
    },
  });
  report(figures);
  if (figures.failure !== undefined) {
    failed = true;
    console.error(`\nfuzz: ${target.name} FAILED\n${figures.failure}`);
  } else if (figures.slowestInputMs > maxInputMs) {
    failed = true;
    console.error(
      `\nfuzz: ${target.name}: an input took ${figures.slowestInputMs.toFixed(0)} ms, past --max-input-ms ${maxInputMs}`,
    );
  }
}
process.exit(failed ? 1 : 0);
