import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchMetadata,
  incrementSequence,
  MAX_SEQUENCE,
  type ProducerEpoch,
  type ProducerId,
  type Sequence,
  type WindowEntry,
  type WindowModule,
} from '@klog/core';
import { CORE_WINDOW, checkModel, type Outcome } from '@klog/model';
import { appendIdempotent, appendRecords, Partition, type RecordInput } from '@klog/storage';
import type { SentBatch as BrokerBatch, History } from './broker-history.js';
import { anomalyFailure, BROKER_SCENARIO, checkHistory, runBrokerScenario } from './broker-stage.js';
import { range, trace } from './lab-history.js';
import type { Rng } from './random.js';
import {
  epochRow,
  expectedWindow,
  expectFields,
  LabLog,
  logEndRow,
  type SentBatch,
  StageFailed,
  show,
  windowOf,
  windowRow,
} from './verdict-rows.js';

/** One observable behaviour the chapter teaches, checked against the learner's window. */
export interface Stage {
  readonly id: string;
  readonly title: string;
  /** The heading of docs/07-idem.mdx to reread when it fails. */
  readonly section: string;
  /** `file` is the learner's file, for a stage that loads it again elsewhere (the broker stage's window). */
  run(lab: WindowModule, rng: Rng, file: string): void | Promise<void>;
}

const CLOCK_MS = 1_700_000_000_000;

/** One producer writing to one partition through the learner's `appendBatch`, remembering what it sent. */
class Producer {
  readonly producerId: ProducerId;
  epoch: number;
  readonly log: LabLog;
  readonly entry: WindowEntry;
  next = 0;
  readonly sent: SentBatch[] = [];

  constructor(
    readonly lab: WindowModule,
    rng: Rng,
  ) {
    this.producerId = rng.int(1, 999_999) as ProducerId;
    this.epoch = rng.int(0, 99);
    this.log = new LabLog(rng.int(0, 900), CLOCK_MS);
    this.entry = new lab.ProducerStateEntry(this.producerId);
  }

  describe(epoch: number, firstSeq: number, records: number): string {
    const last = incrementSequence(firstSeq as Sequence, records - 1);
    return `appendBatch(pid ${this.producerId}, epoch ${epoch}, seq ${firstSeq}..${last}, ${records} record${records === 1 ? '' : 's'})`;
  }

  append(epoch: number, firstSeq: number, records: number): unknown {
    const end = this.log.logEndOffset;
    const who = `pid ${this.producerId} · epoch ${epoch}`;
    const seq = range(firstSeq, incrementSequence(firstSeq as Sequence, records - 1));
    const answer = this.#append(epoch, firstSeq, records);
    // The trace keeps what the log holds, whatever the window answered: a window that lets a duplicate
    // through shows it here as a second write of the same sequences.
    trace().sends.push({ who, seq, answer: answerWords(answer) });
    if (this.log.logEndOffset > end)
      trace().log.push({ offsets: range(end, this.log.logEndOffset - 1), who, seq });
    return answer;
  }

  #append(epoch: number, firstSeq: number, records: number): unknown {
    return this.lab.appendBatch(
      this.entry,
      {
        producerId: this.producerId,
        epoch: epoch as ProducerEpoch,
        firstSeq: firstSeq as Sequence,
        records,
      },
      this.log,
    );
  }

  /** A new batch at the expected sequence: Append, at the log end, and the window holds it. */
  sendNew(records: number, what: string, window?: (sent: SentBatch[]) => SentBatch[]): SentBatch {
    const firstOffset = this.log.logEndOffset;
    const request = `${what}: ${this.describe(this.epoch, this.next, records)}`;
    const answer = this.append(this.epoch, this.next, records);
    const batch: SentBatch = {
      epoch: this.epoch,
      firstSeq: this.next,
      lastSeq: incrementSequence(this.next as Sequence, records - 1),
      records,
      firstOffset,
      lastOffset: firstOffset + records - 1,
      timestamp: CLOCK_MS + firstOffset,
    };
    this.sent.push(batch);
    const expected = window === undefined ? this.sent : window(this.sent);
    expectFields(request, { kind: 'Append', firstOffset, lastOffset: batch.lastOffset }, answer, [
      logEndRow(this.log, firstOffset + records),
      windowRow(this.entry, expected),
      epochRow(this.entry, this.epoch),
    ]);
    this.next = incrementSequence(batch.lastSeq as Sequence, 1);
    return batch;
  }

  /** Send `batch` again (the ack was lost): the answer, and nothing may be written. */
  resend(
    what: string,
    firstSeq: number,
    records: number,
    expected: Readonly<Record<string, unknown>>,
    window: readonly SentBatch[],
    epoch = this.epoch,
    windowEpoch?: number,
  ): void {
    const end = this.log.logEndOffset;
    const request = `${what}: ${this.describe(epoch, firstSeq, records)}`;
    const answer = this.append(epoch, firstSeq, records);
    expectFields(request, expected, answer, [
      { ...logEndRow(this.log, end), field: 'log end offset (ต้องไม่มีอะไรถูกเขียน)' },
      windowRow(this.entry, window),
      // Where epochs are the point (stage 6), the window's own epoch beside its batches: a refused batch of
      // another epoch leaves it as it was (Kafka's ProducerStateEntry keeps its epoch until a batch is written).
      ...(windowEpoch === undefined ? [] : [epochRow(this.entry, windowEpoch)]),
    ]);
  }
}

/** A verdict as the report and the simulator say it (Kafka's error names). */
function answerWords(answer: unknown): string {
  const a = (answer ?? {}) as Record<string, unknown>;
  switch (a['kind']) {
    case 'Append':
      return `APPEND · offset ${show(a['firstOffset'])}..${show(a['lastOffset'])}`;
    case 'Duplicate':
      return `DUPLICATE · offset เดิม ${show(a['firstOffset'])}..${show(a['lastOffset'])}`;
    case 'OutOfOrderSequence':
      return `OUT_OF_ORDER_SEQUENCE_NUMBER · รอ ${show(a['expected'])} ได้ ${show(a['got'])}`;
    default:
      return show(answer);
  }
}

function duplicateOf(b: SentBatch) {
  return { kind: 'Duplicate', firstOffset: b.firstOffset, lastOffset: b.lastOffset, timestamp: b.timestamp };
}

function outOfOrder(expected: number, got: number) {
  return { kind: 'OutOfOrderSequence', expected, got };
}

const firstAppend: Stage = {
  id: 'first-append',
  title: 'append แรก: producer ใหม่เริ่มที่ 0 และลงที่ปลาย log',
  section: 'สี่ตัวเลขต่อหนึ่ง batch',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const batch = p.sendNew(rng.int(1, 5), 'batch แรกของ producer ใหม่');
    const meta = p.entry.batches[0];
    expectFields(
      'หน้าต่างหลังจากนั้น (BatchMetadata)',
      {
        lastSeq: batch.lastSeq,
        lastOffset: batch.lastOffset,
        offsetDelta: batch.records - 1,
        timestamp: batch.timestamp,
      },
      meta,
    );
    p.sendNew(rng.int(1, 5), 'batch ถัดไป');
  },
};

const duplicate: Stage = {
  id: 'duplicate',
  title: 'ของซ้ำ: ส่งซ้ำแล้วได้ offset ของการเขียนครั้งแรก และไม่มีอะไรถูกเขียนเพิ่ม',
  section: 'สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const count = rng.int(2, 4);
    for (let i = 0; i < count; i++) p.sendNew(rng.int(1, 4), `batch ${i + 1}`);
    const i = rng.int(0, count - 1);
    const b = p.sent[i]!;
    p.resend(`ส่ง batch ${i + 1} ซ้ำ`, b.firstSeq, b.records, duplicateOf(b), p.sent);
  },
};

const gap: Stage = {
  id: 'gap',
  title: 'ช่องว่าง: batch ที่เลย sequence ที่รอไปได้ out of order พร้อมเลขที่รอ',
  section: 'ช่องว่างใน sequence คือการเขียนที่หาย',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) p.sendNew(rng.int(1, 4), `batch ${i + 1}`);
    const first = p.next + rng.int(1, 9);
    p.resend('batch ที่ตามหลังก้อนที่หายไป', first, rng.int(1, 3), outOfOrder(p.next, first), p.sent);
    p.sendNew(rng.int(1, 3), 'แล้วจึงส่ง batch ที่ broker รอ');
  },
};

const partialOverlap: Stage = {
  id: 'partial-overlap',
  title: 'ทับกันบางส่วน: ช่วงที่แค่คาบเกี่ยวก้อนในหน้าต่างคือ out of order ไม่ใช่ของซ้ำ',
  section: 'สามคำตัดสิน และตัวที่ทำให้คนแปลกใจ',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const count = rng.int(3, 4);
    for (let i = 0; i < count; i++) p.sendNew(rng.int(2, 4), `batch ${i + 1}`);
    const i = rng.int(0, count - 2);
    const [a, b] = [p.sent[i]!, p.sent[i + 1]!];
    p.resend(
      `batch ${i + 1} กับ ${i + 2} มัดรวมส่งซ้ำเป็นก้อนเดียว`,
      a.firstSeq,
      a.records + b.records,
      outOfOrder(p.next, a.firstSeq),
      p.sent,
    );
    p.resend(
      `ส่วนท้ายของ batch ${i + 1}`,
      a.firstSeq + 1,
      a.records - 1,
      outOfOrder(p.next, a.firstSeq + 1),
      p.sent,
    );
  },
};

const eviction: Stage = {
  id: 'eviction',
  title: 'หน้าต่างล้น: หน้าต่างจำห้า batch และก้อนที่หกดันก้อนแรกออก',
  section: 'เมื่อหน้าต่างล้น',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const names = ['แรก', 'ที่สอง', 'ที่สาม', 'ที่สี่', 'ที่ห้า'];
    for (const name of names) p.sendNew(rng.int(1, 3), `batch ${name}`);
    const first = p.sent[0]!;
    p.resend('ส่งก้อนแรกในห้าก้อนซ้ำ', first.firstSeq, first.records, duplicateOf(first), p.sent);
    p.sendNew(rng.int(1, 3), 'batch ที่หก', (sent) => sent.slice(1));
    p.resend(
      'ส่งก้อนแรกซ้ำ หลังก้อนที่หก',
      first.firstSeq,
      first.records,
      outOfOrder(p.next, first.firstSeq),
      p.sent.slice(1),
    );
    const second = p.sent[1]!;
    p.resend('ส่งก้อนที่สองซ้ำ', second.firstSeq, second.records, duplicateOf(second), p.sent.slice(1));
  },
};

const epoch: Stage = {
  id: 'epoch',
  title: 'epoch: ของซ้ำต้องมาจาก epoch เดียวกัน และ epoch ใหม่เริ่มหน้าต่างใหม่',
  section: 'สามช่องในหัว batch ที่เว้นไว้ตั้งแต่บทที่ 1',
  run(lab, rng) {
    const p = new Producer(lab, rng);
    const count = rng.int(2, 3);
    for (let i = 0; i < count; i++) p.sendNew(rng.int(1, 4), `batch ${i + 1}`);
    const old = p.sent[rng.int(0, count - 1)]!;
    const before = [...p.sent];
    const newer = p.epoch + 1;
    p.resend(
      `ช่วงเดิมจาก epoch ${newer}`,
      old.firstSeq,
      old.records,
      outOfOrder(p.next, old.firstSeq),
      before,
      newer,
      p.epoch,
    );
    p.epoch = newer;
    const fresh = p.sendNew(rng.int(1, 3), `batch ใหม่จาก epoch ${newer}`, (sent) => sent.slice(-1));
    p.resend(
      `ช่วงเก่าจาก epoch ${old.epoch} หลัง epoch ${newer} เขียนแล้ว`,
      old.firstSeq,
      old.records,
      outOfOrder(p.next, old.firstSeq),
      [fresh],
      old.epoch,
      newer,
    );
    p.resend(
      `ส่ง batch ของ epoch ${newer} ซ้ำ`,
      fresh.firstSeq,
      fresh.records,
      duplicateOf(fresh),
      [fresh],
      newer,
      newer,
    );
  },
};

const wrap: Stage = {
  id: 'wrap',
  title: 'วนรอบ: ถัดจาก 2147483647 คือ 0',
  section: 'sequence ถึง 2147483647 แล้ววนกลับเป็น 0',
  run(lab, rng) {
    const d = rng.int(0, 5);
    const s = rng.int(1, 5);
    const x = rng.int(0, 1_000_000);
    const k = rng.int(1, 9);
    for (const [sequence, increment, result] of [
      [x, k, x + k],
      [MAX_SEQUENCE - 1, 1, MAX_SEQUENCE],
      [MAX_SEQUENCE, 1, 0],
      [MAX_SEQUENCE - 1, 2, 0],
      [MAX_SEQUENCE - d, d + s, s - 1],
    ] as const) {
      const got = lab.incrementSequence(sequence as Sequence, increment);
      expectFields(`incrementSequence(${sequence}, ${increment})`, { result }, { result: got });
    }
    // A producer whose window already ends just below the wrap: its next batch crosses it.
    const p = new Producer(lab, rng);
    const records = rng.int(2, 3);
    const last = MAX_SEQUENCE - rng.int(1, records - 1);
    const written = p.log.append(records);
    p.entry.addBatch(
      p.epoch as ProducerEpoch,
      new BatchMetadata(last as Sequence, written.lastOffset, records - 1, written.timestamp),
    );
    p.sent.push({
      epoch: p.epoch,
      firstSeq: last - records + 1,
      lastSeq: last,
      records,
      ...written,
    });
    p.next = last + 1;
    const crossing = p.sendNew(rng.int(3, 5), 'batch ที่คร่อมจุดวนรอบ');
    p.sendNew(rng.int(1, 3), 'batch ถัดจากนั้น');
    p.resend('ส่ง batch ที่คร่อมจุดวนรอบซ้ำ', crossing.firstSeq, crossing.records, duplicateOf(crossing), p.sent);
  },
};

function records(n: number, tag: string): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${tag}-${i}`) }));
}

/** The fields of each batch header of the active segment, as a reopened partition reads them off disk. */
function activeHeaders(dir: string, config: { segmentBytes?: number } = {}) {
  const partition = Partition.open(dir, 'lab', 0, config);
  try {
    const headers = [...partition.log.activeSegment.headers()].map(({ header }) => ({
      baseOffset: header.baseOffset,
      lastOffsetDelta: header.lastOffsetDelta,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      baseSequence: header.baseSequence,
      maxTimestamp: header.maxTimestamp,
    }));
    return { headers, segments: partition.log.segments.length, end: partition.log.logEndOffset };
  } finally {
    partition.close();
  }
}

const rebuild: Stage = {
  id: 'rebuild',
  title: 'สร้างใหม่: หน้าต่างกลับมาจากหัว batch ของ segment ที่ active และเหลือ 5 → 1 เมื่อข้าม roll',
  section: 'สร้างสถานะใหม่ตอนเปิด และส่วนที่การอ่านย้อนมองไม่เห็น',
  run(lab, rng) {
    const dir = mkdtempSync(join(tmpdir(), 'klog-lab-'));
    try {
      const pid = rng.int(1, 999_999);
      const producerEpoch = rng.int(0, 99);
      let next = rng.int(0, 1000);
      const sent: SentBatch[] = [];
      const write = (segmentBytes?: number) => {
        const partition = Partition.open(dir, 'lab', 0, segmentBytes === undefined ? {} : { segmentBytes });
        try {
          const n = rng.int(1, 3);
          const nowMs = CLOCK_MS + rng.int(0, 10_000);
          const answer = appendIdempotent(partition, {
            producerId: pid,
            producerEpoch,
            firstSequence: next,
            records: records(n, `b${sent.length}`),
            nowMs,
            // Kafka's rule takes a new producer at any sequence: the rebuild starts from a drawn one.
            rule: 'kafka',
          });
          if (answer.kind !== 'Append') throw new Error(`lab: storage refused a batch (${answer.kind})`);
          sent.push({
            epoch: producerEpoch,
            firstSeq: next,
            lastSeq: incrementSequence(next as Sequence, n - 1),
            records: n,
            firstOffset: answer.firstOffset,
            lastOffset: answer.lastOffset,
            timestamp: nowMs,
          });
          next = incrementSequence(sent.at(-1)!.lastSeq as Sequence, 1);
          return partition.log.activeSegment.size;
        } finally {
          partition.close();
        }
      };
      // A batch no producer owns comes first: the rebuild must pass it by.
      const plain = Partition.open(dir, 'lab', 0);
      appendRecords(plain, records(rng.int(1, 3), 'plain'), CLOCK_MS);
      plain.close();
      let size = 0;
      for (let i = 0; i < 5; i++) size = write();

      const check = (what: string, headers: ReturnType<typeof activeHeaders>, window: SentBatch[]) => {
        const state = new Map<ProducerId, WindowEntry>();
        for (const header of headers.headers) lab.addBatchFromHeader(state, header);
        const entry = state.get(pid as ProducerId);
        const producers = [...state.keys()].join(', ');
        expectFields(
          `${what}: addBatchFromHeader ทีละหัวจาก ${headers.headers.length} หัวของ segment ที่ active`,
          { producers: `${pid}`, window: expectedWindow(window), producerEpoch: `${producerEpoch}` },
          {
            producers,
            window: entry === undefined ? '(no entry)' : windowOf(entry),
            producerEpoch: entry === undefined ? '(no entry)' : show(entry.producerEpoch),
          },
          [{ field: 'segments', expected: `${window.length === 5 ? 1 : 2}`, actual: `${headers.segments}` }],
        );
        const timestamps = entry?.batches.map((b) => b.timestamp).join(' ');
        expectFields(
          `${what}: timestamp ที่หน้าต่างจำไว้`,
          { timestamps: window.map((b) => b.timestamp).join(' ') },
          { timestamps },
        );
        return entry!;
      };
      const entry = check('เปิดใหม่ตอนมีห้า batch', activeHeaders(dir), sent);
      const last = sent.at(-1)!;
      const log = new LabLog(last.lastOffset + 1, CLOCK_MS);
      const answer = lab.appendBatch(
        entry,
        {
          producerId: pid as ProducerId,
          epoch: producerEpoch as ProducerEpoch,
          firstSeq: last.firstSeq as Sequence,
          records: last.records,
        },
        log,
      );
      expectFields('หลังสร้างใหม่ ส่ง batch ที่ห้าซ้ำ', duplicateOf(last), answer, [
        { ...logEndRow(log, last.lastOffset + 1), field: 'log end offset (ต้องไม่มีอะไรถูกเขียน)' },
      ]);
      // A segment too small for one more batch: the next write rolls a new one.
      write(size);
      check('เปิดใหม่หลัง roll', activeHeaders(dir), sent.slice(-1));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function outcomeWords(outcome: Outcome): string {
  if (outcome.holds) return 'no violation';
  const { violation, steps } = outcome.counterexample;
  return `${violation.kind} in ${steps.length} steps`;
}

const model: Stage = {
  id: 'model',
  title: 'model checker: ค้าง 5 ไม่มีอะไรผิด ค้าง 6 เจอ counterexample',
  section: 'ไล่ทุกลำดับเหตุการณ์: ค้างห้าผ่าน ค้างหกพัง',
  run(lab) {
    const five = checkModel({ inFlight: 5 }, { window: lab });
    expectFields(
      'klog model-check บนหน้าต่างของคุณ ค้าง 5',
      { outcome: 'no violation' },
      { outcome: outcomeWords(five.outcome) },
    );
    const six = checkModel({ inFlight: 6 }, { window: lab });
    const reference = checkModel({ inFlight: 6 }, { window: CORE_WINDOW });
    expectFields(
      'klog model-check บนหน้าต่างของคุณ ค้าง 6',
      { outcome: outcomeWords(reference.outcome) },
      { outcome: outcomeWords(six.outcome) },
    );
  },
};

/** The broker stage's sends and the partition as read back, for the simulator's timeline. */
function traceBrokerHistory(history: History): void {
  const seqOf = (b: BrokerBatch) => range(b.firstSeq, b.firstSeq + b.values.length - 1);
  for (const { batch, attempt, outcome } of history.sends) {
    const answer =
      outcome.kind === 'ack'
        ? `ตอบรับ · offset ${range(outcome.baseOffset, outcome.baseOffset + batch.values.length - 1)}`
        : outcome.kind === 'error'
          ? outcome.error
          : `ack หาย (${outcome.why})`;
    trace().sends.push({
      who: `${batch.client} · epoch ${batch.epoch}`,
      seq: seqOf(batch),
      answer: `batch ${batch.name}${attempt > 1 ? ` รอบที่ ${attempt}` : ''} · ${answer}`,
    });
  }
  // Values are `<batch>.<i>`: consecutive records of one batch name are one write on the timeline.
  const owner = new Map(history.sends.map(({ batch }) => [batch.name, batch]));
  let run: { name: string; from: number; to: number; first: number; last: number } | undefined;
  const flush = () => {
    if (run === undefined) return;
    const batch = owner.get(run.name);
    trace().log.push({
      offsets: range(run.from, run.to),
      who: batch === undefined ? `batch ${run.name}` : `${batch.client} · batch ${run.name}`,
      // The values, not a sequence: a batch refused and sent again as a new one carries them at new sequences.
      seq: `ค่า ${run.name}.${range(run.first, run.last)}`,
    });
  };
  for (const { offset, value } of history.reads) {
    const dot = value.lastIndexOf('.');
    const name = value.slice(0, dot);
    const i = Number(value.slice(dot + 1));
    if (run !== undefined && run.name === name && run.to === offset - 1) {
      run.to = offset;
      run.last = i;
      continue;
    }
    flush();
    run = { name, from: offset, to: offset, first: i, last: i };
  }
  flush();
}

const broker: Stage = {
  id: 'broker',
  title: 'หลัง broker ตัวจริง: ค้างห้า ack หาย ส่งซ้ำแบบรวมก้อน roll แล้ว restart และ epoch ใหม่',
  section: 'ack หายจริงบนสาย ผ่าน client ที่คนใช้กันอยู่',
  async run(_lab, rng, file) {
    const dir = mkdtempSync(join(tmpdir(), 'klog-lab-broker-'));
    try {
      const ids = { a: rng.int(1, 999_999), b: 0, c: 0, epoch: rng.int(0, 99) };
      ids.b = ids.a + 1;
      ids.c = ids.a + 2;
      const history = await runBrokerScenario(file, dir, ids);
      traceBrokerHistory(history);
      expectFields(
        BROKER_SCENARIO,
        { 'segment ก่อน restart': 'มากกว่า 1' },
        {
          'segment ก่อน restart': history.rolled > 1 ? 'มากกว่า 1' : `${history.rolled}`,
        },
      );
      const anomaly = checkHistory(history);
      if (anomaly !== undefined) throw anomalyFailure(anomaly, history.sends);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** The stages, in the chapter's order; a check stops at the first that fails. */
export const STAGES: readonly Stage[] = [
  firstAppend,
  duplicate,
  gap,
  partialOverlap,
  eviction,
  epoch,
  wrap,
  rebuild,
  model,
  broker,
];

export { StageFailed };
