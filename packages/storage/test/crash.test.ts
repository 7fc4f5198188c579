import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendIdempotent,
  decodeRecordBatch,
  LogSegment,
  Partition,
  parseSegmentFileName,
  type RecordBatch,
  rebuildProducerState,
} from '../src/internals.js';
import { type Child, startFixture } from './fixtures/children.js';
import { expectedValue, producerId } from './fixtures/crash-batches.mjs';
import { LONG_TEST, tempDir } from './helpers.js';

/** A small seeded generator (mulberry32), so that a failing run can be replayed with KLOG_CRASH_SEED. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until `child` has printed `acks` acknowledgements, wait `delayMs` more, and kill it with SIGKILL. */
async function killAfter(child: Child, acks: number, delayMs: number): Promise<void> {
  await child.waitForCount(/^(ack \d+|unexpected .*)$/, acks);
  if (child.lines.some((l) => l.startsWith('unexpected'))) throw new Error(child.lines.join('\n'));
  await sleep(delayMs);
  await child.kill();
}

/** Batch `i` is whole and holds what the appender wrote at offset i. */
function expectIntact(batch: RecordBatch, i: number, context: string): void {
  expect(batch.baseOffset, context).toBe(i);
  expect(batch.records, context).toHaveLength(1);
  const record = batch.records[0]!;
  expect(Buffer.from(record.key!).toString(), context).toBe(`b${i}`);
  expect(Buffer.from(record.value!).equals(expectedValue(i)), `${context}, value of batch ${i}`).toBe(true);
}

/**
 * What is on disk right after the kill, read only (recovery has not run yet): how many
 * whole, valid batches, in order, each checked for what it holds, and the bytes of a
 * torn tail, if any. A bad batch anywhere but at the very end of the last segment fails
 * the test. Segments before the last never change again: `checked` remembers their
 * counts, so each round reads only what is new (hundreds of rounds stay linear).
 */
function onDisk(
  dir: string,
  checked: Map<string, number>,
  context: string,
): { count: number; tornBytes: number } {
  const names = readdirSync(dir)
    .filter((n) => parseSegmentFileName(n) !== undefined)
    .sort();
  let count = 0;
  let tornBytes = 0;
  names.forEach((name, i) => {
    const next = names[i + 1];
    const known = checked.get(name);
    if (known !== undefined && next !== undefined) {
      count += known;
      return;
    }
    const segment = LogSegment.open(join(dir, name), parseSegmentFileName(name)!, {
      readOnly: true,
      nextBaseOffset: next === undefined ? undefined : parseSegmentFileName(next),
    });
    const before = count;
    try {
      for (const entry of segment.inspect()) {
        const bad = entry.kind === 'stop' ? entry.error : entry.problem;
        if (bad !== undefined) {
          if (next !== undefined)
            throw new Error(`a bad batch in ${name}, which is not the last segment: ${bad.message}`);
          if (entry.kind === 'batch' && entry.position + entry.bytes.length !== segment.size) {
            throw new Error(`a bad batch before the end of ${name}: ${bad.message}`);
          }
          expect(bad.reason).toMatch(/truncated|stored 0x/);
          tornBytes = segment.size - entry.position;
          break;
        }
        if (entry.kind === 'batch') expectIntact(decodeRecordBatch(entry.bytes), count++, context);
      }
    } finally {
      segment.close();
    }
    if (next !== undefined) checked.set(name, count - before);
  });
  return { count, tornBytes };
}

/** Rounds for this run: a few in CI; KLOG_CRASH_ROUNDS=600 runs hundreds by hand. */
const ROUNDS = Number(process.env['KLOG_CRASH_ROUNDS'] ?? 12);

/**
 * Rounds alternate the flush policy: 'every-append' is what the issue asks for; 'os'
 * must survive a kill -9 too (the page cache is the kernel's), and without an fsync
 * per batch a kill lands in the middle of a write far more often, so recovery of a
 * torn tail gets exercised by a real crash. Neither can show a power cut.
 *
 * Every third round is a race: two appenders start together on the same partition.
 * One gets the lock; the other is refused (LOCKED) and retries; when the first is
 * killed, the kernel releases its lock, the second opens, recovers what the first
 * left, and goes on. Nothing acknowledged by either may be lost or written twice.
 */
describe('kill -9 while appending', () => {
  it('every acknowledged batch is there after each kill, whole, and recovery cuts any half-written one', {
    timeout: Math.max(LONG_TEST.timeout, ROUNDS * 3_000),
  }, async () => {
    const seed = Number(process.env['KLOG_CRASH_SEED'] ?? Date.now() % 1_000_000);
    const next = random(seed);
    const dataDir = tempDir();
    const dir = join(dataDir, 'crash-0');
    let acked = -1;
    let expectedOpen = '0 clean 0';
    let torn = 0;
    let races = 0;
    let refused = 0;
    let session = 0;
    let sessionStart = 0;
    const checked = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const flush = round % 2 === 0 ? 'every-append' : 'os';
      const race = round % 3 === 2;
      const context = `seed ${seed} (KLOG_CRASH_SEED=${seed} to replay), round ${round}, flush ${flush}${race ? ', race' : ''}`;
      const children = Array.from({ length: race ? 2 : 1 }, () =>
        startFixture('crash-appender.mjs', [dataDir, String(session++), flush]),
      );
      const [a, b] = children;
      // The winner opens first; the loser, if any, must not open until the winner is dead.
      const first = await Promise.race(children.map((c) => c.waitFor(/^open /).then(() => c)));
      const order = first === a ? [a!, b] : [b!, a!];
      try {
        for (const [turn, child] of order.entries()) {
          if (child === undefined) continue;
          const open = await child.waitFor(/^open /);
          if (turn === 0) {
            // Reopened by the child: recovery found what the parent saw on disk after the last kill.
            expect(open, context).toBe(`open ${expectedOpen}`);
          } else {
            // The loser opened only once the winner was dead: it found every batch the winner acknowledged,
            // and at most one more, written whole but never acknowledged.
            const leo = Number(open.split(' ')[1]);
            expect(leo, context).toBeGreaterThanOrEqual(acked + 1);
            expect(leo, context).toBeLessThanOrEqual(acked + 2);
            acked = leo - 1;
          }
          await killAfter(child, 1 + Math.floor(next() * 12), Math.floor(next() * 20));
          sessionStart = acked + 1;
          for (const line of child.lines.filter((l) => l.startsWith('ack '))) {
            expect(line, context).toBe(`ack ${acked + 1}`);
            acked++;
          }
          // The other racer may be appending now: the disk is checked once both are dead.
          if (turn === 0 && order[1] !== undefined) continue;
          const { count, tornBytes } = onDisk(dir, checked, context);
          // Every acknowledged batch is on disk, whole and in order; at most one more was written but never acknowledged.
          expect(count, context).toBeGreaterThanOrEqual(acked + 1);
          expect(count, context).toBeLessThanOrEqual(acked + 2);
          acked = count - 1;
          expectedOpen = `${count} ${tornBytes > 0 ? 'torn-tail' : 'clean'} ${tornBytes}`;
          if (tornBytes > 0) torn++;
        }
      } finally {
        await Promise.all(children.map((c) => c.kill()));
      }
      if (race) {
        races++;
        if (order[1]!.lines.some((l) => l.startsWith('locked '))) refused++;
      }
    }
    // Reopened here: recovery cuts any half-written batch, and the log goes on from the last whole one.
    const p = Partition.open(dataDir, 'crash', 0, { segmentBytes: 1024 * 1024 });
    expect(p.recovery?.truncatedBytes ?? 0).toBe(Number(expectedOpen.split(' ')[2]));
    expect(p.logEndOffset).toBe(acked + 1);
    // Read back through the log, batch by batch: each there once, whole, in order; no (producer, sequence) twice.
    const written = new Set<string>();
    let lastProducer = -1;
    for (let offset = 0; offset < p.logEndOffset; offset++) {
      const [batch] = p.log.readCheckedBatches(offset, 1);
      expectIntact(batch!, offset, `seed ${seed}, after the last kill`);
      written.add(`${batch!.producerId}/${batch!.baseSequence}`);
      lastProducer = batch!.producerId;
    }
    expect(written.size).toBe(acked + 1);
    // The last session's batches in the active segment are in the rebuilt window; a new session appends at the LEO.
    const state = rebuildProducerState(p.log);
    const from = Math.max(sessionStart, p.log.activeSegment.baseOffset);
    const expected = Array.from({ length: acked + 1 - from }, (_, i) => from + i).slice(-5);
    expect(state.get(lastProducer as never)?.batches.map((b) => b.lastOffset) ?? []).toEqual(expected);
    expect(
      appendIdempotent(p, {
        producerId: producerId(session),
        producerEpoch: 0,
        firstSequence: 0,
        records: [{ key: null, value: Buffer.from('after') }],
        nowMs: 0,
      }),
    ).toMatchObject({ kind: 'Append', firstOffset: acked + 1 });
    p.close();
    console.info(
      `kill -9 test: seed ${seed}, ${ROUNDS} rounds, ${session} sessions killed, ${races} races ` +
        `(${refused} with the loser refused while the winner held the lock), ${acked + 1} batches, ` +
        `${torn} torn tails cut by recovery, 0 lost, 0 written twice`,
    );
  });
});
