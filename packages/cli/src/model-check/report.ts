import { NUM_BATCHES_TO_RETAIN } from '@klog/core';
import {
  type Answer,
  type CheckResult,
  type ClientReaction,
  type Counterexample,
  type ModelBounds,
  type PlannedBatch,
  type Step,
  seqRange,
  type Violation,
} from '@klog/model';
import { padEnd, padStart, paintVerdict } from '../format.js';
import type { Style } from '../style.js';

type Out = (line: string) => void;

/** 16559167261347713 → 16,559,167,261,347,713: the same on every machine, whatever its locale. */
export function grouped(n: number | bigint): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

const LABEL = 12;
const line = (label: string, text: string) => `${padEnd(label, LABEL)} ${text}`;

function answerText(style: Style, answer: Answer): string {
  switch (answer.kind) {
    case 'Append':
      return `${paintVerdict(style, answer.kind)} · offset ${answer.firstOffset}..${answer.lastOffset}`;
    case 'Duplicate':
      return `${paintVerdict(style, answer.kind)} · offset เดิม ${answer.firstOffset}..${answer.lastOffset}`;
    case 'OutOfOrderSequence':
      return `${paintVerdict(style, answer.kind)} · รอ ${answer.expected} ได้ ${answer.got}`;
  }
}

const ranges = (plan: readonly PlannedBatch[], batches: readonly number[]) =>
  batches.map((b) => seqRange(plan[b]!)).join(' ');

/** The model and its bounds, so that every result says what it is a result of. */
export function printModel(result: CheckResult, out: Out, style: Style): void {
  const { bounds, plan } = result;
  out(style.bold('== แบบจำลอง: producer ตัวเดียว connection เดียว broker ตัวเดียว =='));
  out(
    line(
      'producer',
      `pid 1000 · epoch 0 · ${bounds.batches} batch: ${ranges(
        plan,
        plan.map((b) => b.index),
      )}`,
    ),
  );
  out(
    line(
      'in-flight',
      `ค้างได้ไม่เกิน ${bounds.inFlight} batch ที่ยังไม่ได้คำตอบ (max.in.flight.requests.per.connection)`,
    ),
  );
  out(
    line(
      'สายขาด',
      bounds.losses === 0 ? 'ไม่มี' : `ไม่เกิน ${bounds.losses} ครั้ง · request และ ack ที่อยู่บนสายตอนนั้นหายหมด`,
    ),
  );
  out(line('ส่งซ้ำ', 'ทุก batch ที่ยังไม่ได้คำตอบ ใช้ seq เดิม เก่าสุดก่อน บน connection ใหม่'));
  out(line('restart', restartText(bounds)));
  out(
    line(
      'หน้าต่าง',
      bounds.window === NUM_BATCHES_TO_RETAIN
        ? `${bounds.window} batch · judge กับ ProducerStateEntry ของ @klog/core ตัวจริง`
        : `${bounds.window} batch · ตัดจาก ${NUM_BATCHES_TO_RETAIN} ของ @klog/core เพื่อทดลองว่าตัวตรวจจับได้`,
    ),
  );
}

function restartText(bounds: ModelBounds): string {
  if (bounds.restarts === 0) return 'ไม่มี';
  const roll = bounds.segmentBatches === 0 ? 'segment ไม่ roll' : `segment ละ ${bounds.segmentBatches} batch`;
  return `ไม่เกิน ${bounds.restarts} ครั้ง · สร้างหน้าต่างใหม่จาก segment ที่ active · ${roll}`;
}

const INVARIANT_TEXT = {
  'exactly-once': 'ทุก batch ลง log ครั้งเดียวพอดีเมื่อ schedule จบ',
  'no-false-failure': 'batch ที่ broker เขียนแล้ว producer ไม่เคยได้ยินว่าล้มเหลว',
  'offsets-match': 'offset ที่ producer ได้ยิน ตรงกับตำแหน่งบน log',
  'in-order': 'log เรียง batch ตามลำดับที่ producer ส่ง',
} as const;

/** Every schedule kept every invariant: the figures, and what they cover. */
export function printHolds(
  result: CheckResult,
  outcome: { schedules: bigint; longestSchedule: number },
  out: Out,
  style: Style,
): void {
  out(style.bold('== ผล: ไม่มี schedule ไหนผิด =='));
  out(line('state', `${grouped(result.states)} แบบที่ต่างกัน · ตรวจทุกข้อในทุก state`));
  out(line('transition', grouped(result.transitions)));
  out(line('schedule', `${grouped(outcome.schedules)} · นับบนกราฟของ state ไม่ได้ไล่ทีละเส้น`));
  out(line('ยาวสุด', `${outcome.longestSchedule} ขั้น`));
  for (const text of Object.values(INVARIANT_TEXT)) out(`  ${style.green('✓')} ${text}`);
  if (result.bounds.inFlight > 1) {
    out(
      `schedule ที่ค้างน้อยกว่า ${result.bounds.inFlight} ก็อยู่ในชุดนี้ด้วย ผลจึงครอบ in-flight 1 ถึง ${result.bounds.inFlight}`,
    );
  }
}

function stepText(step: Step, plan: readonly PlannedBatch[], style: Style): [string, string] {
  switch (step.kind) {
    case 'send': {
      const range = seqRange(plan[step.batch]!);
      return ['producer', `${step.resend ? `ส่ง ${range} ซ้ำ seq เดิม` : `ส่ง ${range}`} · ค้าง ${step.inFlight}`];
    }
    case 'deliver': {
      const parts = [`รับ ${seqRange(plan[step.batch]!)} → ${answerText(style, step.answer)}`];
      if (step.answer.kind === 'Append') parts.push(`หน้าต่าง [${step.window.join(' ')}]`);
      if (step.evicted.length > 0) parts.push(style.bold(`${step.evicted.join(' ')} หลุดจากหน้าต่าง`));
      return ['broker', parts.join(' · ')];
    }
    case 'answer':
      return [
        'producer',
        `คำตอบของ ${seqRange(plan[step.batch]!)}: ${answerText(style, step.answer)} → ` +
          (step.answer.kind === 'OutOfOrderSequence' ? 'ถือว่าล้มเหลว' : 'สำเร็จ'),
      ];
    case 'lose':
      return ['สาย', `ขาด: ${lostText(step, plan)}`];
    case 'restart':
      return [
        'broker',
        `restart · หน้าต่างจาก segment ที่ active [${step.window.join(' ')}]` +
          (step.requestsLost.length + step.acksLost.length > 0 ? ` · ${lostText(step, plan)}` : ''),
      ];
  }
}

function lostText(
  step: { requestsLost: readonly number[]; acksLost: readonly number[] },
  plan: readonly PlannedBatch[],
): string {
  const parts: string[] = [];
  const [firstAck, ...moreAcks] = step.acksLost;
  if (firstAck !== undefined) {
    parts.push(`ack ของ ${ranges(plan, [firstAck])} หาย`);
    if (moreAcks.length > 0) parts.push(`ack ของ ${ranges(plan, moreAcks)} ที่ตามมาหายด้วย`);
  }
  if (step.requestsLost.length > 0) parts.push(`request ของ ${ranges(plan, step.requestsLost)} ไม่ถึง broker`);
  return parts.join(' · ');
}

function violationText(v: Violation, plan: readonly PlannedBatch[]): string {
  const range = seqRange(plan[v.batch]!);
  switch (v.kind) {
    case 'written-but-failed':
      return `batch ${range} อยู่บน log ที่ offset ${v.firstOffset}..${v.lastOffset} แต่ producer ได้ยินว่ามันล้มเหลว`;
    case 'written-twice':
      return `batch ${range} อยู่บน log ${v.offsets.length} ที่: ${v.offsets.map(([f, l]) => `${f}..${l}`).join(' และ ')}`;
    case 'never-written':
      return `schedule จบแล้ว แต่ batch ${range} ไม่เคยลง log`;
    case 'wrong-offsets':
      return `producer ได้ยินว่า ${range} อยู่ที่ offset ${v.told[0]}..${v.told[1]} แต่บน log ${
        v.onLog === undefined ? 'ไม่มีมัน' : `มันอยู่ที่ ${v.onLog[0]}..${v.onLog[1]}`
      }`;
    case 'out-of-order':
      return `batch ${range} ลง log หลัง ${seqRange(plan[v.after]!)} ที่ส่งทีหลังมัน`;
  }
}

/** Why the batch was not recognised: the step where it left the window, or the restart that forgot it. */
function causeText(
  cx: Counterexample,
  plan: readonly PlannedBatch[],
  bounds: ModelBounds,
): string | undefined {
  if (cx.violation.kind !== 'written-but-failed') return undefined;
  const range = seqRange(plan[cx.violation.batch]!);
  for (const [i, { step }] of cx.steps.entries()) {
    if (step.kind === 'deliver' && step.evicted.includes(range)) {
      return (
        `${range} หลุดจากหน้าต่างที่ขั้น ${i + 1} ก่อน ack ของมันจะถึง producer: ` +
        `ค้างได้ ${bounds.inFlight} batch แต่หน้าต่างจำได้ ${bounds.window}`
      );
    }
    if (step.kind === 'restart' && !step.window.includes(range)) {
      return `restart ที่ขั้น ${i + 1} สร้างหน้าต่างจาก segment ที่ active ซึ่งไม่มี ${range} แล้ว`;
    }
  }
  return undefined;
}

/** The shortest counterexample, step by step. */
export function printCounterexample(result: CheckResult, cx: Counterexample, out: Out, style: Style): void {
  const { plan } = result;
  out(style.bold('== counterexample ที่สั้นที่สุด =='));
  out(`${cx.steps.length} ขั้น · สำรวจ ${grouped(result.states)} state ก่อนพบ`);
  for (const [i, { step }] of cx.steps.entries()) {
    const [actor, text] = stepText(step, plan, style);
    out(`${padStart(String(i + 1), 4)}  ${padEnd(actor, 9)} ${text}`);
  }
  out(style.red(`ผิดข้อ "${INVARIANT_TEXT[cx.violation.invariant]}"`));
  out(`  ${violationText(cx.violation, plan)}`);
  const cause = causeText(cx, plan, result.bounds);
  if (cause !== undefined) out(`  ${cause}`);
}

const CLIENT_NAMES = {
  librdkafka: 'librdkafka 2.0.2 (kcat, confluent-kafka)',
  kafkajs: 'KafkaJS 2.2.4',
  platformatic: '@platformatic/kafka 1.35',
} as const;

/** What each real client does next with the verdict the counterexample ends on. */
export function printClientReactions(
  reactions: readonly ClientReaction[],
  plan: readonly PlannedBatch[],
  out: Out,
  style: Style,
): void {
  if (reactions.length === 0) return;
  out(style.bold('== client จริงทำอะไรต่อ =='));
  for (const r of reactions) {
    out(CLIENT_NAMES[r.client]);
    const range = seqRange(plan[r.batch]!);
    switch (r.kind) {
      case 'fatal':
        out(`  error 45 ที่ batch หัวแถว ถือเป็น fatal: producer เลิกทำงาน kcat จบด้วย exit 1`);
        out(`  แอปเชื่อว่า ${range} ไม่ได้ลง log ทั้งที่มันอยู่ที่ offset ${r.onLog[0]}..${r.onLog[1]}`);
        break;
      case 'epoch-bump':
        out(`  error 45 ที่ batch ซึ่งไม่ใช่หัวแถว: เพิ่ม epoch เองในเครื่อง แล้วส่งใหม่`);
        break;
      case 'reject-and-rewind':
        out(`  ปฏิเสธการส่งนั้น แล้วถอย sequence กลับ แอปส่งอีกเมื่อไร ${range} ก็ออกไปด้วย seq เดิม`);
        out(`  ${r.resent} → ${answerText(style, r.answer)} อีก แอปได้ยินว่าล้มเหลวซ้ำ`);
        break;
      case 'new-producer-id':
        out(
          `  ขอ producer id ใหม่ (${r.producerId}) แล้วส่งจาก seq 0: ${r.resent} → ${answerText(style, r.answer)}`,
        );
        if (r.answer.kind === 'Append') {
          out(
            `  record ของ ${range} จึงอยู่บน log สองแห่ง: offset ${r.onLog[0]}..${r.onLog[1]} และ ` +
              `${r.answer.firstOffset}..${r.answer.lastOffset} ของซ้ำที่ idempotence มีไว้กัน`,
          );
        }
        break;
    }
  }
}
