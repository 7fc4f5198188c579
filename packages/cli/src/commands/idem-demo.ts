import { Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import {
  type IdemDemoOptions,
  parseNowMs,
  parsePid,
  parseSeqRange,
  prepareDataDir,
} from '../idem-demo/options.js';
import { runIdemDemo } from '../idem-demo/run.js';

const HELP_AFTER = `
The run, section by section: the three delivery meanings; filling the 5-batch
window; a lost ack and its resend (--resend); a sequence gap; the window
overflowing; a broker restart that rebuilds the producer state from the active
segment; the edges of dedup (a new producer id, the window narrowing after a roll
at segment.bytes = 256); transactions, drawn and not built.

Batches before A: sequences 0..A-1 are sent in at most four batches counted back
from A, of 1, 2 and 2 records, the first holding whatever is left; for A = 7 that
is 0..1 2..3 4..5 6..6. Every claim printed is checked while it runs; a failed
check prints what was expected and what happened, and exits with code 1.

Example (the chapter's run, byte for byte expected/07-idem.txt):
  klog idem-demo --pid 1000 --seq 7..9 --resend --now-ms 1700000000000`;

/**
 * A Ctrl-C (SIGINT) or SIGTERM must not leave a half-written temporary directory behind. The run takes
 * well under a second and removes its directory itself when it ends, so the signal is held until then:
 * once the run is over, klog exits as interrupted (130, 143) instead of being cut off mid-write.
 */
/** How long klog lingers after the run for a held signal to be delivered (when none came). */
const SIGNAL_POLL_MS = 20;

function holdInterruptsUntilExit(): { readonly release: () => void } {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => process.exit(code));
  }
  // A signal that came during the synchronous run waits for the event loop to poll for it, which a
  // process with nothing left to do never does (nor does a turn for a mere setImmediate): a short timer
  // makes the loop poll, and the poll returns at once when a signal is waiting.
  return { release: () => setTimeout(() => {}, SIGNAL_POLL_MS) };
}

export function idemDemoCommand(ctx: CommandContext): Command {
  return new Command('idem-demo')
    .description("run chapter 7's idempotent-producer lesson against real segment files")
    .addOption(new Option('--pid <id>', 'producer id (a new process gets pid + 1)').default('1000'))
    .addOption(new Option('--seq <A..B>', 'sequence range of the batch that is resent').default('7..9'))
    .option('--resend', 'resend A..B as if its ack was lost', false)
    .addOption(
      new Option(
        '--now-ms <ms>',
        'timestamp for every batch, for output that is the same on every run (default: now)',
      ),
    )
    .addOption(
      new Option(
        '--data-dir <dir>',
        'keep the partitions in DIR (new or empty) to inspect the segment files afterwards',
      ),
    )
    .addHelpText('after', HELP_AFTER)
    .action((raw: { pid: string; seq: string; resend: boolean; nowMs?: string; dataDir?: string }) => {
      const seq = parseSeqRange(raw.seq);
      const opts: IdemDemoOptions = {
        pid: parsePid(raw.pid),
        firstSeq: seq.first,
        lastSeq: seq.last,
        resend: raw.resend,
        nowMs: raw.nowMs === undefined ? Date.now() : parseNowMs(raw.nowMs),
        dataDir: raw.dataDir === undefined ? undefined : prepareDataDir(raw.dataDir),
      };
      const held = holdInterruptsUntilExit();
      try {
        runIdemDemo(opts, ctx.out, ctx.style);
      } finally {
        held.release();
      }
      if (opts.dataDir !== undefined)
        ctx.err(`klog: the partitions are in ${opts.dataDir} (orders-0, narrow-0)`);
    });
}
