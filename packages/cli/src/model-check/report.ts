import { NUM_BATCHES_TO_RETAIN } from '@klog/core';
import {
  type CheckResult,
  CLIENT_NAMES,
  type ClientReaction,
  type Counterexample,
  causeWords,
  INVARIANT_WORDS,
  type ModelBounds,
  type PlannedBatch,
  rangesWords,
  reactionWords,
  stepWords,
  VERDICT_NAMES,
  violationWords,
} from '@klog/model';
import { padEnd, padStart } from '../format.js';
import type { Style } from '../style.js';

type Out = (line: string) => void;

/** 16559167261347713 → 16,559,167,261,347,713: the same on every machine, whatever its locale. */
export function grouped(n: number | bigint): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

const VERDICT = new RegExp(`\\b(${Object.values(VERDICT_NAMES).join('|')})\\b`, 'g');

/** Verdict names in colour (on a terminal): green written, yellow answered from the window, red refused. */
function paintVerdicts(text: string, style: Style): string {
  return text.replace(VERDICT, (name) =>
    name === VERDICT_NAMES.Append
      ? style.green(name)
      : name === VERDICT_NAMES.Duplicate
        ? style.yellow(name)
        : style.red(name),
  );
}

const LABEL = 12;
const line = (label: string, text: string) => `${padEnd(label, LABEL)} ${text}`;

function restartText(bounds: ModelBounds): string {
  if (bounds.restarts === 0) return 'ไม่มี';
  const roll = bounds.segmentBatches === 0 ? 'segment ไม่ roll' : `segment ละ ${bounds.segmentBatches} batch`;
  return `ไม่เกิน ${bounds.restarts} ครั้ง · สร้างหน้าต่างใหม่จาก segment ที่ active · ${roll}`;
}

/** The model and its bounds, so that every result says what it is a result of. */
export function printModel(result: CheckResult, out: Out, style: Style): void {
  const { bounds, plan } = result;
  out(style.bold('== แบบจำลอง: producer ตัวเดียว connection เดียว broker ตัวเดียว =='));
  out(
    line(
      'producer',
      `pid 1000 · epoch 0 · ${bounds.batches} batch: ${rangesWords(
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
  for (const text of Object.values(INVARIANT_WORDS)) out(`  ${style.green('✓')} ${text}`);
  if (result.bounds.inFlight > 1) {
    out(
      `schedule ที่ค้างน้อยกว่า ${result.bounds.inFlight} ก็อยู่ในชุดนี้ด้วย ผลจึงครอบ in-flight 1 ถึง ${result.bounds.inFlight}`,
    );
  }
}

/** The shortest counterexample, step by step. */
export function printCounterexample(result: CheckResult, cx: Counterexample, out: Out, style: Style): void {
  const { plan } = result;
  out(style.bold('== counterexample ที่สั้นที่สุด =='));
  out(`${cx.steps.length} ขั้น · สำรวจ ${grouped(result.states)} state ก่อนพบ`);
  for (const [i, { step }] of cx.steps.entries()) {
    const { actor, text } = stepWords(step, plan);
    out(`${padStart(String(i + 1), 4)}  ${padEnd(actor, 9)} ${paintVerdicts(text, style)}`);
  }
  out(style.red(`ผิดข้อ "${INVARIANT_WORDS[cx.violation.invariant]}"`));
  out(`  ${violationWords(cx.violation, plan)}`);
  const cause = causeWords(cx, plan, result.bounds);
  if (cause !== undefined) out(`  ${cause}`);
}

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
    for (const text of reactionWords(r, plan)) out(`  ${paintVerdicts(text, style)}`);
  }
}
