import { readFileSync, writeSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { type CommandContext, onTerminal } from './command-context.js';
import { ackLossDemoCommand } from './commands/ack-loss-demo.js';
import { dumpLogCommand } from './commands/dump-log.js';
import { groupsCommand } from './commands/groups.js';
import { idemDemoCommand } from './commands/idem-demo.js';
import { labCommand, thaiHelp } from './commands/lab.js';
import { modelCheckCommand } from './commands/model-check.js';
import { serveCommand } from './commands/serve.js';
import { topicsCommand } from './commands/topics.js';
import {
  CheckFailed,
  CorruptData,
  Inconclusive,
  InvariantBroken,
  OutputClosed,
  UsageError,
} from './errors.js';
import { KAFKA_TOOLS, kafkaTool, runKafkaTool } from './kafka-tools/index.js';
import { colorEnabled, createStyle } from './style.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Exit code when the reader closed the output: 128 + SIGPIPE, what a shell shows for a process SIGPIPE ended. */
export const EXIT_OUTPUT_CLOSED = 141;

/**
 * Every byte klog prints goes through here, written with `fs.writeSync` to the file
 * descriptor, never through `process.stdout`. A stream queues what a slow reader
 * (`| less`) has not taken yet and reports a closed pipe later, as an 'error' event
 * with a stack trace; klog works synchronously, so it would hold the whole dump in
 * memory and carry on for no one. Written this way, a full pipe makes klog wait for
 * its reader, and a reader that has gone (`| head -2`: EPIPE, since Node ignores
 * SIGPIPE) stops the command at once with OutputClosed. stdout is never touched as a
 * stream (that would put the pipe in non-blocking mode); if something else did, a
 * full pipe answers EAGAIN, and the write waits and tries again. On stderr a failed
 * write has nowhere to be reported, so it is dropped.
 */
export function createOutput(stdoutFd = 1, stderrFd = 2) {
  let closed = false;
  return {
    out(text: string): void {
      if (closed) throw new OutputClosed();
      try {
        writeAll(stdoutFd, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
        closed = true;
        throw new OutputClosed();
      }
    },
    err(text: string): void {
      try {
        writeAll(stderrFd, text);
      } catch {
        // Nowhere left to say it.
      }
    },
  };
}

const waitCell = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(waitCell, 0, 0, 2);
    }
  }
}

export function buildProgram(ctx: CommandContext, output = createOutput()): Command {
  // Commander's own errors (an unknown option or command, a missing argument) become one line, like every
  // other error klog prints: the message, its "did you mean" if there is one, and where the usage is.
  // Its output goes through klog's output path like everything else.
  const errorsAsOneLine = (usage: string) => ({
    writeOut: (text: string) => output.out(text),
    writeErr: (text: string) => output.err(text),
    // Commander's own width when not on a terminal is 80.
    getOutHelpWidth: () => (onTerminal(1) ? process.stdout.columns : 80),
    getErrHelpWidth: () => (onTerminal(2) ? process.stderr.columns : 80),
    getOutHasColors: () => onTerminal(1) && process.stdout.hasColors(),
    getErrHasColors: () => onTerminal(2) && process.stderr.hasColors(),
    outputError: (text: string) => {
      const message = text
        .replace(/^error: /, '')
        .trim()
        .replace(/\s*\n\s*/g, ' ');
      ctx.err(`klog: ${message} (see ${usage})`);
    },
  });
  const program = new Command('klog')
    .description("kaen-log: the log broker of a Thai course on Kafka's internals")
    .version(version(), '-V, --version')
    .exitOverride()
    .configureOutput(errorsAsOneLine('klog --help'));
  for (const command of [
    idemDemoCommand(ctx),
    ackLossDemoCommand(ctx),
    dumpLogCommand(ctx),
    modelCheckCommand(ctx),
    labCommand(ctx),
    serveCommand(ctx),
    topicsCommand(ctx),
    groupsCommand(ctx),
  ]) {
    command.copyInheritedSettings(program).configureOutput(errorsAsOneLine(`klog ${command.name()} --help`));
    // The program's English help settings were just copied over the lab's Thai ones.
    if (command.name() === 'lab') thaiHelp(command);
    program.addCommand(command);
  }
  // Kafka's tools are listed here for `klog --help`; main() runs them before commander sees their
  // options, which are Kafka's (jopt-simple's), not klog's.
  for (const [name, tool] of KAFKA_TOOLS) {
    program.addCommand(
      new Command(name)
        .description(`${tool.description}: \`klog ${name} --help\` lists its options`)
        .helpOption(false)
        .allowUnknownOption()
        .argument('[options...]'),
    );
  }
  return program;
}

/** Run klog with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // Output goes out in chunks as it is made (a long dump shows progress and holds no more than a chunk),
  // and everything printed so far is flushed before an error line.
  const output = createOutput();
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text.length > 0) output.out(text);
  };
  const ctx: CommandContext = {
    out: (line) => {
      pending += `${line}\n`;
      if (pending.length >= 64 * 1024) flush();
    },
    err: (line) => {
      flush();
      output.err(`${line}\n`);
    },
    log: (line) => {
      try {
        flush();
        output.out(`${line}\n`);
      } catch (error) {
        if (!(error instanceof OutputClosed)) throw error;
      }
    },
    flush,
    style: createStyle(colorEnabled({ isTTY: onTerminal(1) }, process.env)),
  };
  try {
    const tool = kafkaTool(argv[0]);
    if (tool !== undefined) {
      try {
        return await runKafkaTool(tool, argv.slice(1), ctx);
      } finally {
        flush();
      }
    }
    try {
      await buildProgram(ctx, output).parseAsync(argv, { from: 'user' });
    } finally {
      flush();
    }
    return 0;
  } catch (error) {
    if (error instanceof OutputClosed) return EXIT_OUTPUT_CLOSED;
    try {
      flush();
    } catch (closed) {
      if (!(closed instanceof OutputClosed)) throw closed;
    }
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
