/**
 * `pnpm fuzz`: the dedicated fuzz run of the batch decoder, the segment reader and
 * recovery (fast-check). Prints progress, then per target: inputs, time, the slowest
 * input, the largest allocation against the input it was made for, and how inputs
 * ended. Exits 1 on the first input that breaks a rule (shrunk, with its seed).
 *
 *   pnpm fuzz [--runs 100000] [--seed N] [--max-input-ms 2000]
 *
 * `--runs` is for the decoder, the segment reader and the Produce path below the CRC
 * each; recovery, which fsyncs, gets a twentieth of it.
 */
import {
  batchDecoder,
  type Figures,
  fuzz,
  largeSegmentReader,
  produceBelowCrc,
  recovery,
  segmentReader,
  type Target,
} from './targets.js';

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

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function report(f: Figures): void {
  const perSecond = Math.round(f.inputs / (f.ms / 1000));
  console.log(`\n== ${f.target} ==`);
  console.log(
    `inputs            ${f.inputs} in ${(f.ms / 1000).toFixed(1)} s (${perSecond}/s), ${kib(f.inputBytes)} in all, largest ${kib(f.largestInput)}`,
  );
  console.log(`slowest input     ${f.slowestInputMs.toFixed(2)} ms`);
  console.log(
    `largest buffer    ${kib(f.maxAllocBytes)}, for an input of ${kib(f.maxAllocInput)} (uncompressed inputs; never more than the input)`,
  );
  console.log(`longest array     ${f.maxArrayLength} elements, for an input of ${kib(f.maxArrayInput)}`);
  const outcomes = [...f.outcomes].sort((a, b) => b[1] - a[1]);
  console.log(`outcomes          ${outcomes.length} kinds; the most common:`);
  for (const [what, n] of outcomes.slice(0, 12)) console.log(`  ${String(n).padStart(7)}  ${what}`);
}

console.log(
  `fuzz: seed ${seed}, ${runs} inputs for the decoder, the segment reader and produce below the CRC, ${Math.ceil(runs / 20)} for recovery`,
);
let failed = false;
const plan: [Target, number][] = [
  [batchDecoder, runs],
  [segmentReader, runs],
  [largeSegmentReader, Math.ceil(runs / 500)],
  [recovery, Math.ceil(runs / 20)],
  [produceBelowCrc, runs],
];
for (const [target, numRuns] of plan) {
  const step = Math.max(1, Math.floor(numRuns / 10));
  const started = performance.now();
  const figures = fuzz(target, {
    numRuns,
    seed,
    onProgress: (done) => {
      if (done % step === 0 && done <= numRuns) {
        const s = (performance.now() - started) / 1000;
        process.stdout.write(`  ${target.name}: ${done}/${numRuns} (${s.toFixed(1)} s)\n`);
      }
    },
  });
  report(figures);
  if (figures.failure !== undefined) {
    failed = true;
    console.error(`\nfuzz: ${target.name} FAILED\n${figures.failure}`);
  } else if (figures.slowestInputMs > maxInputMs) {
    failed = true;
    console.error(
      `\nfuzz: ${target.name}: an input took ${figures.slowestInputMs.toFixed(0)} ms, past --max-input-ms ${maxInputMs}: a hang?`,
    );
  }
}
console.log(
  failed
    ? '\nfuzz: FAILED'
    : '\nfuzz: every input held: no exception but DecodeError, no allocation past the input, no wrong value',
);
process.exit(failed ? 1 : 0);
