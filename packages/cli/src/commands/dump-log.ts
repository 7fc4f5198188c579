import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { MAX_READABLE_BATCH_BYTES } from '@klog/storage/internals';
import { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { dumpLog, type RecordsShown } from '../dump-log/dump.js';
import { dumpIndexFile, type IndexMode, indexFilesIn, isIndexFile } from '../dump-log/index-files.js';
import { planDump } from '../dump-log/segment-files.js';
import { CorruptData, UsageError } from '../errors.js';

const HELP_AFTER = `
Prints each batch as Kafka's kafka-dump-log.sh --print-data-log does: base and
last offset, record count, base and last sequence, producer id and epoch, leader
epoch, flags, byte position, timestamp, size, magic, compression, the stored CRC
and whether the bytes match it (isvalid). --records adds a line per record, with
its key and value (as UTF-8; control characters escaped); --deep-iteration adds the
record lines without key and value, and names offsets that do not follow on.

Compressed batches (gzip, snappy, lz4, zstd, as Kafka's clients write them) are
printed like any other; their records are decompressed to be checked and shown.

It only reads: nothing is repaired. A bad batch whose length still leads to the
next is printed and flagged (isvalid: false, or a "problem:" line, e.g. for a
64-bit field no number can hold, printed exactly as stored), and the dump goes on;
where no whole batch can be found it stops and says at which byte and why.
A directory is dumped segment by segment, in offset order; the bytes recovery cut
and saved next to a segment (<segment>.log.dropped-<position>) are listed, and can
be dumped by path. A file whose name does not end in .log is not read, as Kafka's
tool does ("Ignoring unknown file" on stderr); one named like a segment that is not
a regular file (a FIFO) is never opened, and is a problem. Batches up to
${MAX_READABLE_BATCH_BYTES} bytes are read, the one limit every reader of a klog log
uses (the maxBatchBytes setting limits appends only).

Index files: a <base>.index or <base>.timeindex given by path is dumped entry by
entry and each entry checked against its segment; --verify-index-only checks the
index files of the segments or directories given without printing entries, and
--index-sanity-check runs only each file's own check (entries in order, inside the
segment), as Kafka's tool does.

Kafka's flag names work too: --files a.log,b.log (the paths, comma-separated),
--print-data-log (= --records), --deep-iteration.

--offsets-decoder shows the records of __consumer_offsets (where klog serve keeps
consumer groups and their committed offsets) as Kafka 4's decoder does: each key
and value as JSON of its type or version and fields, a tombstone as <DELETE>.

Exit codes: 0 all batches valid, 1 corrupt data found, 2 bad usage (a missing path),
141 the output was closed early (klog dump-log … | head): it stops quietly.

Example:
  klog idem-demo --now-ms 1700000000000 --data-dir /tmp/klog-data
  klog dump-log /tmp/klog-data/orders-0 --records`;

export interface DumpLogFlags {
  readonly indexSanityCheck?: boolean;
  readonly verifyIndexOnly?: boolean;
  readonly records?: boolean;
  readonly printDataLog?: boolean;
  readonly deepIteration?: boolean;
  readonly offsetsDecoder?: boolean;
  readonly files?: readonly string[];
}

/** Kafka's --print-data-log implies --deep-iteration; klog's --records is the first. */
function recordsShown(flags: DumpLogFlags): RecordsShown {
  if (flags.records === true || flags.printDataLog === true || flags.offsetsDecoder === true) return 'data';
  return flags.deepIteration === true ? 'metadata' : 'none';
}

export function dumpLogCommand(ctx: CommandContext): Command {
  return new Command('dump-log')
    .description('print the batches of a segment file or a partition directory, as kafka-dump-log.sh does')
    .argument('[path...]', 'a segment file (<20-digit offset>.log) or a partition directory')
    .option('--records', 'print every record too, with key and value (kafka-dump-log --print-data-log)')
    .option('--print-data-log', "Kafka's name for --records")
    .option(
      '--offsets-decoder',
      'show __consumer_offsets records as the offsets and group metadata they hold (implies --records)',
    )
    .option(
      '--deep-iteration',
      'print a line per record, without key and value (kafka-dump-log --deep-iteration)',
    )
    .option(
      '--files <file1,file2,...>',
      "Kafka's way to give the paths: comma-separated, may be repeated",
      (value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        ...value.split(',').filter((p) => p !== ''),
      ],
    )
    .option(
      '--index-sanity-check',
      "check each index file's own structure, as kafka-dump-log does; no batches shown",
    )
    .option(
      '--verify-index-only',
      'check every index entry against its segment without printing the entries (kafka-dump-log --verify-index-only)',
    )
    .addHelpText('after', HELP_AFTER)
    .action((args: string[], flags: DumpLogFlags) => {
      const paths = [...args, ...(flags.files ?? [])];
      if (paths.length === 0) {
        throw new UsageError("missing required argument 'path' (see klog dump-log --help)");
      }
      dumpLogPaths(paths, flags, ctx);
    });
}

/**
 * The dump of `paths` (segments, directories, index files) as `flags` ask: `klog dump-log` and Kafka's
 * kafka-dump-log.sh (DumpLogSegments, in kafka-tools/) both run this.
 */
export function dumpLogPaths(inputPaths: readonly string[], flags: DumpLogFlags, ctx: CommandContext): void {
  const paths = [...inputPaths];
  const indexMode: IndexMode | undefined = flags.indexSanityCheck
    ? 'sanity-check'
    : flags.verifyIndexOnly
      ? 'verify-only'
      : undefined;
  // Index files given by path, or the index files of the segments and directories given, with an index flag.
  const indexPaths = paths.filter(isIndexFile);
  if (indexMode !== undefined || indexPaths.length > 0) {
    const targets =
      indexMode === undefined
        ? indexPaths
        : paths.flatMap((p) =>
            isIndexFile(p)
              ? [p]
              : statSync(p, { throwIfNoEntry: false })?.isDirectory()
                ? indexFilesIn(p)
                : [`${p.replace(/\.log$/, '')}.index`, `${p.replace(/\.log$/, '')}.timeindex`],
          );
    const problems = targets.flatMap((t) => dumpIndexFile(t, indexMode ?? 'dump', ctx.out, ctx.style));
    if (problems.length > 0) {
      throw new CorruptData(
        `dump-log: ${problems.length} index problem${problems.length === 1 ? '' : 's'}; the first: ${problems[0]}`,
      );
    }
    const rest = paths.filter((p) => !isIndexFile(p));
    if (indexMode !== undefined || rest.length === 0) return;
    paths.splice(0, paths.length, ...rest);
  }
  const plan = planDump(paths);
  const findings = dumpLog(
    plan,
    { records: recordsShown(flags), offsetsDecoder: flags.offsetsDecoder === true },
    ctx.out,
    ctx.err,
    ctx.style,
  );
  if (findings.length > 0) {
    const first = findings[0]!;
    const files = new Set(findings.map((f) => f.file)).size;
    const total = plan.files.filter((f) => f.kind !== 'unknown').length;
    throw new CorruptData(
      `dump-log: corrupt data: ${findings.length} problem${findings.length === 1 ? '' : 's'} in ` +
        `${files} of ${total} file${total === 1 ? '' : 's'}; the first: ${basename(first.file)} ${first.what}`,
    );
  }
}
