import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { dumpLogCommand } from './commands/dump-log.js';
import { idemDemoCommand } from './commands/idem-demo.js';
import { modelCheckCommand } from './commands/model-check.js';
import { CheckFailed, CorruptData, Inconclusive, InvariantBroken, UsageError } from './errors.js';
import { colorEnabled, createStyle, type Style } from './style.js';

/** What a command needs from the outside world: where to print, and how. */
export interface CommandContext {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly style: Style;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('klog')
    .description("kaen-log: the log broker of a Thai course on Kafka's internals")
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      // Commander's own errors become one line naming the problem.
      outputError: (text) => ctx.err(`klog: ${text.replace(/^error: /, '').trimEnd()}`),
    });
  for (const command of [idemDemoCommand(ctx), dumpLogCommand(ctx), modelCheckCommand(ctx)]) {
    program.addCommand(command.copyInheritedSettings(program));
  }
  return program;
}

/** Run klog with `argv` (without node and the script); returns the exit code. */
export function main(argv: string[]): number {
  // Output goes out in chunks as it is made (a long dump shows progress and holds no more than a chunk),
  // and everything printed so far is flushed before an error line.
  let pending = '';
  const flush = () => {
    if (pending.length > 0) process.stdout.write(pending);
    pending = '';
  };
  const ctx: CommandContext = {
    out: (line) => {
      pending += `${line}\n`;
      if (pending.length >= 64 * 1024) flush();
    },
    err: (line) => {
      flush();
      process.stderr.write(`${line}\n`);
    },
    style: createStyle(colorEnabled(process.stdout, process.env)),
  };
  try {
    buildProgram(ctx).parse(argv, { from: 'user' });
    flush();
    return 0;
  } catch (error) {
    flush();
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      ctx.err(`klog: ${error.message}`);
      return 2;
    }
    if (error instanceof Inconclusive) {
      ctx.err(`klog: ${error.message}`);
      return 3;
    }
    if (error instanceof CorruptData || error instanceof InvariantBroken) {
      ctx.err(`klog: ${error.message}`);
      return 1;
    }
    if (error instanceof CheckFailed) {
      ctx.err(`klog: ${error.message}`);
      if (error.keptAt !== undefined) ctx.err(`klog: the partitions are kept in ${error.keptAt}`);
      return 1;
    }
    ctx.err(`klog: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
