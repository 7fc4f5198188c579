// The simulator's account of what happened, in the words `klog idem-demo` and `klog model-check`
// use: verdicts come out through @klog/model's `answerWords`, so the page and the CLI agree.
import type { Verdict } from '@klog/core';
import { type Answer, answerWords } from '@klog/model';
import type { SentBatch, SentStatus, SimEvent } from './sandbox.js';

function answerOf(verdict: Verdict, firstOffset: number, lastOffset: number): Answer {
  if (verdict.kind === 'OutOfOrderSequence') return verdict;
  return { kind: verdict.kind, firstOffset, lastOffset };
}

export function verdictWords(verdict: Verdict, firstOffset: number, lastOffset: number): string {
  return answerWords(answerOf(verdict, firstOffset, lastOffset));
}

export function eventWords(event: SimEvent): string {
  switch (event.kind) {
    case 'produce': {
      const head = `pid ${event.pid} ส่ง ${event.range}${event.resend ? ' ซ้ำ' : ''}`;
      if (event.fate === 'request-lost' || event.verdict === undefined)
        return `${head} · request หายก่อนถึง broker`;
      const parts = [`${head} → ${verdictWords(event.verdict, event.firstOffset, event.lastOffset)}`];
      if (event.evicted.length > 0) parts.push(`${event.evicted.join(' ')} หลุดจากหน้าต่าง`);
      if (event.fate === 'ack-lost') parts.push('ack หายกลางทาง producer ยังไม่รู้ผล');
      return parts.join(' · ');
    }
    case 'restart': {
      // The narrowing is said, not left for the reader to count: "from 5 to 1".
      const windows = event.windows
        .map(
          (w) =>
            `pid ${w.pid} [${w.window.join(' ')}]` +
            (w.window.length < w.before ? ` (จาก ${w.before} เหลือ ${w.window.length})` : ''),
        )
        .join(' · ');
      return `restart broker · สร้างหน้าต่างจาก segment ที่ active: ${windows || 'ไม่มี batch ของ producer ใดเลย'}`;
    }
    case 'probe':
      return `pid ${event.pid} ส่ง ${event.range} ที่ประกอบเอง → ${verdictWords(event.verdict, event.firstOffset, event.lastOffset)}`;
    case 'roll':
      return `roll segment · segment ใหม่เริ่มที่ offset ${event.baseOffset}`;
    case 'new-session':
      return (
        `process ใหม่ได้ pid ${event.pid} นับ seq จาก 0` +
        (event.abandoned > 0
          ? ` · ที่ pid ${event.previous} ยังรอคำตอบอีก ${event.abandoned} batch ไม่มีใครส่งซ้ำแล้ว`
          : '')
      );
  }
}

/** One earlier answer of a batch, short: the row's history before its current status. */
function pastWords(status: SentStatus): string {
  if (status.kind === 'waiting') return status.why === 'ack-lost' ? 'ack หาย' : 'request หาย';
  return verdictWords(status.verdict, status.firstOffset, status.lastOffset);
}

function currentWords(status: SentStatus): string {
  if (status.kind === 'waiting')
    return `รอคำตอบ (${status.why === 'ack-lost' ? 'ack หาย' : 'request หาย'}) · ต้องส่งซ้ำ`;
  const words = verdictWords(status.verdict, status.firstOffset, status.lastOffset);
  if (status.verdict.kind !== 'OutOfOrderSequence') return words;
  // Refused, yet the log may hold it (written, its ack lost, then evicted): the producer is told it
  // failed about records that are there. Only a refusal of records the log lacks means "not written".
  if (status.onLog !== undefined) {
    const { firstOffset, lastOffset } = status.onLog;
    return `${words} · ถูกปฏิเสธ แต่อยู่บน log แล้วที่ offset ${firstOffset}..${lastOffset}`;
  }
  return `${words} · ยังไม่ลง log ต้องส่งซ้ำ`;
}

/** The row of a sent batch: its earlier answers, oldest first, then what it is now. */
export function sentWords(batch: SentBatch): string {
  return [...batch.history.slice(0, -1).map(pastWords), currentWords(batch.status)].join(' → ');
}
