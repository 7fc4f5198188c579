import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { incrementSequence, NUM_BATCHES_TO_RETAIN, type ProducerId, type Sequence } from '@klog/core';
import {
  appendIdempotent,
  buildProducerBatch,
  type IdempotentAppend,
  Partition,
  type RecordInput,
  SEGMENT_SUFFIX,
} from '@klog/storage/internals';
import { check } from '../check.js';
import { CheckFailed } from '../errors.js';
import { formatWindow, padEnd, padStart, range, windowRanges } from '../format.js';
import type { Style } from '../style.js';
import { fillBatches } from './fill.js';
import type { IdemDemoOptions } from './options.js';
import { deliveryRecord, orderRecords } from './payload.js';

/** The segment.bytes of the narrowing edge (section 7b): small, to force a roll per batch. */
export const NARROW_SEGMENT_BYTES = 256;
const NARROW_BATCHES = 8;
const EPOCH = 0;

type Out = (line: string) => void;

/** Everything one run shares: the partition (which holds its producer state), and how to print. */
interface Demo {
  readonly opts: IdemDemoOptions;
  readonly dataDir: string;
  readonly out: Out;
  readonly style: Style;
  partition: Partition;
}

function verdictName(result: IdempotentAppend): string {
  switch (result.kind) {
    case 'Append':
      return 'APPEND';
    case 'Duplicate':
      return 'DUPLICATE';
    case 'OutOfOrderSequence':
      return 'OUT_OF_ORDER_SEQUENCE_NUMBER';
    case 'InvalidProducerEpoch':
      return 'INVALID_PRODUCER_EPOCH';
  }
}

function paint(style: Style, result: IdempotentAppend, text = verdictName(result)): string {
  if (result.kind === 'Append') return style.green(text);
  if (result.kind === 'Duplicate') return style.yellow(text);
  return style.red(text);
}

/** Size and SHA-256 of every file in the partition: the same before and after means not a byte was written. */
function fingerprint(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const bytes = readFileSync(join(dir, name));
      return `${name} ${bytes.length} ${createHash('sha256').update(bytes).digest('hex')}`;
    });
}

/**
 * The window as the segment files say it must be: the last five batches `pid` wrote, read back from
 * every segment on disk, oldest first. The demo prints the window the broker keeps in memory; this is
 * the independent witness it is checked against (a window that kept a sixth batch, or dropped the wrong
 * one, would differ from it).
 */
function windowOnDisk(partition: Partition, pid: number): string[] {
  const ranges: string[] = [];
  for (const { batch } of partition.log.batches()) {
    if (batch.producerId !== pid) continue;
    const first = batch.baseSequence as Sequence;
    ranges.push(range(first, incrementSequence(first, batch.lastOffsetDelta)));
  }
  return ranges.slice(-NUM_BATCHES_TO_RETAIN);
}

function entryOf(demo: Demo, pid = demo.opts.pid) {
  return demo.partition.producerState.get(pid as ProducerId);
}

function section(demo: Demo, title: string): void {
  demo.out(demo.style.bold(`== ${title} ==`));
}

/** Send a batch that must not be written: check the verdict, the log end offset and the bytes on disk. */
function sendRejectedOrDuplicate(
  demo: Demo,
  first: number,
  records: RecordInput[],
  claim: string,
): IdempotentAppend {
  const leo = demo.partition.logEndOffset;
  const before = fingerprint(demo.partition.dir);
  const result = appendIdempotent(demo.partition, {
    producerId: demo.opts.pid,
    producerEpoch: EPOCH,
    firstSequence: first,
    records: records,
    nowMs: demo.opts.nowMs,
  });
  check(`${claim}: the log end offset did not move`, leo, demo.partition.logEndOffset);
  check(`${claim}: no byte of the segment files changed`, before, fingerprint(demo.partition.dir));
  return result;
}

function deliveryMeanings(demo: Demo): void {
  section(demo, 'การส่งมีสามความหมาย');
  demo.out('  at most once    ส่งแล้วอาจหาย แต่ไม่มีทางได้ซ้ำ');
  demo.out('  at least once   ไม่มีทางหาย แต่อาจได้ซ้ำ');
  demo.out('  exactly once    แต่ละข้อความถูกประมวลผลหนึ่งครั้งพอดี');
  demo.out('สองข้อแรกเป็นคำมั่นเรื่อง "การส่ง" ข้อที่สามเป็นคำมั่นเรื่อง "การประมวลผล"');
  demo.out('สายที่ขาดได้บังคับให้ต้องส่งซ้ำได้ สิ่งที่ระบบคุมได้คือผลของการรับซ้ำ ไม่ใช่จำนวนรอบที่ส่ง');
  demo.out('');
}

function fillWindow(demo: Demo): void {
  const { pid, firstSeq, lastSeq } = demo.opts;
  section(demo, `เติมหน้าต่างกันซ้ำ: จำ ${NUM_BATCHES_TO_RETAIN} batch ต่อ producer ต่อ partition`);
  demo.out(
    `partition ${demo.partition.topic}-${demo.partition.partition} · producer id ${pid} · epoch ${EPOCH}`,
  );
  const batches = [...fillBatches(firstSeq), [firstSeq, lastSeq] as const];
  const seqWidth = Math.max(8, ...batches.map(([a, b]) => range(a, b).length));
  demo.out(
    `  ${padEnd('seq', seqWidth)}  ${padEnd('ผลตัดสิน', 9)}  ${padStart('base_offset', 11)}  หน้าต่างเมื่อ append เสร็จ`,
  );
  for (const [first, last] of batches) {
    const expectedBase = demo.partition.logEndOffset;
    const result = appendIdempotent(demo.partition, {
      producerId: pid,
      producerEpoch: EPOCH,
      firstSequence: first,
      records: orderRecords(first, last),
      nowMs: demo.opts.nowMs,
    });
    check(`batch ${range(first, last)} is appended`, 'Append', result.kind);
    if (result.kind !== 'Append') return;
    check(`batch ${range(first, last)} starts at the log end offset`, expectedBase, result.firstOffset);
    check(
      `after ${range(first, last)} the window is the last batches on disk`,
      windowOnDisk(demo.partition, pid),
      windowRanges(entryOf(demo)),
    );
    const verdict = paint(demo.style, result, padEnd(verdictName(result), 9));
    demo.out(
      `  ${padEnd(range(first, last), seqWidth)}  ${verdict}  ${padStart(String(result.firstOffset), 11)}  ${formatWindow(entryOf(demo))}`,
    );
  }
  check('the log end offset is the number of records written', lastSeq + 1, demo.partition.logEndOffset);
  demo.out(`log end offset ${demo.partition.logEndOffset}`);
  demo.out('');
}

function lostAck(demo: Demo): void {
  const { firstSeq, lastSeq } = demo.opts;
  section(demo, `ack หายระหว่างทาง: producer ส่ง ${range(firstSeq, lastSeq)} ซ้ำ`);
  if (!demo.opts.resend) {
    demo.out('ข้ามขั้นนี้ (ไม่ได้ใส่ --resend จึงไม่มีการส่งซ้ำ)');
    demo.out('');
    return;
  }
  const segment = demo.partition.log.activeSegment;
  const result = sendRejectedOrDuplicate(demo, firstSeq, orderRecords(firstSeq, lastSeq), 'a resend');
  check(
    'the resend is a duplicate carrying the original offsets',
    { kind: 'Duplicate', firstOffset: firstSeq, lastOffset: lastSeq, timestamp: demo.opts.nowMs },
    result,
  );
  if (result.kind !== 'Duplicate') return;
  demo.out(
    `ผลตัดสิน         ${paint(demo.style, result)} → ตอบด้วย offset ครั้งแรก ${range(result.firstOffset, result.lastOffset)} · timestamp ครั้งแรก ${result.timestamp}`,
  );
  demo.out(`base_offset      ${result.firstOffset}`);
  demo.out(`log end offset   ${demo.partition.logEndOffset} (เท่าเดิม)`);
  demo.out(
    `segment          ${segment.path.slice(demo.partition.dir.length + 1)} ยาว ${segment.size} byte เท่าเดิม ไม่มี byte ไหนเปลี่ยน`,
  );
  demo.out('ของซ้ำถือเป็นความสำเร็จ: broker ตอบด้วย offset ของการเขียนครั้งแรก');
  demo.out('และไม่เขียนอะไรเพิ่มเลย เพราะมันตัดสินก่อนแล้วค่อยเขียน');
  demo.out('');
}

function gap(demo: Demo): void {
  const expected = demo.opts.lastSeq + 1;
  const sent = expected + 3;
  section(demo, `seq กระโดด: ส่ง ${sent} ทั้งที่ broker รอ ${expected}`);
  const result = sendRejectedOrDuplicate(demo, sent, orderRecords(sent, sent), 'a gap');
  check(
    'a gap is out of order, naming what was expected',
    { kind: 'OutOfOrderSequence', expected, got: sent },
    result,
  );
  demo.out(`ผลตัดสิน         ${paint(demo.style, result)} · รอ ${expected} ได้ ${sent}`);
  demo.out(`log end offset   ${demo.partition.logEndOffset} (เท่าเดิม)`);
  demo.out(`seq ${range(expected, sent - 1)} ไม่เคยมาถึง แปลว่ามีการเขียนที่หายไป ไม่ใช่ของซ้ำ`);
  demo.out('broker ปฏิเสธให้เห็นชัด การหายแบบเงียบ ๆ จึงกลายเป็นข้อผิดพลาดที่ producer รู้ตัว');
  demo.out('และข้อนี้สำคัญไม่น้อยกว่าการกันซ้ำ');
  demo.out('');
}

function overflow(demo: Demo): void {
  const { pid, firstSeq, lastSeq, nowMs } = demo.opts;
  section(demo, 'หน้าต่างล้น: batch ที่ถูกดันออกไปแล้วถูกลืม');
  const singles = Array.from({ length: NUM_BATCHES_TO_RETAIN }, (_, i) => lastSeq + 1 + i);
  for (const seq of singles) {
    const result = appendIdempotent(demo.partition, {
      producerId: pid,
      producerEpoch: EPOCH,
      firstSequence: seq,
      records: orderRecords(seq, seq),
      nowMs: nowMs,
    });
    check(`single-record batch ${range(seq, seq)} is appended`, 'Append', result.kind);
  }
  const expectedWindow = singles.map((s) => range(s, s));
  check(
    'the window now holds only the five single-record batches',
    expectedWindow,
    windowRanges(entryOf(demo)),
  );
  check('the window is the last batches on disk', windowOnDisk(demo.partition, pid), expectedWindow);
  demo.out(`append ทีละ record: ${expectedWindow.join(' ')} → APPEND ทั้ง ${singles.length}`);
  demo.out(`ในหน้าต่างเหลือ  ${formatWindow(entryOf(demo))}`);
  const expected = lastSeq + 1 + NUM_BATCHES_TO_RETAIN;
  const result = sendRejectedOrDuplicate(
    demo,
    firstSeq,
    orderRecords(firstSeq, lastSeq),
    'a resend of an evicted batch',
  );
  check(
    'a resend of an evicted batch is out of order',
    { kind: 'OutOfOrderSequence', expected, got: firstSeq },
    result,
  );
  demo.out(
    `${range(firstSeq, lastSeq)} ถูกส่งมาอีกรอบ → ${paint(demo.style, result)} · รอ ${expected} ได้ ${firstSeq}`,
  );
  demo.out(`batch ${range(firstSeq, lastSeq)} เหมือนเดิมทุก byte ที่ต่างไปคือความจำของ broker`);
  demo.out(`เลข ${NUM_BATCHES_TO_RETAIN} นี้คือเพดานเดียวกับ max.in.flight.requests.per.connection ของ producer`);
  demo.out(`มี batch ค้างรอ ack เกิน ${NUM_BATCHES_TO_RETAIN} ก้อนเมื่อไร ก้อนแรกสุดอาจถูกลืมก่อนรู้ผลของมัน`);
  demo.out('');
}

function restart(demo: Demo): void {
  const { pid, nowMs } = demo.opts;
  section(demo, 'restart broker: เปิด partition ใหม่ แล้วสร้างสถานะจาก segment ที่ active');
  const before = windowRanges(entryOf(demo));
  const leo = demo.partition.logEndOffset;
  demo.partition.close();
  // Opening rebuilds the producer state from the active segment's batch headers (rebuildProducerState).
  demo.partition = Partition.open(demo.dataDir, demo.partition.topic, demo.partition.partition);
  check('reopening from disk finds the same log end offset', leo, demo.partition.logEndOffset);
  check('the rebuild finds exactly the one producer', [pid], demo.partition.producerState.producerIds());
  check('the rebuilt window equals the window before the restart', before, windowRanges(entryOf(demo)));
  demo.out(`ปิด partition แล้วเปิดจาก disk · log end offset ${demo.partition.logEndOffset}`);
  demo.out(`producer id ที่พบ     [${demo.partition.producerState.producerIds().join(' ')}]`);
  demo.out(`หน้าต่างที่สร้างได้    ${formatWindow(entryOf(demo))} ตรงกับก่อน restart`);
  const last = leo - 1;
  const result = sendRejectedOrDuplicate(demo, last, orderRecords(last, last), 'a resend after the restart');
  check(
    'a resend after the restart is still a duplicate',
    { kind: 'Duplicate', firstOffset: last, lastOffset: last, timestamp: nowMs },
    result,
  );
  demo.out(
    `ส่ง ${range(last, last)} อีกครั้งหลังเปิดใหม่ → ${paint(demo.style, result)} · ได้ offset ${range(last, last)} ของครั้งแรก`,
  );
  demo.out('สถานะทั้งหมดมาจากหัว batch ขนาด 61 byte ไม่มีการถอดรหัส record แม้แต่ตัวเดียว');
  demo.out('');
}

function newProcess(demo: Demo): void {
  const { pid, firstSeq, lastSeq, nowMs } = demo.opts;
  const newPid = pid + 1;
  const payload = orderRecords(firstSeq, lastSeq);
  const leo = demo.partition.logEndOffset;
  const result = appendIdempotent(demo.partition, {
    producerId: newPid,
    producerEpoch: EPOCH,
    firstSequence: 0,
    records: payload,
    nowMs: nowMs,
  });
  check(
    'the same payload from a new producer id is appended',
    { kind: 'Append', firstOffset: leo, lastOffset: leo + payload.length - 1 },
    result,
  );
  if (result.kind !== 'Append') return;
  const original = demo.partition.log.readCheckedBatches(firstSeq, 1).find((b) => b.baseOffset === firstSeq);
  const copy = demo.partition.log.readCheckedBatches(result.firstOffset, 1)[0];
  const values = (b: typeof copy) =>
    (b?.records ?? []).map((r) => Buffer.from(r.value ?? []).toString('hex'));
  check('the log now holds the same records twice', values(original), values(copy));
  demo.out('ก. โปรแกรมที่ล่มแล้วเปิดใหม่คือ producer คนใหม่: id ใหม่ และ seq เริ่มที่ 0');
  demo.out(
    `   payload เดิมของ ${range(firstSeq, lastSeq)} ส่งด้วย pid ${newPid} seq ${range(0, payload.length - 1)} → ${paint(demo.style, result)} · base_offset ${result.firstOffset}`,
  );
  demo.out(
    `   record ชุดเดียวกันจึงอยู่ใน log สองที่: offset ${range(firstSeq, lastSeq)} และ ${range(result.firstOffset, result.lastOffset)}`,
  );
  demo.out('   การกันซ้ำผูกอยู่กับ session ของ producer ไม่ได้ผูกกับเนื้อของข้อความ');
}

/** How many segments the roll rule makes of these batch sizes, computed apart from the log. */
function segmentsByRollRule(sizes: number[], segmentBytes: number): number {
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used > 0 && used + size > segmentBytes) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return segments;
}

function narrowing(demo: Demo): void {
  const { pid, nowMs } = demo.opts;
  const config = { segmentBytes: NARROW_SEGMENT_BYTES };
  let narrow = Partition.open(demo.dataDir, 'narrow', 0, config);
  const sizes: number[] = [];
  const written: string[] = [];
  for (let seq = 0; seq < NARROW_BATCHES; seq++) {
    const records = deliveryRecord(seq);
    sizes.push(
      buildProducerBatch(records, 0, nowMs, { producerId: pid, producerEpoch: EPOCH, baseSequence: seq })
        .length,
    );
    const result = appendIdempotent(narrow, {
      producerId: pid,
      producerEpoch: EPOCH,
      firstSequence: seq,
      records: records,
      nowMs: nowMs,
    });
    check(`narrow-0 batch ${range(seq, seq)} is appended`, 'Append', result.kind);
    written.push(range(seq, seq));
  }
  const segments = narrow.log.segments.length;
  check(
    'the segment count follows the roll rule and the real batch sizes',
    segmentsByRollRule(sizes, NARROW_SEGMENT_BYTES),
    segments,
  );
  check(
    'the segment files on disk are the segments of the log',
    segments,
    readdirSync(narrow.dir).filter((n) => n.endsWith(SEGMENT_SUFFIX)).length,
  );
  const before = windowRanges(narrow.producerState.get(pid as ProducerId));
  check(
    'before the restart the window holds the last five batches written',
    written.slice(-NUM_BATCHES_TO_RETAIN),
    before,
  );
  narrow.close();
  narrow = Partition.open(demo.dataDir, 'narrow', 0, config);
  const after = windowRanges(narrow.producerState.get(pid as ProducerId));
  const inActive = [...narrow.log.activeSegment.headers()]
    .filter(({ header }) => header.producerId === pid)
    .map(({ header }) =>
      range(header.baseSequence, incrementSequence(header.baseSequence as Sequence, header.lastOffsetDelta)),
    );
  check(
    'after the restart the window holds only what the active segment holds',
    inActive.slice(-NUM_BATCHES_TO_RETAIN),
    after,
  );
  check('the window really narrowed', true, after.length < before.length);
  narrow.close();
  const size = sizes.every((s) => s === sizes[0])
    ? `${sizes[0]} byte`
    : `${Math.min(...sizes)}-${Math.max(...sizes)} byte`;
  demo.out('ข. การสร้างสถานะเห็นแค่ segment ที่ active');
  demo.out(`   partition narrow-0 · segment.bytes = ${NARROW_SEGMENT_BYTES} · batch ละ 1 record ยาว ${size}`);
  demo.out(`   append ${NARROW_BATCHES} batch (seq ${range(0, NARROW_BATCHES - 1)}) → ${segments} segment`);
  demo.out(`   ก่อนปิด partition หน้าต่างมี  [${before.join(' ')}]`);
  demo.out(`   เปิดใหม่แล้วเหลือ             [${after.join(' ')}]`);
  demo.out(
    `   จาก ${before.length} เหลือ ${after.length}: batch ที่ roll ไปอยู่ segment เก่าแล้ว หลุดจากการกันซ้ำหลัง restart`,
  );
  demo.out('   ทั้งที่ก่อน restart มันยังถูกกันอยู่');
}

function edges(demo: Demo): void {
  section(demo, 'ขอบของการกันซ้ำ');
  newProcess(demo);
  narrowing(demo);
  demo.out('ค. exactly-once เป็นสมบัติของผลลัพธ์ ไม่ใช่ของการส่ง');
  demo.out('   ปลายทางต้องกันซ้ำเองเป็น การตัดบัตรหรือการส่ง SMS จึงอยู่นอกความคุ้มครองของกลไกนี้');
  demo.out('');
}

/** The offset of the last record in the segment files, read from the last batch header on disk. */
function lastOffsetOnDisk(partition: Partition): number {
  let last = -1;
  for (const { header } of partition.log.activeSegment.headers())
    last = header.baseOffset + header.lastOffsetDelta;
  return last;
}

function transactions(demo: Demo): void {
  const leo = demo.partition.logEndOffset;
  const hw = demo.partition.highWatermark;
  const last = lastOffsetOnDisk(demo.partition);
  // On one node every record written is committed, so klog's HW is its LEO by definition; what can be
  // checked is that the LEO it reports is where the segment files end.
  check('the log end offset is one past the last offset on disk', last + 1, leo);
  check('HW is LEO on a single node', leo, hw);
  section(demo, 'transaction: วาดให้ดู ไม่ได้สร้าง');
  demo.out(
    'กันซ้ำได้แล้วก็ยังไม่ถึง exactly-once: ต้องมี transaction ซึ่งใช้ coordinator, topic ภายใน __transaction_state',
  );
  demo.out('และ control record ใน partition ของผู้ใช้ (ABORT = 0, COMMIT = 1) ทั้งหมดวางบน replication (บทที่ 8)');
  demo.out('และไม่มีบทไหนของคอร์สที่สร้าง transaction');
  demo.out('เมื่อมี transaction จะมีเส้นสามเส้นเรียงกันเสมอ: LEO >= HW >= LSO');
  demo.out('  LEO  offset ที่ record ถัดไปจะได้');
  demo.out('  HW   offset แรกที่ยังไม่ committed · read_uncommitted อ่านได้เฉพาะ offset ที่น้อยกว่านี้');
  demo.out(
    '  LSO  offset แรกของ transaction ที่ยังไม่จบ (ถ้าไม่มี = HW) · read_committed อ่านได้เฉพาะ offset ที่น้อยกว่านี้',
  );
  demo.out(
    'kaen-log มีสองเส้นแรก แต่มี node เดียว ทุก record ที่เขียนลง disk แล้วจึง committed ทันที HW ของมันจึงเท่ากับ LEO เสมอ',
  );
  demo.out(`orders-0 ตอนนี้: LEO = HW = ${leo} คือถัดจาก offset สุดท้ายใน segment (${last}) · LSO มีแค่ชื่อ`);
}

/**
 * The chapter's whole run, every step done for real on partitions under a fresh
 * directory and checked as it goes. Output goes to `out`, one line at a time.
 */
export function runIdemDemo(opts: IdemDemoOptions, out: Out, style: Style): void {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'klog-idem-demo-'));
  const demo: Demo = {
    opts,
    dataDir,
    out,
    style,
    partition: Partition.open(dataDir, 'orders', 0),
  };
  let failed = false;
  try {
    deliveryMeanings(demo);
    fillWindow(demo);
    lostAck(demo);
    gap(demo);
    overflow(demo);
    restart(demo);
    edges(demo);
    transactions(demo);
  } catch (error) {
    // Keep what a failed check left on disk, so it can be looked at (not when the output was only closed).
    if (error instanceof CheckFailed) {
      failed = true;
      error.keptAt = dataDir;
    }
    throw error;
  } finally {
    demo.partition.close();
    if (opts.dataDir === undefined && !failed) rmSync(dataDir, { recursive: true, force: true });
  }
}
