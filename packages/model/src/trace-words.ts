import { type PlannedBatch, seqRange } from './batch-plan.js';
import type { ModelBounds } from './bounds.js';
import type { ClientReaction } from './client-reactions.js';
import type { InvariantId, Violation } from './invariants.js';
import type { Counterexample } from './model-checker.js';
import type { Answer } from './model-state.js';
import type { Step } from './steps.js';

/**
 * A trace in words, in Thai as the course is: what `klog model-check` prints and what the
 * lesson's simulator shows when it replays a counterexample, from one place so the two agree.
 */

/** The names Kafka's protocol gives the verdicts (`OUT_OF_ORDER_SEQUENCE_NUMBER` is error 45). */
export const VERDICT_NAMES: { readonly [K in Answer['kind']]: string } = {
  Append: 'APPEND',
  Duplicate: 'DUPLICATE',
  OutOfOrderSequence: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
};

export function answerWords(answer: Answer): string {
  const name = VERDICT_NAMES[answer.kind];
  switch (answer.kind) {
    case 'Append':
      return `${name} · offset ${answer.firstOffset}..${answer.lastOffset}`;
    case 'Duplicate':
      return `${name} · offset เดิม ${answer.firstOffset}..${answer.lastOffset}`;
    case 'OutOfOrderSequence':
      return `${name} · รอ ${answer.expected} ได้ ${answer.got}`;
  }
}

/** The sequence ranges of some batches: `2..3 4..5`. */
export function rangesWords(plan: readonly PlannedBatch[], batches: readonly number[]): string {
  return batches.map((b) => seqRange(plan[b]!)).join(' ');
}

function lostWords(
  step: { readonly requestsLost: readonly number[]; readonly acksLost: readonly number[] },
  plan: readonly PlannedBatch[],
): string {
  const parts: string[] = [];
  const [firstAck, ...moreAcks] = step.acksLost;
  if (firstAck !== undefined) {
    parts.push(`ack ของ ${rangesWords(plan, [firstAck])} หาย`);
    if (moreAcks.length > 0) parts.push(`ack ของ ${rangesWords(plan, moreAcks)} ที่ตามมาหายด้วย`);
  }
  if (step.requestsLost.length > 0)
    parts.push(`request ของ ${rangesWords(plan, step.requestsLost)} ไม่ถึง broker`);
  return parts.join(' · ');
}

/** One step: who acts (`producer`, `broker`, `สาย` for the wire) and what happens. */
export function stepWords(step: Step, plan: readonly PlannedBatch[]): { actor: string; text: string } {
  switch (step.kind) {
    case 'send': {
      const range = seqRange(plan[step.batch]!);
      return {
        actor: 'producer',
        text: `${step.resend ? `ส่ง ${range} ซ้ำ seq เดิม` : `ส่ง ${range}`} · ค้าง ${step.inFlight}`,
      };
    }
    case 'deliver': {
      const parts = [`รับ ${seqRange(plan[step.batch]!)} → ${answerWords(step.answer)}`];
      if (step.answer.kind === 'Append') parts.push(`หน้าต่าง [${step.window.join(' ')}]`);
      if (step.evicted.length > 0) parts.push(`${step.evicted.join(' ')} หลุดจากหน้าต่าง`);
      return { actor: 'broker', text: parts.join(' · ') };
    }
    case 'answer':
      return {
        actor: 'producer',
        text:
          `คำตอบของ ${seqRange(plan[step.batch]!)}: ${answerWords(step.answer)} → ` +
          (step.answer.kind === 'OutOfOrderSequence' ? 'ถือว่าล้มเหลว' : 'สำเร็จ'),
      };
    case 'lose':
      return { actor: 'สาย', text: `ขาด: ${lostWords(step, plan)}` };
    case 'restart':
      return {
        actor: 'broker',
        text:
          `restart · หน้าต่างจาก segment ที่ active [${step.window.join(' ')}]` +
          (step.requestsLost.length + step.acksLost.length > 0 ? ` · ${lostWords(step, plan)}` : ''),
      };
  }
}

export const INVARIANT_WORDS: { readonly [K in InvariantId]: string } = {
  'exactly-once': 'ทุก batch ลง log ครั้งเดียวพอดีเมื่อ schedule จบ',
  'no-false-failure': 'batch ที่ broker เขียนแล้ว producer ไม่เคยได้ยินว่าล้มเหลว',
  'offsets-match': 'offset ที่ producer ได้ยิน ตรงกับตำแหน่งบน log',
  'in-order': 'log เรียง batch ตามลำดับที่ producer ส่ง',
};

export function violationWords(v: Violation, plan: readonly PlannedBatch[]): string {
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

/** Why a written batch was not recognised: the step where it left the window, or the restart that forgot it. */
export function causeWords(
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

export const CLIENT_NAMES: { readonly [K in ClientReaction['client']]: string } = {
  librdkafka: 'librdkafka 2.0.2 (kcat, confluent-kafka)',
  kafkajs: 'KafkaJS 2.2.4',
  platformatic: '@platformatic/kafka 1.35',
};

/** What a client does next, in a line or two. */
export function reactionWords(r: ClientReaction, plan: readonly PlannedBatch[]): string[] {
  const range = seqRange(plan[r.batch]!);
  switch (r.kind) {
    case 'fatal':
      return [
        'error 45 ที่ batch หัวแถว ถือเป็น fatal: producer เลิกทำงาน kcat จบด้วย exit 1',
        `แอปเชื่อว่า ${range} ไม่ได้ลง log ทั้งที่มันอยู่ที่ offset ${r.onLog[0]}..${r.onLog[1]}`,
      ];
    case 'epoch-bump':
      return ['error 45 ที่ batch ซึ่งไม่ใช่หัวแถว: เพิ่ม epoch เองในเครื่อง แล้วส่งใหม่'];
    case 'reject-and-rewind':
      return [
        `ปฏิเสธการส่งนั้น แล้วถอย sequence กลับ แอปส่งอีกเมื่อไร ${range} ก็ออกไปด้วย seq เดิม`,
        `${r.resent} → ${answerWords(r.answer)} อีก แอปได้ยินว่าล้มเหลวซ้ำ`,
      ];
    case 'new-producer-id': {
      const lines = [
        `ขอ producer id ใหม่ (${r.producerId}) แล้วส่งจาก seq 0: ${r.resent} → ${answerWords(r.answer)}`,
      ];
      if (r.answer.kind === 'Append') {
        lines.push(
          `record ของ ${range} จึงอยู่บน log สองแห่ง: offset ${r.onLog[0]}..${r.onLog[1]} และ ` +
            `${r.answer.firstOffset}..${r.answer.lastOffset} ของซ้ำที่ idempotence มีไว้กัน`,
        );
      }
      return lines;
    }
  }
}
