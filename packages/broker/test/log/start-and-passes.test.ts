import { appendFileSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appendRecords, LogManager } from '@klog/storage';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker, tempDir } from '../support/broker.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

/**
 * Issue 40, items 1a, 2 and 3: a restart over 30,000 partitions answers before its start-up check is
 * through, and reports compaction's gaps as one count; a cleaner pass over 20,000 compacted partitions opens
 * only those with segments to clean, while ApiVersions is answered throughout. Counts and order, no timings
 * (the figures, 100,000 partitions among them, are `pnpm bench:partitions`'). Each directory costs the disk
 * more on a shared CI machine than here, so the counts are what shows the order, not more.
 */
const LONG = 240_000;

let b: TestBroker | undefined;
let scratch: { dir: string; remove(): void } | undefined;
// Stopping and removing tens of thousands of directories is slow on a busy disk: the hook gets the test's budget.
afterEach(async () => {
  await b?.stop();
  b = undefined;
  scratch?.remove();
  scratch = undefined;
}, LONG);

/** Resolves with the index of the first line from `from` on that matches, looking every 20 ms. */
async function lineFrom(
  lines: string[],
  from: number,
  pattern: RegExp,
  timeoutMs = 180_000,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    const at = lines.findIndex((l, i) => i >= from && pattern.test(l));
    if (at !== -1) return at;
    if (Date.now() - start > timeoutMs) throw new Error(`no line ${pattern} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function apiVersions(c: RawClient, correlationId: number): Promise<void> {
  const req = await kafkajs('apiVersions', 2, {}, correlationId);
  c.send(req.frame);
  expect((await req.decode(await c.next())).correlation).toBe(correlationId);
}

describe('a restart over 30,000 partitions answers at once', () => {
  it(
    'the first ApiVersions is answered before the start-up check is through; gaps are one line, damage a WARN each',
    async () => {
      scratch = tempDir();
      const dataDir = join(scratch.dir, 'data');
      // As CreateTopics leaves them (one empty directory per partition), and a topic with damage and gaps.
      const manager = LogManager.open(dataDir, { config: { segmentBytes: 200 } });
      manager.createTopic('many', 30_000);
      manager.createTopic('gappy', 2);
      for (let i = 0; i < 20; i++) {
        for (const p of [0, 1]) {
          const record = { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) };
          appendRecords(manager.partition('gappy', p)!, [record], Date.now());
        }
      }
      manager.close();
      for (const p of [0, 1]) {
        // Segments deleted from the middle: offsets no segment holds, as compaction leaves them.
        const dir = join(dataDir, `gappy-${p}`);
        const logs = readdirSync(dir)
          .filter((n) => n.endsWith('.log'))
          .sort();
        unlinkSync(join(dir, logs[2]!));
        unlinkSync(join(dir, logs[4]!));
      }
      const active = readdirSync(join(dataDir, 'gappy-1'))
        .filter((n) => n.endsWith('.log'))
        .sort()
        .at(-1)!;
      appendFileSync(join(dataDir, 'gappy-1', active), Buffer.from('a torn tail'));

      b = await startBroker({}, dataDir);
      const lines = b.lines;
      const c = await RawClient.connect(b.port);
      try {
        await apiVersions(c, 1);
        // Answered while the check of 30,002 partitions still runs: its last line is not there yet.
        expect(lines.filter((l) => l.includes('start-up check done'))).toEqual([]);
        const done = await lineFrom(lines, 0, /start-up check done/);
        expect(lines[done]).toBe(
          'info: klog serve: start-up check done: 2 partition(s) with segments loaded, 30000 with none',
        );
        expect(lines.filter((l) => l.startsWith('warn:'))).toEqual([
          expect.stringMatching(/^warn: klog serve: gappy-1: .*found a torn last batch/),
        ]);
        expect(lines.filter((l) => l.includes('in no segment'))).toEqual([
          expect.stringMatching(
            /^info: klog serve: 4 gap\(s\) of offsets in no segment, \d+ offset\(s\) over 2 partition/,
          ),
        ]);
        // A partition never written to was not opened: its directory holds its topic id only.
        expect(readdirSync(join(dataDir, 'many-29999'))).toEqual(['partition.metadata']);
        await apiVersions(c, 2);
      } finally {
        c.close();
      }
    },
    LONG,
  );
});

describe('a cleaner pass over 20,000 compacted partitions', () => {
  it(
    'opens only the partitions with segments to clean, and ApiVersions is answered all through it',
    async () => {
      // One request of 20,000 partitions, past the default max.partitions.per.request (10,000): raised here.
      b = await startBroker({ logCleanerBackoffMs: 50, maxPartitionsPerRequest: 20_000 });
      const kafka = new Kafka({
        clientId: 'passes-test',
        brokers: [`127.0.0.1:${b.port}`],
        logLevel: logLevel.NOTHING,
        requestTimeout: 120_000,
      });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const created = await admin.createTopics({
          timeout: 120_000,
          topics: [
            {
              topic: 'compacted',
              numPartitions: 20_000,
              configEntries: [
                { name: 'cleanup.policy', value: 'compact' },
                { name: 'segment.bytes', value: '200' },
              ],
            },
          ],
        });
        expect(created).toBe(true);
      } finally {
        await admin.disconnect();
      }
      const worked = [0, 7_777, 19_999];
      const producer = kafka.producer();
      await producer.connect();
      try {
        // One batch per segment, the same keys again: segments to clean.
        for (let round = 0; round < 6; round++) {
          await producer.send({
            topic: 'compacted',
            messages: worked.map((partition) => ({ partition, key: `k${round % 2}`, value: `v${round}` })),
          });
        }
      } finally {
        await producer.disconnect();
      }
      // Probes one after another until two whole passes ran after the records were written; for each answer,
      // how many log lines there were when it came, to place it before, during or after a pass.
      const from = b.lines.length;
      const answeredAt: number[] = [];
      const passes = () => {
        const found: { started: number; ended: number }[] = [];
        for (let i = from; i < b!.lines.length; i++) {
          if (!/cleaner pass started/.test(b!.lines[i]!)) continue;
          const ended = b!.lines.findIndex((l, j) => j > i && /cleaner pass (done|stopped)/.test(l));
          if (ended !== -1) found.push({ started: i, ended });
        }
        return found;
      };
      const c = await RawClient.connect(b.port);
      try {
        let correlationId = 10;
        while (passes().length < 2) {
          await apiVersions(c, correlationId++);
          answeredAt.push(b.lines.length);
        }
      } finally {
        c.close();
      }
      for (const { started, ended } of passes()) {
        expect(b.lines[ended]).toMatch(/cleaner pass done: 20000 partition\(s\) looked at/);
        // Answers that came after the pass's first line and before its last: the pass left requests served.
        const during = answeredAt.filter((n) => n > started && n <= ended).length;
        expect(during).toBeGreaterThan(1);
      }
      // Every compaction was of a partition written to; every other partition's directory holds its id only.
      const compactions = b.lines.filter((l) => /compacted \d+ segment/.test(l));
      expect(compactions.length).toBeGreaterThan(0);
      for (const line of compactions) expect(line).toMatch(/^info: compacted-(0|7777|19999): /);
      const withFiles: number[] = [];
      for (let p = 0; p < 20_000; p++) {
        // Any file but the topic id's, which every partition holds from its creation.
        const names = readdirSync(join(b.dataDir, `compacted-${p}`)).filter(
          (n) => n !== 'partition.metadata',
        );
        if (names.length > 0) withFiles.push(p);
      }
      expect(withFiles).toEqual(worked);
    },
    LONG,
  );
});
