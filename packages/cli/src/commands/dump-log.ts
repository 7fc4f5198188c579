import { basename } from 'node:path';
import { Command } from 'commander';
import { dumpLog } from '../dump-log/dump.js';
import { planDump } from '../dump-log/segment-files.js';
import { CorruptData } from '../errors.js';
import type { CommandContext } from '../program.js';

const HELP_AFTER = `
Prints each batch as Kafka's kafka-dump-log.sh --print-data-log does: base and
last offset, record count, base and last sequence, producer id and epoch, leader
epoch, flags, byte position, timestamp, size, magic, compression, the stored CRC
and whether the bytes match it (isvalid). --records adds a line per record, with
its key and value (as UTF-8; control characters escaped).

It only reads: nothing is repaired. A bad batch whose length still leads to the
next is printed and flagged (isvalid: false, or a "problem:" line), and the dump
goes on; where no whole batch can be found it stops and says at which byte and why.
A directory is dumped segment by segment, in offset order; the bytes recovery cut
and saved next to a segment (<segment>.log.dropped-<position>) are listed, and can
be dumped by path.

Exit codes: 0 all batches valid, 1 corrupt data found, 2 bad usage (a missing path).

Example:
  klog idem-demo --now-ms 1700000000000 --data-dir /tmp/klog-data
  klog dump-log /tmp/klog-data/orders-0 --records`;

export function dumpLogCommand(ctx: CommandContext): Command {
  return new Command('dump-log')
    .description('print the batches of a segment file or a partition directory, as kafka-dump-log.sh does')
    .argument('<path...>', 'a segment file (<20-digit offset>.log) or a partition directory')
    .option(
      '--records',
      'print every record too, with key and value (kafka-dump-log --print-data-log)',
      false,
    )
    .addHelpText('after', HELP_AFTER)
    .action((paths: string[], raw: { records: boolean }) => {
      const plan = planDump(paths);
      const findings = dumpLog(plan, { records: raw.records }, ctx.out, ctx.style);
      if (findings.length > 0) {
        const first = findings[0]!;
        const files = new Set(findings.map((f) => f.file)).size;
        throw new CorruptData(
          `dump-log: corrupt data: ${findings.length} problem${findings.length === 1 ? '' : 's'} in ` +
            `${files} of ${plan.files.length} file${plan.files.length === 1 ? '' : 's'}; the first: ` +
            `${basename(first.file)} ${first.error.field} at byte ${first.error.offset}: ${first.error.reason}`,
        );
      }
    });
}
