// kafka-dump-log.sh, after Kafka's `org.apache.kafka.tools.DumpLogSegments`: Kafka's flags read as Kafka reads
// them, then the very dump `klog dump-log` prints (commands/dump-log.ts), so the two cannot drift apart.
// The decoders and limits klog has nothing for are refused in one line rather than ignored.
import type { CommandContext } from '../command-context.js';
import { dumpLogPaths } from '../commands/dump-log.js';
import { optionTable, parseToolArgs, ToolUsageError } from './tool-options.js';

export const DUMP_LOG_OPTIONS = optionTable(`
--cluster-metadata-decoder                if set, log data will be parsed as cluster metadata records.
  unsupported: klog keeps no KRaft metadata log
--deep-iteration                          if set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.
--files <file1, file2, ...>               REQUIRED: The comma separated list of data and index log files to be dumped.
--index-sanity-check                      if set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not.
--max-bytes <size>                        Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).
  unsupported: klog reads every batch of the files given
--max-message-size <size>                 Size of largest message.
  unsupported: klog reads batches up to the one limit every reader of a klog log uses
--offsets-decoder                         if set, log data will be parsed as offset data from the __consumer_offsets topic.
--print-data-log                          if set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified.
--remote-log-metadata-decoder             if set, log data will be parsed as TopicBasedRemoteLogMetadataManager (RLMM) metadata records.
  unsupported: klog has no tiered storage
--share-group-state-decoder               if set, log data will be parsed as share group state data from the __share_group_state topic.
  unsupported: klog has no share groups
--skip-record-metadata                    whether to skip printing metadata for each record.
  unsupported: klog prints each record's metadata always
--transaction-log-decoder                 if set, log data will be parsed as transaction metadata from the __transaction_state topic.
  unsupported: klog has no transactions
--verify-index-only                       if set, just verify the index log without printing its content.
`);

/**
 * kafka-dump-log.sh: `--files a.log,b.index` (DumpLogSegments splits on commas), the flags as Kafka names them;
 * a bad command line is one line on stderr, exit 1 (CommandLineUtils.printUsageAndExit). Exit codes after that
 * are `klog dump-log`'s: 1 when corrupt data was found, 141 when the reader went away.
 */
export async function kafkaDumpLog(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs(
    'kafka-dump-log.sh',
    'This tool helps to parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment.',
    DUMP_LOG_OPTIONS,
    args,
  );
  if (!opts.has('files')) throw new ToolUsageError('Missing required argument "[files]"');
  const files = opts
    .value('files')!
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  dumpLogPaths(
    files,
    {
      printDataLog: opts.has('print-data-log'),
      deepIteration: opts.has('deep-iteration'),
      offsetsDecoder: opts.has('offsets-decoder'),
      indexSanityCheck: opts.has('index-sanity-check'),
      verifyIndexOnly: opts.has('verify-index-only'),
    },
    ctx,
  );
  return 0;
}
