import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Bad arguments: the script prints one line and its usage line, and exits 2 (no stack trace). */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
/** What the options parse to: a flag a boolean, any other a string; absent when not given. */
export type BenchArgs<O extends Options> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string;
};

/**
 * The bench scripts' arguments, parsed strictly (an unknown option or a stray word is a UsageError);
 * `--help` / `-h` prints the usage and exits 0 before anything is measured.
 */
export function parseBenchArgs<O extends Options>(argv: string[], usage: string, options: O): BenchArgs<O> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (values['help'] === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as BenchArgs<O>;
}

/** Runs a bench script's main: a UsageError is one line plus the usage line (exit 2), any other error one line (exit 1). */
export async function runBenchMain(name: string, usage: string, main: () => unknown): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${name}: ${error.message}\n${usage.split('\n')[0]}\n`);
      process.exit(2);
    }
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
