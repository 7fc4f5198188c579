// kafka-delete-records.sh, after Kafka 4.1.0's `org.apache.kafka.tools.DeleteRecordsCommand`: the offsets of
// `--offset-json-file` ({"partitions":[{"topic","partition","offset"}],"version":1}) sent as one DeleteRecords,
// each partition's new low watermark (or its error) printed in the order Kafka's HashMap of results gives.
import { readFileSync } from 'node:fs';
import { DeleteRecords } from '@klog/protocol';
import type { CommandContext } from '../command-context.js';
import { javaHashOrder, topicPartitionHash } from './java-order.js';
import { exceptionText, KafkaApiError, UncaughtJavaException, withBootstrap } from './kafka-errors.js';
import { checkRequired, NO_SECURITY, optionTable, parseToolArgs } from './tool-options.js';

const PURPOSE = 'This tool helps to delete records of the given partitions down to the specified offset.';
const ADMIN_OPERATION = 'org.apache.kafka.server.common.AdminOperationException';

export const DELETE_RECORDS_OPTIONS = optionTable(`
--bootstrap-server <server(s) to use for bootstrapping>  REQUIRED: The server to connect to.
--offset-json-file <Offset json file path>  REQUIRED: The JSON file with offset per partition. The format to use is: {"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version":1}
--command-config <command config property file path>  A property file containing configs to be passed to Admin Client.
  unsupported: ${NO_SECURITY}
`);

interface RecordsToDelete {
  readonly topic: string;
  readonly partition: number;
  readonly offsets: number[];
}

/** DeleteRecordsCommand.parseOffsetJsonStringWithoutDedup: version 1 only; a partition may repeat. */
export function parseOffsetJson(text: string): RecordsToDelete[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UncaughtJavaException(ADMIN_OPERATION, 'The input string is not a valid JSON');
  }
  const doc = (json ?? {}) as { version?: unknown; partitions?: unknown };
  const version = doc.version ?? 1;
  if (version !== 1)
    throw new UncaughtJavaException(ADMIN_OPERATION, `Not supported version field value ${version}`);
  if (!Array.isArray(doc.partitions))
    throw new UncaughtJavaException(ADMIN_OPERATION, 'Missing partitions field');
  const out: RecordsToDelete[] = [];
  for (const p of doc.partitions as { topic?: unknown; partition?: unknown; offset?: unknown }[]) {
    if (typeof p.topic !== 'string' || !Number.isInteger(p.partition) || !Number.isInteger(p.offset))
      // Kafka's DecodeJson: a field missing or of another type.
      throw new UncaughtJavaException(
        'com.fasterxml.jackson.databind.JsonMappingException',
        `Expected "topic" (string), "partition" (int) and "offset" (long) in ${JSON.stringify(p)}`,
      );
    const found = out.find((r) => r.topic === p.topic && r.partition === p.partition);
    if (found !== undefined) found.offsets.push(p.offset as number);
    else out.push({ topic: p.topic, partition: p.partition as number, offsets: [p.offset as number] });
  }
  return out;
}

export async function kafkaDeleteRecords(args: readonly string[], ctx: CommandContext): Promise<number> {
  const opts = parseToolArgs('kafka-delete-records.sh', PURPOSE, DELETE_RECORDS_OPTIONS, args);
  checkRequired(opts, 'bootstrap-server', 'offset-json-file');
  const path = opts.value('offset-json-file')!;
  // Kafka's Admin client connects on first use: a bad file is found before any broker is asked.
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UncaughtJavaException('java.nio.file.NoSuchFileException', path);
  }
  const wanted = parseOffsetJson(text);
  const duplicates = wanted.filter((r) => r.offsets.length > 1);
  if (duplicates.length > 0)
    throw new UncaughtJavaException(
      'org.apache.kafka.server.common.AdminCommandFailedException',
      `Offset json file contains duplicate topic partitions: ${duplicates.map((r) => `${r.topic}-${r.partition}`).join(',')}`,
    );
  return withBootstrap(opts.value('bootstrap-server'), async (client) => {
    ctx.out('Executing records delete operation');
    const byTopic = new Map<string, { partitionIndex: number; offset: number }[]>();
    for (const r of wanted)
      byTopic.set(r.topic, [
        ...(byTopic.get(r.topic) ?? []),
        { partitionIndex: r.partition, offset: r.offsets[0]! },
      ]);
    const res = await client.request(DeleteRecords, {
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      timeoutMs: 30_000,
    });
    ctx.out('Records delete operation completed:');
    const results = new Map<string, { lowWatermark: number; errorCode: number }>();
    for (const t of res.topics) for (const p of t.partitions) results.set(`${t.name}-${p.partitionIndex}`, p);
    for (const r of javaHashOrder(wanted, (w) => topicPartitionHash(w.topic, w.partition))) {
      const tp = `${r.topic}-${r.partition}`;
      const p = results.get(tp) ?? { lowWatermark: -1, errorCode: 3 };
      if (p.errorCode === 0) ctx.out(`partition: ${tp}\tlow_watermark: ${p.lowWatermark}`);
      else ctx.out(`partition: ${tp}\terror: ${exceptionText(new KafkaApiError(p.errorCode, null))}`);
    }
    return 0;
  });
}
